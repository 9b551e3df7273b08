"""cupy.fft, computed on the host with NumPy's pocketfft, with CuPy's dtype rules.

CuPy calls cuFFT, which transforms single precision in single precision: a
float16, float32 or complex64 input gives complex64 (and irfft's real output
float32), anything else (integers, bool, float64) complex128, where NumPy 1.x
upcast everything to complex128. The input is converted as CuPy converts it
(complex to real for rfft drops the imaginary part), NumPy transforms it, and
the result comes back as a device array of CuPy's dtype. `plan=` is accepted
and ignored (no cuFFT plans); `norm=` is honoured.
"""

from __future__ import annotations

import numpy as np

from .host_library import download, upload

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_SINGLE = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.complex64))


def complex_dtype(dtype) -> np.dtype:
    """The complex dtype of a complex-to-complex or complex-to-real transform of `dtype`."""
    return np.dtype(np.complex64 if np.dtype(dtype) in _SINGLE else np.complex128)


def real_dtype(dtype) -> np.dtype:
    """The real dtype of a real-to-complex input, or of a complex-to-real output, of `dtype`."""
    return np.dtype(np.float32 if np.dtype(dtype) in _SINGLE else np.float64)


def _input(a, dtype) -> np.ndarray:
    host = np.asarray(download(a))
    if host.dtype.kind == "c" and dtype.kind != "c":
        host = host.real
    return host.astype(dtype, copy=False)


def _dtype_of(a) -> np.dtype:
    return a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype


def _axes(s, axes):
    """With `s` and no `axes`, the last len(s) axes (CuPy's rule, which NumPy 2 deprecates)."""
    return tuple(range(-len(s), 0)) if s is not None and axes is None else axes


def _complex_to_complex(transform):
    def call(a, n=None, axis=-1, norm=None, plan=None):
        dtype = complex_dtype(_dtype_of(a))
        return upload(transform(_input(a, dtype), n, axis, norm), dtype)
    call.__name__ = transform.__name__
    call.__doc__ = f"cupy.fft.{transform.__name__}: computed on the host, CuPy's dtype (complex64 " \
                   "for single precision input)."
    return call


def _complex_to_complex_n(transform):
    def call(a, s=None, axes=None, norm=None, plan=None):
        dtype = complex_dtype(_dtype_of(a))
        return upload(transform(_input(a, dtype), s, _axes(s, axes), norm), dtype)
    call.__name__ = transform.__name__
    call.__doc__ = f"cupy.fft.{transform.__name__}: computed on the host, CuPy's dtype."
    return call


def _default_axes_2(transform):
    def call(a, s=None, axes=(-2, -1), norm=None, plan=None):
        return transform(a, s, axes, norm, plan)
    call.__name__ = transform.__name__[:-1] + "2"
    call.__doc__ = transform.__doc__
    return call


fft = _complex_to_complex(np.fft.fft)
ifft = _complex_to_complex(np.fft.ifft)
fftn = _complex_to_complex_n(np.fft.fftn)
ifftn = _complex_to_complex_n(np.fft.ifftn)
fft2 = _default_axes_2(fftn)
ifft2 = _default_axes_2(ifftn)


def rfft(a, n=None, axis=-1, norm=None, plan=None):
    """Real-to-complex: float32 (and float16) input gives complex64."""
    dtype = real_dtype(_dtype_of(a))
    return upload(np.fft.rfft(_input(a, dtype), n, axis, norm), complex_dtype(dtype))


def irfft(a, n=None, axis=-1, norm=None, plan=None):
    """Complex-to-real: complex64 (and single precision real) input gives float32."""
    dtype = complex_dtype(_dtype_of(a))
    return upload(np.fft.irfft(_input(a, dtype), n, axis, norm), real_dtype(dtype))


def rfftn(a, s=None, axes=None, norm=None, plan=None):
    dtype = real_dtype(_dtype_of(a))
    return upload(np.fft.rfftn(_input(a, dtype), s, _axes(s, axes), norm), complex_dtype(dtype))


def irfftn(a, s=None, axes=None, norm=None, plan=None):
    dtype = complex_dtype(_dtype_of(a))
    return upload(np.fft.irfftn(_input(a, dtype), s, _axes(s, axes), norm), real_dtype(dtype))


rfft2 = _default_axes_2(rfftn)
irfft2 = _default_axes_2(irfftn)


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a signal with Hermitian symmetry (a real spectrum)."""
    dtype = complex_dtype(_dtype_of(a))
    return upload(np.fft.hfft(_input(a, dtype), n, axis, norm), real_dtype(dtype))


def ihfft(a, n=None, axis=-1, norm=None):
    dtype = real_dtype(_dtype_of(a))
    return upload(np.fft.ihfft(_input(a, dtype), n, axis, norm), complex_dtype(dtype))


def fftfreq(n, d=1.0):
    """Sample frequencies, float64 as CuPy's."""
    return upload(np.fft.fftfreq(n, d), np.float64)


def rfftfreq(n, d=1.0):
    return upload(np.fft.rfftfreq(n, d), np.float64)


def fftshift(x, axes=None):
    """The zero-frequency term moved to the centre (the dtype kept)."""
    host = np.asarray(download(x))
    return upload(np.fft.fftshift(host, axes), host.dtype)


def ifftshift(x, axes=None):
    host = np.asarray(download(x))
    return upload(np.fft.ifftshift(host, axes), host.dtype)
