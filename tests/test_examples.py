"""The runnable examples run and say what they promise."""

import pathlib
import runpy

import pytest

EXAMPLES = pathlib.Path(__file__).parents[1] / "examples"
pytestmark = pytest.mark.nvrtc


def run(name, capsys):
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return capsys.readouterr().out


def test_block_sum(capsys):
    out = run("block_sum.py", capsys)
    got, expected = (float(part.split()[-1]) for part in out.strip().split("   "))
    assert abs(got - expected) < 1e-3 * expected


def test_spin_wait(capsys):
    out = run("spin_wait.py", capsys)
    assert "its: completed, out[0] = 1" in out and "stack: livelock" in out and "kernel.cu:5" in out


def test_transpose_profile(capsys):
    out = run("transpose_profile.py", capsys)
    assert "padding 1: 0 shared-load bank conflicts" in out
    assert "padding 0: 0 " not in out


def test_race_is_found_by_racecheck(capsys):
    from warpsim.cli.check import main
    assert main(["--tool", "racecheck", "python", str(EXAMPLES / "race.py")]) == 1
    assert "warp-synchronous" in capsys.readouterr().out


@pytest.mark.numba
def test_numba_warp_sum(capsys):
    out = run("numba_warp_sum.py", capsys)
    got, expected = (float(part.split()[-1]) for part in out.strip().splitlines()[-1].split("   "))
    assert abs(got - expected) < 1e-3 * expected
