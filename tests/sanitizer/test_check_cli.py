"""`warpsim check`: runs a script with the sanitizer on; exit status 1 when errors were found."""

import textwrap

import pytest

from warpsim import cli
from warpsim.cli.check import main

from sanitizer_kernels import HAZARDS, line_of

pytestmark = pytest.mark.nvrtc

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import warpsim as cp
    m = cp.RawModule(path={path!r})
    x = cp.asarray(np.arange(64, dtype=np.int32))
    out = cp.zeros(64, dtype=cp.int32)
    m.get_function({kernel!r})((1,), (64,), (x, out))
    print("script done")
    sys.exit({status})
""")


def script(tmp_path, kernel, status=0):
    path = tmp_path / f"{kernel}.py"
    path.write_text(SCRIPT.format(path=HAZARDS, kernel=kernel, status=status))
    return str(path)


def test_a_race_is_reported_and_the_exit_status_is_1(tmp_path, capsys):
    assert main(["--tool", "racecheck", "python", script(tmp_path, "missing_barrier")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("========= COMPUTE-SANITIZER (warpsim check: racecheck)\n")
    assert "Error: Potential RAW hazard detected at __shared__" in out
    assert f"{line_of('s[t] = x[t];')}:missing_barrier" in out
    assert f"{line_of('out[t] = s[63 - t];')}:missing_barrier" in out
    assert out.index("Potential RAW hazard") < out.index("script done")   # printed when the launch ends
    assert out.endswith("========= ERROR SUMMARY: 1 error\n")


def test_a_clean_script_exits_with_its_own_status(tmp_path, capsys):
    assert cli.main(["check", "python", script(tmp_path, "tree_reduce")]) == 0
    out = capsys.readouterr().out
    assert "script done" in out and out.endswith("========= ERROR SUMMARY: 0 errors\n")
    assert main(["python", script(tmp_path, "tree_reduce", status=3)]) == 3


def test_print_limit_and_tool_choice(tmp_path, capsys):
    path = script(tmp_path, "neighbour_overwrite")
    assert main(["--tool", "synccheck,initcheck", "python", path]) == 0
    assert capsys.readouterr().out.endswith("ERROR SUMMARY: 0 errors\n")
    assert main(["--tool", "racecheck", "--print-limit", "1", "python", path]) == 1
    out = capsys.readouterr().out
    assert out.count("Potential WAR hazard") == 1
    assert "more error(s) not printed (--print-limit 1)" in out
    assert "ERROR SUMMARY: 2 errors" in out


def test_unknown_tool_is_a_usage_error(capsys):
    assert main(["--tool", "leakcheck", "python", "x.py"]) == 2
    assert "unknown sanitizer tool(s): leakcheck" in capsys.readouterr().err
