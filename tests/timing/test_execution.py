"""timing/execution.py's key helpers against the NumPy calls they stand in for."""

import numpy as np

from warpsim.timing.execution import _issue_order, unique_rows


def test_unique_rows_gives_np_unique_of_the_stacked_rows():
    rng = np.random.default_rng(3)
    narrow = [rng.integers(0, 5, 400), rng.integers(0, 9, 400), rng.integers(0, 3, 400)]
    ordered = [np.sort(narrow[0]), np.zeros(400, dtype=np.int64), np.arange(400) // 7]    # rows already ascend
    wide = [rng.integers(0, 1 << 40, 50), rng.integers(0, 1 << 40, 50)]                 # 80 bits: rows sorted
    for columns in (narrow, ordered, wide):
        want = np.unique(np.stack(columns), axis=1, return_index=True, return_counts=True)[1:]
        got = unique_rows(*columns)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_issue_order_is_lexsort_whether_or_not_the_rows_come_in_order():
    rng = np.random.default_rng(5)
    calls = np.repeat(np.arange(6), 20)
    for within in (np.tile(np.arange(20), 6), rng.integers(0, 8, 120)):
        assert np.array_equal(_issue_order(calls, within), np.lexsort((within, calls)))
