"""`cupyx.scipy` under `warpsim run`: `special` and `ndimage`, SciPy's functions on the host.

They need SciPy (`pip install warpsim[scipy]`); without it, importing them
raises MissingDependency (an ImportError) naming
that extra. Other cupyx.scipy modules (linalg,
sparse, signal, fft, ...) are not provided.
"""

from __future__ import annotations

from ...cupy._missing import missing_attribute

__all__ = ["special", "ndimage", "get_array_module"]


def get_array_module(*args):
    """cupyx.scipy for device arrays, else SciPy (as CuPy's)."""
    import sys
    from ...arrays import ndarray
    if any(isinstance(arg, ndarray) for arg in args):
        return sys.modules[__name__]
    import scipy
    return scipy


def __getattr__(name: str):
    if name in ("special", "ndimage"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise missing_attribute("cupyx.scipy", name)
