"""a*b + c of float64 rounded once to nearest, by the processor's fused multiply-add.

NumPy has no fma. semantics/floatbits.fma_rounded computes one exactly from NumPy's arithmetic
(TwoProd, TwoSum, rounding to odd: about twenty passes over the lanes). For round to nearest in
f64, the form every double-precision library function (pow, exp, log, division's refinement) is
made of, LLVM's llvm.fma.f64 gives the same single rounding in one pass: the processor's FMA
instruction, or libm's correctly rounded fma where there is none. This module registers that
with floatbits (NEAREST_FMA64: semantics/ imports no Numba), so both executors' NumPy steps use
it; Numba compiles the loop once per machine and keeps it in its disk cache. The compiled tiers
call the same intrinsic (`fused_f64`)."""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ...semantics import floatbits


@intrinsic
def fused_f64(typingctx, a, b, c):
    """a*b + c of float64 rounded once: LLVM's fma intrinsic."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@njit(cache=True, nogil=True)
def _fused_lanes(a, b, c, out):
    for k in range(out.shape[0]):
        out[k] = fused_f64(a[k], b[k], c[k])


def fma_nearest_f64(a, b, c) -> np.ndarray:
    """a*b + c rounded once to nearest, elementwise over float64 arrays of one shape (IEEE: NaN
    payloads are the processor's; the callers apply the GPU's NaN rule after)."""
    shape = np.shape(a)
    flat = [np.ascontiguousarray(x, dtype=np.float64).reshape(-1) for x in (a, b, c)]
    out = np.empty(flat[0].shape[0], dtype=np.float64)
    _fused_lanes(*flat, out)
    return out.reshape(shape)


floatbits.NEAREST_FMA64.append(fma_nearest_f64)
