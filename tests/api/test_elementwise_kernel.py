"""ElementwiseKernel to CuPy's documented semantics, on random inputs, against NumPy."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc


@pytest.fixture
def rng():
    return np.random.default_rng(13)


def test_placeholders_broadcasting_and_allocated_output(rng):
    kernel = cp.ElementwiseKernel("T x, T y", "T z", "z = x * y + 1", "mul_add")
    a = rng.standard_normal((3, 1, 5)).astype(np.float32)
    b = rng.standard_normal((4, 1)).astype(np.float32)
    z = kernel(cp.asarray(a), cp.asarray(b))
    assert z.dtype == np.float32 and z.shape == (3, 4, 5)
    np.testing.assert_allclose(z.get(), a * b + 1, rtol=1e-6)


def test_placeholders_follow_the_arrays_dtype(rng):
    kernel = cp.ElementwiseKernel("T x", "T y", "y = x + x", "double_it")
    for dtype in (np.int32, np.float64, np.uint8, np.int64):
        x = rng.integers(0, 100, 17).astype(dtype)
        y = kernel(cp.asarray(x))
        assert y.dtype == dtype
        np.testing.assert_array_equal(y.get(), x + x)


def test_fixed_types_scalars_and_given_outputs(rng):
    kernel = cp.ElementwiseKernel("float32 x, float32 scale, int32 shift", "float64 y",
                                  "y = x * scale + shift", "affine")
    x = rng.standard_normal(50).astype(np.float32)
    out = cp.zeros(50, np.float64)
    result = kernel(cp.asarray(x), 2.5, 3, out)
    assert result is out
    # computed in float (NVRTC contracts to one fma), then widened: float32 accuracy
    np.testing.assert_allclose(out.get(), (x * np.float32(2.5)).astype(np.float64) + 3, rtol=1e-5, atol=1e-6)


def test_type_mismatch_is_a_type_error():
    kernel = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_same")
    with pytest.raises(TypeError, match="Type is mismatched"):
        kernel(cp.zeros(4, np.float32), cp.zeros(4, np.float64))
    fixed = cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "copy_f32")
    with pytest.raises(TypeError, match="Type is mismatched"):
        fixed(cp.zeros(4, np.int32))


def test_raw_arguments_index_i_and_the_indexer(rng):
    reverse = cp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - i - 1]", "reverse")
    x = rng.standard_normal(37)
    y = cp.empty(37, np.float64)
    reverse(cp.asarray(x), y)
    np.testing.assert_array_equal(y.get(), x[::-1])
    iota = cp.ElementwiseKernel("", "raw int32 y", "y[i] = i * 3", "iota")
    out = cp.zeros(10, np.int32)
    iota(out, size=10)
    np.testing.assert_array_equal(out.get(), np.arange(10) * 3)


def test_raw_array_keeps_its_own_dimensions(rng):
    kernel = cp.ElementwiseKernel("raw T m, int32 cols", "T y",
                                  "ptrdiff_t idx[2] = {i / cols, i % cols}; y = m[idx] * 2", "raw2d")
    m = rng.standard_normal((4, 6))
    y = cp.empty(24, np.float64)
    kernel(cp.asarray(m).T.copy().T, np.int32(6), y)
    np.testing.assert_array_equal(y.get(), (m * 2).reshape(-1))


def test_strided_and_broadcast_views(rng):
    kernel = cp.ElementwiseKernel("T x, T y", "T z", "z = x - y", "subtract")
    a = rng.standard_normal((6, 8))
    b = rng.standard_normal(8)
    x = cp.asarray(a)[::2, ::-1]
    y = cp.broadcast_to(cp.asarray(b), (3, 8))
    assert y.strides == (0, 8)
    np.testing.assert_array_equal(kernel(x, y).get(), a[::2, ::-1] - b)


def test_preamble_loop_prep_after_loop_and_options(rng):
    kernel = cp.ElementwiseKernel(
        "T x", "T y", "y = square(x) + OFFSET", "with_preamble",
        preamble="template <typename T> __device__ T square(T v) { return v * v; }",
        options=("-DOFFSET=7",))
    x = rng.integers(-50, 50, 33).astype(np.int32)
    np.testing.assert_array_equal(kernel(cp.asarray(x)).get(), x * x + 7)


def test_several_outputs_and_no_return(rng):
    kernel = cp.ElementwiseKernel("T x", "T lo, T hi", "lo = x - 1; hi = x + 1", "spread")
    x = rng.standard_normal(9).astype(np.float32)
    lo, hi = kernel(cp.asarray(x))
    np.testing.assert_array_equal(lo.get(), x - 1)
    np.testing.assert_array_equal(hi.get(), x + 1)
    quiet = cp.ElementwiseKernel("T x", "T y", "y = x", "quiet_copy", no_return=True)
    assert quiet(cp.asarray(x)) is None


def test_input_overlapping_the_output_is_read_before_it_is_written():
    shift = cp.ElementwiseKernel("T x", "T y", "y = x", "shifted_copy")
    a = cp.arange(10, dtype=cp.int32)
    shift(a[:-1], a[1:])
    np.testing.assert_array_equal(a.get(), [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])


def test_errors_as_cupy_gives_them():
    kernel = cp.ElementwiseKernel("T x", "T y", "y = x", "plain_copy")
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        kernel()
    with pytest.raises(ValueError, match="Loop size is undecided"):
        kernel(3)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        kernel(cp.zeros((2, 4), np.float32), cp.zeros(4, np.float32))   # outputs broadcast too


def test_the_kernel_is_simulated_profiled_and_compiled_with_ftz(rng):
    kernel = cp.ElementwiseKernel("T x, T y", "T z", "z = x * y", "profiled_product")
    x = cp.asarray(rng.standard_normal(300).astype(np.float32))
    with cp.profile() as prof:
        z = kernel(x, x)
    assert [launch.kernel_name for launch in prof.launches] == ["profiled_product"]
    assert prof.launches[0].block == (128, 1, 1)
    (function,) = kernel._modules.values()
    assert "mul.ftz.f32" in function.loaded_module.module.text
    tiny = cp.asarray(np.full(4, 1e-40, np.float32))
    assert not kernel(tiny, cp.asarray(np.ones(4, np.float32))).get().any()   # flushed, as in CuPy
    np.testing.assert_array_equal(z.get(), x.get() * x.get())


def test_empty_loop_returns_the_empty_output():
    kernel = cp.ElementwiseKernel("T x", "T y", "y = x", "empty_copy")
    y = kernel(cp.zeros((0, 3), np.float32))
    assert y.shape == (0, 3)
