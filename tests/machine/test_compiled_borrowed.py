"""borrowed(): machine code's views of an array it was handed, without reference counts."""

import numpy as np
from numba import njit

from warpsim.machine.compiled.borrowed import borrowed


@njit(cache=False)
def _scale_rows_through_views(a, factors):
    a = borrowed(a)
    total = 0.0
    for r in range(a.shape[0]):
        row = a[r]                      # a view of the borrowed array
        part = row[1:]                  # and a slice of that view
        for j in range(part.shape[0]):
            part[j] *= factors[r]
            total += part[j]
    return total


def test_views_of_a_borrowed_array_read_and_write_the_array_itself():
    rng = np.random.default_rng(7)
    a = rng.random((5, 9))
    factors = rng.random(5) + 0.5
    expected = a.copy()
    expected[:, 1:] *= factors[:, None]
    total = _scale_rows_through_views(a, factors)
    np.testing.assert_allclose(a, expected)
    assert abs(total - expected[:, 1:].sum()) < 1e-9


@njit(cache=False)
def _strided_view_sum(a):
    b = borrowed(a)
    return b[::2].sum(), b.shape[0], b.strides[0]


def test_a_borrowed_view_keeps_shape_strides_and_data_of_a_strided_array():
    base = np.arange(40, dtype=np.int64)
    strided = base[1::3]                 # not contiguous: the strides must come along
    total, n, stride = _strided_view_sum(strided)
    assert (total, n, stride) == (int(strided[::2].sum()), len(strided), strided.strides[0])
