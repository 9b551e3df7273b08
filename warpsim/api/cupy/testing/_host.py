"""Device arrays (and lists of them) as NumPy arrays, for comparisons."""

from __future__ import annotations

import sys

import numpy as np

from ...arrays import ndarray


def to_host(value):
    if isinstance(value, ndarray):
        return value.get()
    if isinstance(value, (list, tuple)) and any(isinstance(v, ndarray) for v in value):
        return type(value)(to_host(v) for v in value)
    return value


def cupy_module():
    """The `cupy` these helpers stand in for (warpsim.api.cupy, which `import cupy` gives); a
    parent package is imported before its subpackages, so it is always there."""
    return sys.modules[__name__.rsplit(".", 2)[0]]


__all__ = ["to_host", "cupy_module", "np"]
