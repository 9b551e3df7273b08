"""Shared helpers for the kernel corpus (tests/kernels): load a .cu file of this folder once per
option set, fill outputs with a sentinel, and check every expected element
was written.

The tests import `cp` from here: warpsim, or CuPy on a machine with a GPU when
WARPSIM_CORPUS_BACKEND=cupy, so the same tests and NumPy references can be
checked against real hardware. With WARPSIM_CORPUS_DUMP=<folder> every
launch made through `kernel()` also saves its array arguments, after the
launch, as <folder>/<test>-<n>.npz, so two backends' outputs can be diffed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

if os.environ.get("WARPSIM_CORPUS_BACKEND") == "cupy":
    import cupy as cp
else:
    import warpsim as cp

KERNEL_DIR = Path(__file__).parent
SEED = 20240607


@lru_cache(maxsize=None)
def load(filename: str, options: tuple = (), name_expressions: tuple = ()):
    """RawModule for tests/kernels/<filename>, compiled once per option set."""
    path = KERNEL_DIR / filename
    if cp.__name__ == "cupy":
        return _load_on_gpu(path, options, name_expressions)
    module = _without_ftz(path, options, name_expressions)
    if os.environ.get("WARPSIM_CORPUS_EXPORT_PTX"):
        folder = Path(os.environ["WARPSIM_CORPUS_EXPORT_PTX"])
        folder.mkdir(parents=True, exist_ok=True)
        stem = _ptx_stem(filename, options, name_expressions)
        (folder / f"{stem}.ptx").write_text(module.ptx)
        (folder / f"{stem}.json").write_text(json.dumps(module.lowered_names))
    return module


def _without_ftz(path: Path, options: tuple, name_expressions: tuple):
    """The corpus checks the machine's IEEE results (subnormals kept), so it compiles as NVRTC does
    by default, without the -ftz=true that warpsim's RawModule appends as CuPy does."""
    from warpsim.frontends.nvrtc import compile_cuda
    result = compile_cuda(path.read_text(), tuple(options) + (f"-I{path.parent}",), name=str(path),
                          name_expressions=name_expressions)
    module = cp.RawModule(ptx=result.ptx)
    module.code, module._lowered_names = path.read_text(), dict(result.lowered_names)
    module.source_name = str(path)
    return module


# On a GPU, WARPSIM_CORPUS_PTX=<folder> runs the very PTX warpsim runs (written
# here with WARPSIM_CORPUS_EXPORT_PTX=<folder>). Without it CuPy compiles the
# source itself, and appends -ftz=true, which flushes subnormals.

def _ptx_stem(filename: str, options: tuple, name_expressions: tuple) -> str:
    digest = hashlib.sha1(repr((options, name_expressions)).encode()).hexdigest()[:10]
    return f"{Path(filename).stem}-{digest}"


class _GpuModule:
    """A CuPy module from exported PTX, kernels found by name or name expression."""

    def __init__(self, ptx_path: Path, lowered: dict):
        text = re.sub(r"^\.version \S+", ".version 9.0", ptx_path.read_text(), count=1, flags=re.M)
        local = Path("/tmp") / ptx_path.name               # the driver's PTX ISA is 9.0
        local.write_text(text)
        self.module, self.lowered = cp.RawModule(path=str(local)), lowered

    def get_function(self, name: str):
        return self.module.get_function(self.lowered.get(name, name))


def _load_on_gpu(path: Path, options: tuple, name_expressions: tuple):
    exported = os.environ.get("WARPSIM_CORPUS_PTX")
    if exported:
        stem = Path(exported) / _ptx_stem(path.name, options, name_expressions)
        return _GpuModule(stem.with_suffix(".ptx"), json.loads(stem.with_suffix(".json").read_text()))
    module = cp.RawModule(code=path.read_text(), options=options,    # CuPy's path= loads cubins
                          name_expressions=name_expressions or None)
    module.compile()
    return module


def kernel(filename: str, name: str, options: tuple = ()):
    function = load(filename, tuple(options)).get_function(name)
    return _Dumped(function) if os.environ.get("WARPSIM_CORPUS_DUMP") else function


class _Dumped:
    """A kernel that saves its array arguments after each launch (see the module docstring)."""

    launches: dict = {}

    def __init__(self, function):
        self.function = function

    def __call__(self, grid, block, args, **kwargs):
        self.function(grid, block, args, **kwargs)
        folder = Path(os.environ["WARPSIM_CORPUS_DUMP"])
        folder.mkdir(parents=True, exist_ok=True)
        test = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split(" ")[0]
        label = "".join(c if c.isalnum() or c in "-_." else "_" for c in test.split("::", 1)[-1])
        count = _Dumped.launches[label] = _Dumped.launches.get(label, 0) + 1
        arrays = {f"arg{k}": a.get() for k, a in enumerate(args) if hasattr(a, "get") and hasattr(a, "shape")}
        np.savez(folder / f"{label}-{count}.npz", **arrays)


def rng(salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


# A quiet NaN with a payload no instruction produces (canonical NaNs are all ones).
FLOAT_SENTINEL_BITS = {2: 0x7E5A, 4: 0x7FC0DEAD, 8: 0x7FF8DEADBEEFDEAD}


def sentinel_value(dtype):
    """A NaN with a recognisable payload for floats, 0xDEADBEEF (cut or repeated) for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        pattern = FLOAT_SENTINEL_BITS[dtype.itemsize]
    else:
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


def round_once(exact: Fraction, dtype):
    """The dtype value nearest to an exact rational (ties to even): one rounding, never two."""
    guess = np.array(float(exact)).astype(dtype)          # within one ulp of the answer
    if not np.isfinite(guess):
        return guess
    candidates = [guess, np.nextafter(guess, dtype(-np.inf)), np.nextafter(guess, dtype(np.inf))]
    candidates = [v for v in candidates if np.isfinite(v)]
    bits = {4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    return min(candidates, key=lambda v: (abs(Fraction(float(v)) - exact), int(np.array(v).view(bits)) & 1))


def exact_fma(a, b, c, dtype):
    """a*b+c rounded once to dtype, through exact rationals."""
    return np.array([round_once(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r)), dtype)
                     for p, q, r in zip(a, b, c)], dtype=dtype)
