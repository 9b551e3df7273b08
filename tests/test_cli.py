"""The command-line dispatcher and its global options."""

import os

from warpsim import cli


def test_help_lists_commands(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("demo", "run", "profile", "occupancy", "ptx"):
        assert name in out


def test_unknown_command_is_an_error(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_scheduling_option_reaches_the_settings(monkeypatch):
    monkeypatch.delenv("WARPSIM_SCHEDULING", raising=False)
    rest = cli.take_global_options(["profile", "--scheduling", "stack", "python", "x.py", "--scheduling", "its"])
    assert rest == ["profile", "python", "x.py", "--scheduling", "its"]
    assert os.environ["WARPSIM_SCHEDULING"] == "stack"


def test_opcode_table(capsys):
    assert cli.main(["ptx", "--opcodes"]) == 0
    out = capsys.readouterr().out
    assert "shfl" in out and "fma" in out and "cvt" in out


def test_max_rounds_must_be_a_positive_number(capsys, monkeypatch):
    monkeypatch.delenv("WARPSIM_MAX_ROUNDS", raising=False)
    assert cli.main(["--max-rounds", "banana", "run", "python", "x.py"]) == 2
    assert "--max-rounds needs a positive whole number" in capsys.readouterr().err
    assert "WARPSIM_MAX_ROUNDS" not in os.environ
    assert cli.main(["--max-rounds=0", "run", "python", "x.py"]) == 2


FAULTING_SCRIPT = '''
import numpy as np
import warpsim as cp
PTX = """.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    st.global.u32 [%rd1], 1;
    ret;
}
"""
cp.RawModule(ptx=PTX).get_function("k")((1,), (1,), (np.uint64(0),))
'''


def test_profile_of_a_script_whose_kernel_faulted_says_the_launch_failed(tmp_path, capsys):
    script = tmp_path / "faulting.py"
    script.write_text(FAULTING_SCRIPT)
    assert cli.main(["profile", "python", str(script)]) == 1
    captured = capsys.readouterr()
    assert "the launch of kernel 'k' failed (MemoryFault" in captured.err
    assert "no kernel launches were profiled" not in captured.out + captured.err
