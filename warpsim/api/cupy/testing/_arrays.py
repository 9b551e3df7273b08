"""Arrays CuPy's tests build: an arange of a shape, and seeded random values, of any dtype."""

from __future__ import annotations

import numpy as np

from ._host import cupy_module


def _module(xp):
    return cupy_module() if xp is None else xp


def _finish(values: np.ndarray, xp, dtype, order: str):
    values = np.asarray(values).astype(dtype)
    values = np.asfortranarray(values) if order in ("F", "f") else values
    return values if xp is np else _module(xp).array(values, order="C" if order not in ("F", "f") else "F")


def shaped_arange(shape, xp=None, dtype=np.float32, order="C", device=None):
    """1, 2, 3, ... in `shape` (bool: alternating; complex: k + k*1j)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    values = np.arange(1, size + 1).reshape(shape)
    if dtype == np.bool_:
        values = values % 2 == 0
    elif dtype.kind == "c":
        values = values + values * 1j
    return _finish(values, xp, dtype, order)


def shaped_reverse_arange(shape, xp=None, dtype=np.float32):
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    values = np.arange(size, 0, -1).reshape(shape)
    if dtype == np.bool_:
        values = values % 2 == 0
    return _finish(values, xp, dtype, "C")


def shaped_random(shape, xp=None, dtype=np.float32, scale=10, seed=0, order="C"):
    """Random values in [0, scale) from a seeded generator (bool: 0 or 1; complex: both parts)."""
    dtype = np.dtype(dtype)
    rng = np.random.RandomState(seed)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if dtype == np.bool_:
        values = rng.randint(2, size=shape)
    elif dtype.kind == "c":
        values = rng.rand(*shape) * scale + 1j * rng.rand(*shape) * scale
    else:
        values = rng.rand(*shape) * scale
    return _finish(values, xp, dtype, order)
