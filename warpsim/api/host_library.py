"""CuPy's library calls (cuSOLVER, cuFFT, cuRAND, SciPy's kernels) made on the host.

warpsim simulates kernels, not NVIDIA's libraries. cupy.linalg, cupy.fft,
cupy.random and cupyx.scipy download their operands, compute with NumPy or
SciPy and upload the results, so a CuPy program gets device arrays with
CuPy's dtypes and shapes; none of it is profiled or counted. These are the
two crossings they share.
"""

from __future__ import annotations

import numpy as np

from .arrays import _from_host, _wrap_foreign, ndarray

__all__ = ["download", "upload", "is_device_array"]


def is_device_array(value) -> bool:
    """A warpsim array, or another library's device array (its __cuda_array_interface__)."""
    return isinstance(value, ndarray) or hasattr(value, "__cuda_array_interface__")


def download(value):
    """A device array as a NumPy array (tuples and lists item by item); anything else as it is."""
    if isinstance(value, ndarray):
        return value.get()
    if hasattr(value, "__cuda_array_interface__"):
        return _wrap_foreign(value).get()
    if isinstance(value, (tuple, list)):
        return type(value)(download(item) for item in value)
    return value


def upload(value, dtype=None):
    """A host result as CuPy returns it: NumPy arrays and NumPy scalars become device arrays
    (a scalar a 0-d array, as CuPy's library calls give), cast to `dtype` when given; tuples
    (NumPy's named results too) become plain tuples; Python numbers stay as they are."""
    if isinstance(value, tuple):
        return tuple(upload(item, dtype) for item in value)
    if isinstance(value, (np.ndarray, np.generic)):
        host = np.asarray(value)
        if dtype is not None:
            host = host.astype(dtype, copy=False)
        fortran = host.ndim > 1 and host.flags.f_contiguous and not host.flags.c_contiguous
        return _from_host(host, "F" if fortran else "C")
    return value
