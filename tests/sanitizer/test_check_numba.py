"""Numba kernels run by `warpsim check` are checked too, with Python source lines."""

import textwrap

import pytest

from warpsim.cli.check import main

pytestmark = pytest.mark.numba

SCRIPT = textwrap.dedent("""
    import numpy as np
    from numba import cuda
    import warnings; warnings.simplefilter("ignore")   # Numba's performance hints

    @cuda.jit
    def rotate(x, out):
        s = cuda.shared.array(64, np.int32)
        t = cuda.threadIdx.x
        s[t] = x[t]
        out[t] = s[63 - t]

    out = np.zeros(64, np.int32)
    rotate[1, 64](np.arange(64, dtype=np.int32), out)
""")


def test_a_numba_race_names_the_python_lines(tmp_path, capsys):
    path = tmp_path / "numba_race.py"
    path.write_text(SCRIPT)
    assert main(["--tool", "racecheck", "python", str(path)]) == 1
    out = capsys.readouterr().out
    assert "Potential RAW hazard detected at __shared__" in out
    assert "numba_race.py:10:" in out and "numba_race.py:11:" in out
