"""machine/counting.py's helpers against NumPy's own answers."""

import numpy as np
import pytest

from warpsim.machine.counting import distinct_count, run_starts, unique_ascending

FLAGS = [dict(), dict(return_index=True), dict(return_inverse=True), dict(return_counts=True),
         dict(return_index=True, return_inverse=True, return_counts=True)]


def _cases():
    rng = np.random.default_rng(7)
    yield np.zeros(0, dtype=np.int64)
    yield np.array([5], dtype=np.int64)
    yield np.sort(rng.integers(0, 40, 300))                     # ascending with repeats: the one-pass way
    yield np.repeat(np.arange(0, 1 << 45, 1 << 40), 8)          # wide keys
    yield rng.integers(0, 40, 300)                              # not ascending: np.unique itself
    yield np.arange(10, 0, -1)


@pytest.mark.parametrize("flags", FLAGS)
def test_unique_ascending_gives_np_unique_arrays_and_dtypes(flags):
    for keys in _cases():
        got, want = unique_ascending(keys, **flags), np.unique(keys, **flags)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w)


def test_run_starts_and_distinct_count():
    keys = np.array([1, 1, 2, 2, 2, 7, 1])
    assert run_starts(keys).tolist() == [0, 2, 5, 6]
    assert distinct_count(keys) == 3 and distinct_count(np.sort(keys)) == 3
