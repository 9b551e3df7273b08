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


@pytest.mark.slow
def test_tutorial_notebook_runs_every_demo_with_its_chart_and_figures():
    """examples/tutorial.ipynb, executed as Jupyter would (nbclient): a demo cell fails when a
    figure disagrees with the document, so the run itself is the check; here, that every demo
    has its cell, printed its figures and drew its chart."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    from warpsim.demo import DEMOS
    notebook = nbformat.read(EXAMPLES / "tutorial.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    cells = {}
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith('demo("'):
            cells[cell.source.split('"')[1]] = cell
    assert set(cells) == set(DEMOS)
    for name, cell in cells.items():
        text = "".join(str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") for o in cell.outputs)
        assert "simt-execution.md says" in text and "✗" not in text, name
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), name
