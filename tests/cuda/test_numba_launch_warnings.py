"""Numba's launch-time warnings as a Numba program sees them: at the user's line, and under
Python's default filter once per line, however many launches a loop makes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from warpsim import cuda  # noqa: E402

pytestmark = pytest.mark.numba


@cuda.jit
def store(out, v):
    out[cuda.threadIdx.x] = v


def test_a_loop_of_small_launches_warns_of_low_occupancy_once():
    from numba.cuda.core.errors import NumbaPerformanceWarning
    out = cuda.device_array(32, dtype=np.int32)
    store[1, 32](out, 1)                                 # compiles (compiling may reset the filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for value in range(5):
            store[1, 32](out, value)
    low = [w for w in caught if issubclass(w.category, NumbaPerformanceWarning)]
    assert len(low) == 1, [str(w.message) for w in caught]
    assert "Grid size 1" in str(low[0].message) and low[0].filename == __file__
    assert (out.copy_to_host() == 4).all()
