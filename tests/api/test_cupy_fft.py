"""cupy.fft on warpsim: NumPy's values with CuPy's dtypes (complex64 for single precision)."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api import fft

RNG = np.random.default_rng(21)


@pytest.mark.parametrize("dtype, expected", [(np.float32, np.complex64), (np.float16, np.complex64),
                                             (np.complex64, np.complex64), (np.float64, np.complex128),
                                             (np.int32, np.complex128), (np.complex128, np.complex128)])
def test_complex_transforms_have_cupys_dtype_and_numpys_values(dtype, expected):
    a = (RNG.standard_normal((4, 6)) * 3).astype(np.float64)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(a.shape)
    a = a.astype(dtype)
    tol = dict(rtol=2e-3, atol=2e-2) if expected == np.complex64 else dict(rtol=1e-12, atol=1e-12)
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"):
        got = getattr(fft, name)(cp.asarray(a))
        assert isinstance(got, cp.ndarray) and got.dtype == expected, name
        np.testing.assert_allclose(got.get(), getattr(np.fft, name)(a.astype(np.complex128)), **tol)


@pytest.mark.parametrize("dtype, complex_type, real_type", [(np.float32, np.complex64, np.float32),
                                                           (np.float64, np.complex128, np.float64),
                                                           (np.int64, np.complex128, np.float64)])
def test_real_transforms_round_trip_in_cupys_dtypes(dtype, complex_type, real_type):
    a = (RNG.standard_normal((3, 8)) * 4).astype(dtype)
    spectrum = fft.rfft(cp.asarray(a))
    assert spectrum.dtype == complex_type and spectrum.shape == (3, 5)
    np.testing.assert_allclose(spectrum.get(), np.fft.rfft(a.astype(np.float64)), rtol=1e-4, atol=1e-4)
    back = fft.irfft(spectrum, n=8)
    assert back.dtype == real_type
    np.testing.assert_allclose(back.get(), a, rtol=1e-4, atol=1e-4)
    spectrum_n = fft.rfftn(cp.asarray(a))
    assert spectrum_n.dtype == complex_type
    np.testing.assert_allclose(fft.irfftn(spectrum_n, s=a.shape).get(), a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(fft.rfft2(cp.asarray(a), norm="ortho").get(),
                               np.fft.rfft2(a.astype(np.float64), norm="ortho"), rtol=1e-4, atol=1e-4)


def test_axis_n_and_norm_are_honoured():
    a = RNG.standard_normal((5, 7))
    np.testing.assert_allclose(fft.fft(cp.asarray(a), n=10, axis=0, norm="forward").get(),
                               np.fft.fft(a, n=10, axis=0, norm="forward"))
    np.testing.assert_allclose(fft.ifftn(cp.asarray(a), s=(4, 4), axes=(1, 0)).get(),
                               np.fft.ifftn(a, s=(4, 4), axes=(1, 0)))


def test_frequencies_and_shifts():
    assert fft.fftfreq(8, 0.5).dtype == np.float64
    np.testing.assert_array_equal(fft.fftfreq(9, 0.25).get(), np.fft.fftfreq(9, 0.25))
    np.testing.assert_array_equal(fft.rfftfreq(9).get(), np.fft.rfftfreq(9))
    x = RNG.integers(0, 100, (4, 5)).astype(np.int16)
    shifted = fft.fftshift(cp.asarray(x))
    assert shifted.dtype == np.int16
    np.testing.assert_array_equal(shifted.get(), np.fft.fftshift(x))
    np.testing.assert_array_equal(fft.ifftshift(shifted, axes=0).get(),
                                  np.fft.ifftshift(np.fft.fftshift(x), axes=0))
    assert cp.fft.fft is fft.fft
