"""SciPy's functions on device arrays: download, compute with SciPy, upload (not simulated).

`scipy_module` imports SciPy where it is used, so a plain install without it
runs everything else; the error (MissingDependency, an ImportError) names the
extra that brings it.
"""

from __future__ import annotations

import numpy as np

from ...arrays import ndarray
from ...host_library import download, upload
from ....errors import import_optional

__all__ = ["scipy_module", "on_host", "cupy_ufunc_dtype"]

def scipy_module(submodule: str):
    """scipy.<submodule>, or MissingDependency naming the extra when SciPy is not installed."""
    return import_optional(f"scipy.{submodule}", extra="scipy",
                           needed_for=f"cupyx.scipy.{submodule}, computed on the host with SciPy")


# Inputs CuPy's special-function ufuncs compute in float32 (their loops are 'f->f' before
# 'd->d'; SciPy's put 'd->d' first, so SciPy gives float64 for float16, int8 and int16).
_SINGLE = {np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16,
                                 np.float32)}


def cupy_ufunc_dtype(hosts, result_dtype) -> np.dtype:
    """The dtype CuPy's ufunc gives: float32 when every array argument fits float32 safely."""
    if np.dtype(result_dtype).kind != "f":
        return np.dtype(result_dtype)
    arrays = [h for h in hosts if isinstance(h, (np.ndarray, np.generic))]
    if arrays and all(np.asarray(h).dtype in _SINGLE for h in arrays):
        return np.dtype(np.float32)
    return np.dtype(np.float64) if arrays else np.dtype(result_dtype)


def _write(out, result):
    """Fill the device array `out` (given as out= or output=) with a host result; return it."""
    out[...] = np.asarray(result).astype(out.dtype, copy=False)
    return out


def on_host(module, name: str, ufunc_dtypes: bool = False):
    """cupyx.scipy.<module>.<name>: SciPy's function of the same name, on device arrays."""
    qualname = f"cupyx.scipy.{module}.{name}"

    def call(*args, **kwargs):
        function = getattr(scipy_module(module), name)
        out = kwargs.pop("out", None)
        output = kwargs.get("output")
        if isinstance(output, ndarray):          # ndimage's output= array: compute, then fill it
            kwargs["output"] = output.dtype
        hosts = download(list(args))
        result = function(*hosts, **{k: download(v) for k, v in kwargs.items()})
        dtype = None
        if ufunc_dtypes and isinstance(result, (np.ndarray, np.generic)):
            dtype = cupy_ufunc_dtype(hosts, np.asarray(result).dtype)
        if out is not None:
            return _write(out, result)
        if isinstance(output, ndarray):
            return _write(output, result)
        return upload(result, dtype)
    call.__name__ = name
    call.__qualname__ = qualname
    call.__doc__ = f"{qualname}: scipy.{module}.{name} computed on the host, results on the device."
    return call
