"""ReductionKernel to CuPy's documented semantics, on random inputs, against NumPy."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc


@pytest.fixture
def rng():
    return np.random.default_rng(31)


@pytest.fixture(scope="module")
def l2norm():
    return cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ((0, 2), False),
                                            (-1, False), ((1, 2), True)])
def test_axis_and_keepdims(l2norm, rng, axis, keepdims):
    a = rng.standard_normal((3, 40, 5)).astype(np.float32)
    got = l2norm(cp.asarray(a), axis=axis, keepdims=keepdims).get()
    want = np.sqrt((a.astype(np.float64) ** 2).sum(axis=axis, keepdims=keepdims))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_strided_input_and_given_output(l2norm, rng):
    a = rng.standard_normal((8, 600))
    out = cp.empty(4, np.float64)
    assert l2norm(cp.asarray(a)[::2, ::3], out, axis=1) is out
    np.testing.assert_allclose(out.get(), np.sqrt((a[::2, ::3] ** 2).sum(axis=1)), rtol=1e-12)


def test_no_identity_max_and_min_of_negative_numbers(rng):
    largest = cp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "largest")
    a = -rng.random((7, 33)) - 1                      # all below zero: a zero start would be wrong
    np.testing.assert_array_equal(largest(cp.asarray(a), axis=1).get(), a.max(axis=1))
    np.testing.assert_array_equal(largest(cp.asarray(a)).get(), a.max())
    with pytest.raises(ValueError, match="no identity"):
        largest(cp.zeros((3, 0)), axis=1)


def test_reduce_type_map_of_two_inputs_and_post_map(rng):
    dot = cp.ReductionKernel("T x, T y", "float64 z", "x * y", "a + b", "z = a / _J", "0", "mean_product",
                             reduce_type="double")
    x = rng.integers(-5, 5, (4, 50)).astype(np.int32)
    y = rng.integers(-5, 5, 50).astype(np.int32)   # broadcast against x
    got = dot(cp.asarray(x), cp.asarray(y), axis=1).get()
    np.testing.assert_array_equal(got, (x * y).sum(axis=1) / 50)


def test_integer_count_with_identity_over_empty_axis():
    count = cp.ReductionKernel("T x", "int64 n", "x > 0 ? 1 : 0", "a + b", "n = a", "0", "count_positive")
    np.testing.assert_array_equal(count(cp.zeros((3, 0), np.float32), axis=1).get(), [0, 0, 0])
    x = np.array([[1, -1, 2], [0, 3, 4]], np.float32)
    np.testing.assert_array_equal(count(cp.asarray(x), axis=1).get(), [2, 2])


def test_preamble_and_raw_argument(rng):
    weighted = cp.ReductionKernel("T x, raw T w", "T y", "x * w[_j]", "a + b", "y = a", "0", "weighted",
                                  preamble="// weights indexed by the reduced position")
    x = rng.standard_normal((5, 20))
    w = rng.standard_normal(20)
    np.testing.assert_allclose(weighted(cp.asarray(x), cp.asarray(w), axis=1).get(), x @ w, rtol=1e-12)


def test_reduction_runs_on_the_machine_with_ftz(rng):
    total = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "ftz_total")
    tiny = np.full(8, 1e-40, np.float32)
    with cp.profile() as prof:
        got = total(cp.asarray(tiny)).get()
    assert got == 0                                   # each subnormal flushed, as under CuPy
    assert [launch.kernel_name for launch in prof.launches] == ["ftz_total"]
