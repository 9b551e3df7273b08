"""`cupyx` under `warpsim run`: CuPy's extras as far as warpsim provides them.

`cupyx.scipy.special` and `cupyx.scipy.ndimage` are SciPy's functions computed
on the host (they need SciPy: `pip install warpsim[scipy]`); the pinned
memory helpers give NumPy arrays (pinned memory is host memory on warpsim);
`errstate`/`seterr`/`geterr` keep CuPy's settings (warpsim's cupy.linalg
raises LinAlgError whatever `linalg` says). `cupyx.jit`, CuPy's Python to
CUDA compiler, is not provided: its kernels would need CuPy's own compiler.
"""

from __future__ import annotations

import contextlib

import numpy as _numpy

from .. import host_library as _host_library
from ..cupy._missing import missing_attribute

__all__ = ["scipy", "errstate", "seterr", "geterr", "empty_pinned", "zeros_pinned",
           "empty_like_pinned", "zeros_like_pinned", "rsqrt"]

# Names CuPy's cupyx has that warpsim leaves out on purpose, and why.
NOT_PROVIDED = {
    "jit": "cupyx.jit compiles Python into CUDA with CuPy's own compiler; write the kernel as "
           "a RawKernel or ElementwiseKernel, or use cupy.fuse",
}

_settings = {"divide": None, "over": None, "under": None, "invalid": None, "linalg": "ignore"}


def geterr() -> dict:
    return dict(_settings)


def seterr(*, divide=None, over=None, under=None, invalid=None, linalg=None) -> dict:
    """Keep CuPy's error settings (accepted for compatibility; see the module docstring)."""
    old = geterr()
    for name, value in (("divide", divide), ("over", over), ("under", under),
                        ("invalid", invalid), ("linalg", linalg)):
        if value is not None:
            _settings[name] = value
    return old


@contextlib.contextmanager
def errstate(*, divide=None, over=None, under=None, invalid=None, linalg=None):
    old = seterr(divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        _settings.update(old)


def empty_pinned(shape, dtype=float, order="C"):
    """Pinned host memory is host memory on warpsim: a NumPy array."""
    return _numpy.empty(shape, dtype, order)


def zeros_pinned(shape, dtype=float, order="C"):
    return _numpy.zeros(shape, dtype, order)


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    return _numpy.empty(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    return _numpy.zeros(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def rsqrt(x, out=None):
    """1 / sqrt(x), computed on the host."""
    host = _numpy.asarray(_host_library.download(x))
    result = _host_library.upload(1 / _numpy.sqrt(host))
    if out is not None:
        out[...] = result.get()
        return out
    return result


def __getattr__(name: str):
    if name == "scipy":
        import importlib
        return importlib.import_module(".scipy", __name__)
    error = missing_attribute("cupyx", name)
    if name in NOT_PROVIDED:
        error.args = (f"{error.args[0]} ({NOT_PROVIDED[name]})",)
    raise error
