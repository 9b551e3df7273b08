"""Shared helpers for the kernel corpus (tests/kernels): load a .cu file of this folder once per
option set, fill outputs with a sentinel, and check every expected element
was written."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

import warpsim as cp

KERNEL_DIR = Path(__file__).parent
SEED = 20240607


@lru_cache(maxsize=None)
def load(filename: str, options: tuple = (), name_expressions: tuple = ()) -> cp.RawModule:
    """RawModule for tests/kernels/<filename>, compiled once per option set."""
    module = cp.RawModule(path=str(KERNEL_DIR / filename), options=options,
                          name_expressions=name_expressions or None)
    module.compile()
    return module


def kernel(filename: str, name: str, options: tuple = ()):
    return load(filename, tuple(options)).get_function(name)


def rng(salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


def sentinel_value(dtype):
    """NaN for floats, 0xDEADBEEF (truncated or repeated) for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype.type(np.nan)
    pattern = 0xDEADBEEFDEADBEEF & ((1 << (8 * dtype.itemsize)) - 1)
    return np.array(pattern, dtype=f"u{dtype.itemsize}").view(dtype)[()]


def sentinel(shape, dtype) -> cp.ndarray:
    """A device array full of the sentinel, for outputs the kernel must overwrite."""
    return cp.full(shape, sentinel_value(dtype), dtype=dtype)


def written(host: np.ndarray) -> np.ndarray:
    """Mask of elements that no longer hold the sentinel (bitwise compare)."""
    value = sentinel_value(host.dtype)
    bits = f"u{host.dtype.itemsize}"
    return host.view(bits) != np.array(value, dtype=host.dtype).view(bits)


def assert_all_written(host: np.ndarray, where=None) -> None:
    """Every element (or every element where `where` is true) was written by the kernel."""
    mask = written(host)
    if where is not None:
        mask = mask | ~np.asarray(where, dtype=bool)
    missing = np.flatnonzero(~mask.ravel())
    assert not len(missing), f"{len(missing)} element(s) never written, first at flat index {missing[:8]}"


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place of the float type of `a` (NaN==NaN counts 0)."""
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype)
    ints = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    def ordered(x):
        i = x.view(ints).astype(np.int64)
        return np.where(i < 0, np.iinfo(ints).min - i, i)
    both_nan = np.isnan(a) & np.isnan(b)
    distance = np.abs(ordered(a).astype(object) - ordered(b).astype(object)).astype(np.float64)
    return np.where(both_nan, 0.0, distance)
