"""CuPy's headers in kernels (warpsim's own cupy/*.cuh) and complex dtypes, against NumPy."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

COMPLEX_OPS = r'''
#include <cupy/complex.cuh>
#include <cupy/carray.cuh>
template <typename T>
__global__ void ops(const complex<T>* a, const complex<T>* b, complex<T>* out, T* magnitude, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    complex<T> x = a[i], y = b[i];
    out[5 * i] = x + y;
    out[5 * i + 1] = x * y - conj(y);
    out[5 * i + 2] = x / y;
    out[5 * i + 3] = exp(x) * T(2);
    out[5 * i + 4] = sqrt(x) + T(1);
    magnitude[i] = abs(x) + (x < y ? T(10) : T(0));
  }
}
'''


def _random_complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype, rtol", [(np.complex64, 2e-6), (np.complex128, 1e-14)])
def test_complex_cuh_arithmetic_and_functions(dtype, rtol):
    rng = np.random.default_rng(11)
    n = 97
    a, b = _random_complex(rng, n, dtype), _random_complex(rng, n, dtype)
    real = np.float32 if dtype == np.complex64 else np.float64
    name = f"ops<{'float' if dtype == np.complex64 else 'double'}>"
    module = cp.RawModule(code=COMPLEX_OPS, name_expressions=[name])
    out = cp.full(5 * n, np.nan, dtype)
    magnitude = cp.full(n, np.nan, real)
    module.get_function(name)((1,), (128,), (cp.asarray(a), cp.asarray(b), out, magnitude, np.int32(n)))
    expected = np.stack([a + b, a * b - np.conj(b), a / b, np.exp(a) * 2, np.sqrt(a) + 1], axis=1)
    np.testing.assert_allclose(out.get().reshape(n, 5), expected, rtol=rtol, atol=rtol)
    assert np.array_equal(out.get().reshape(n, 5)[:, 0], a + b)           # addition is exact
    less = (a.real < b.real) | ((a.real == b.real) & (a.imag < b.imag))     # NumPy's order
    np.testing.assert_allclose(magnitude.get(), np.abs(a) + 10 * less, rtol=rtol)


def test_elementwise_kernel_with_complex_placeholders_and_a_real_output():
    rng = np.random.default_rng(12)
    x, y = _random_complex(rng, 300, np.complex128), _random_complex(rng, 300, np.complex128)
    kernel = cp.ElementwiseKernel("T x, T y, float64 s", "T z, float64 m",
                                  "z = x * y + exp(x) / (T)s; m = abs(z) + real(x) - imag(y)",
                                  "complex_mix")
    z, m = kernel(cp.asarray(x), cp.asarray(y), 2.0)
    expected = x * y + np.exp(x) / 2
    np.testing.assert_allclose(z.get(), expected, rtol=1e-14)
    np.testing.assert_allclose(m.get(), np.abs(expected) + x.real - y.imag, rtol=1e-13)


CUCOMPLEX = r'''
#include <cuComplex.h>
extern "C" __global__ void mad(cuFloatComplex* a, cuFloatComplex* b, cuFloatComplex scalar,
                               cuFloatComplex* out, float* magnitude, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = cuCaddf(cuCmulf(a[i], b[i]), scalar);
    magnitude[i] = cuCabsf(cuConjf(a[i]));
  }
}
'''


def test_translate_cucomplex_runs_cucomplex_code_on_complex64_arrays():
    rng = np.random.default_rng(13)
    a, b = _random_complex(rng, 64, np.complex64), _random_complex(rng, 64, np.complex64)
    scalar = np.complex64(2 - 3j)
    out, magnitude = cp.full(64, np.nan, np.complex64), cp.full(64, np.nan, np.float32)
    module = cp.RawModule(code=CUCOMPLEX, translate_cucomplex=True)
    module.get_function("mad")((1,), (64,), (cp.asarray(a), cp.asarray(b), scalar, out, magnitude,
                                             np.int32(64)))
    np.testing.assert_allclose(out.get(), a * b + scalar, rtol=2e-6)
    np.testing.assert_allclose(magnitude.get(), np.abs(a), rtol=2e-7)


def test_a_cupy_header_warpsim_does_not_have_stops_the_compile_naming_it():
    kernel = cp.RawKernel('#include <cupy/type_dispatcher.cuh>\nextern "C" __global__ void k() {}', "k")
    with pytest.raises(cp.CompileError, match="warpsim does not provide it"):
        kernel.compile()


def test_reduction_kernel_over_complex_values():
    rng = np.random.default_rng(14)
    x = _random_complex(rng, (6, 50), np.complex64)
    total = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "complex_square_sum")
    np.testing.assert_allclose(total(cp.asarray(x), axis=1).get(), (x * x).sum(axis=1), rtol=1e-5)
