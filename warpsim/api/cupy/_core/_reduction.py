"""`cupy._core.create_reduction_func`: a reduction over typed signatures ('b->b', 'f->f'), as CuPy's
own sum-like functions are built, on top of warpsim's ReductionKernel.

The first signature whose input type the argument's dtype casts to safely is
used; its input is `in0`, its output `out0`, and routine is
(map_expr, reduce_expr, post_map_expr, reduce_type) as in CuPy.
"""

from __future__ import annotations

import numpy as np

from ...arrays import _wrap_foreign, ndarray
from ...reduction import ReductionKernel


def _signature(op: str) -> tuple[np.dtype, np.dtype]:
    source, _, target = op.partition("->")
    return np.dtype(source), np.dtype(target)


class ReductionFunction:
    """f(a, axis=None, dtype=None, out=None, keepdims=False): one ReductionKernel per signature."""

    def __init__(self, name: str, ops, routine, identity=None, preamble: str = ""):
        self.name, self.preamble = name, preamble
        self.ops = [_signature(op) for op in ops]
        self.map_expr, self.reduce_expr, self.post_map_expr, self.reduce_type = routine
        self.identity = identity
        self._kernels: dict = {}

    @property
    def _cached_codes(self) -> dict:
        """The compiled kernels, one per (signature, types, dimensions), as CuPy's cache of them."""
        codes = {}
        for kernel in self._kernels.values():
            codes.update(kernel._cached_codes)
        return codes

    def __call__(self, a, axis=None, dtype=None, out=None, keepdims: bool = False):
        if hasattr(a, "__cupy_get_ndarray__"):
            a = a.__cupy_get_ndarray__()
        elif not isinstance(a, ndarray) and hasattr(a, "__cuda_array_interface__"):
            a = _wrap_foreign(a)
        if not isinstance(a, ndarray):
            raise TypeError(f"Argument 'a' has incorrect type (expected cupy.ndarray, got "
                            f"{type(a).__module__}.{type(a).__name__})")
        source, target = self._pick(a.dtype if dtype is None else np.dtype(dtype))
        if a.dtype != source:
            a = a.astype(source)
        kernel = self._kernel(source, target)
        return kernel(a, out=out, axis=axis, keepdims=keepdims)

    def _pick(self, dtype: np.dtype):
        for source, target in self.ops:
            if np.can_cast(dtype, source):
                return source, target
        raise TypeError(f"Wrong type ({dtype}) of arguments for {self.name}")

    def _kernel(self, source: np.dtype, target: np.dtype) -> ReductionKernel:
        key = (source, target)
        if key not in self._kernels:
            identity = None if self.identity is None else str(self.identity)
            self._kernels[key] = ReductionKernel(
                f"{source.name} in0", f"{target.name} out0", self.map_expr, self.reduce_expr,
                self.post_map_expr, identity, self.name,
                reduce_type=self.reduce_type, preamble=self.preamble)
        return self._kernels[key]


def create_reduction_func(name: str, ops, routine=None, identity=None, preamble: str = "",
                          sort_reduce_axis: bool = True) -> ReductionFunction:
    return ReductionFunction(name, ops, routine, identity, preamble)
