"""Float results as the GPU gives them: NaN rules, fused multiply-add, min/max, the SFU's approximations.

Both executors call these on float arrays decoded from raw bits: PTX's
add/fma/min/max/rcp/sin/cos (machine/isa/floating.py) and SASS's FFMA, FMNMX,
MUFU, DADD/DMUL/DFMA (sass/executor/floating.py). The target's differences
are arguments, never an instruction object: which function, whether the SFU
flushes, whether a NaN operand makes a min/max NaN.

NaN results: f32/f16/bf16 invalid results are the canonical NaN
(semantics/floatbits.CANONICAL_NAN); the FP64 unit instead passes a NaN
operand on, quieted, in an order seen on an H200 (not x86's), or 0xfff8...0.
"""

from __future__ import annotations

import numpy as np

from .floatbits import CANONICAL_NAN, F32, F64, flush_subnormal, round_to, round_to_odd, two_sum

DEFAULT_NAN_F64 = np.uint64(0xFFF8000000000000).view(np.float64)
_QUIET_F64 = np.uint64(1 << 51)
_HIGH = np.uint64(0xFFFFFFFF00000000)
_HIGH_WORD_NAN = np.uint64(CANONICAL_NAN["f32"] << 32)
_CANONICAL_BITS = {np.dtype(np.float32): np.uint32(CANONICAL_NAN["f32"]),
                   np.dtype(np.float16): np.uint16(CANONICAL_NAN["f16"])}


def canonical_nan(x):
    """f32/f16 NaNs -> the canonical NaN the GPU writes (NumPy keeps payloads); f64 as it is."""
    bits = _CANONICAL_BITS.get(x.dtype)
    if bits is None:
        return x
    nan = np.isnan(x)
    if not nan.any():
        return x
    return np.where(nan, np.asarray(bits).view(x.dtype), x)


def quiet_f64(x):
    """An f64 NaN with its quiet bit set (what the FP64 unit passes on)."""
    return (np.asarray(x, dtype=np.float64).view(np.uint64) | _QUIET_F64).view(np.float64)


def operand_nan(result, a, b):
    """f64 add/mul/min/max (DADD/DMUL/DMNMX) pass on a NaN operand quieted, the second one when
    both are NaN (seen on an H200; x86 would take the first); 0xfff8...0 if neither is NaN."""
    nan = np.isnan(result)
    if not nan.any():
        return result
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    chosen = np.select([np.isnan(b), np.isnan(a)], [b, a], DEFAULT_NAN_F64)
    return np.where(nan, quiet_f64(chosen), result)


def fma_operand_nan(result, a, b, c):
    """f64 fma (DFMA) passes on a NaN operand quieted; seen on an H200: b wins over c,
    c over a (x86, and so NumPy, prefer a). Invalid operations: 0xfff8...0."""
    nan = np.isnan(result)
    if not nan.any():
        return result
    a, b, c = np.broadcast_arrays(a, b, c)
    chosen = np.select([np.isnan(b), np.isnan(c), np.isnan(a)], [b, c, a], DEFAULT_NAN_F64)
    return np.where(nan, quiet_f64(chosen), result)


def fma_nearest(a, b, c):
    """a*b + c rounded once to nearest in the operands' (f32 or f16) type: the product is exact
    in f64, TwoSum gives the exact sum as a pair, rounding it to odd in f64 and casting rounds
    once (a naive a*b+c in f64 would round twice). NaNs keep NumPy's payloads."""
    dtype = np.result_type(a, b, c)
    product = np.multiply(a, b, dtype=np.float64)
    total, err = two_sum(product, np.asarray(c, dtype=np.float64))
    return round_to_odd(total, err).astype(dtype)


def ieee_min_max(x, y, take_min, nan_wins: bool = False):
    """IEEE minNum/maxNum per lane (take_min: bool or bool array): a NaN loses to a number, two
    NaNs give NaN, -0 counts as less than +0. nan_wins (PTX's .NaN): any NaN operand gives NaN."""
    # not np.fmin/fmax: they return NaN for a signalling NaN operand, but only
    # in NumPy's scalar loop (array-length dependent); the GPU returns the number
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(invalid="ignore"):
        chosen = np.where(take_min, np.where(x < y, x, y), np.where(x > y, x, y))
    chosen = np.where(np.isnan(x), y, np.where(np.isnan(y), x, chosen))
    both_zero = (x == 0) & (y == 0)
    if both_zero.any():
        negative = np.where(take_min, np.signbit(x) | np.signbit(y), np.signbit(x) & np.signbit(y))
        zero = np.where(negative, -x.dtype.type(0), x.dtype.type(0))
        chosen = np.where(both_zero, zero, chosen)
    if nan_wins:
        chosen = np.where(np.isnan(x) | np.isnan(y), x.dtype.type(np.nan), chosen)
    return chosen


def approx_reciprocal(x, flush: bool):
    """rcp.approx / MUFU.RCP of f32 values held in float64: 1/x in f64 rounded to f32 (the SFU
    is not correctly rounded: PTX allows 1 ulp, an H200 differs from this in the last bit for
    about 1 input in 8). `flush`: MUFU.RCP itself, which flushes subnormal inputs and results;
    rcp.approx.f32 without .ftz scales around that and covers the full range."""
    if flush:
        x = flush_subnormal(x, F32)
    recip = (1.0 / x).astype(np.float32).astype(np.float64)
    return flush_subnormal(recip, F32) if flush else recip


def high_word_sfu(fn, x):
    """MUFU.RCP64H / MUFU.RSQ64H on f64 values: the SFU reads only the operand's high word and
    writes only the result's high word (low word 0). Modelled as the truncated high word of the
    f64 function of the truncated operand; on an H200 that matches about 95% of inputs, the
    rest differ by one unit in the high word."""
    x = flush_subnormal((x.view(np.uint64) & _HIGH).view(np.float64), F64)
    y = flush_subnormal(fn(x), F64)
    bits = np.where(np.isnan(y), _HIGH_WORD_NAN, y.view(np.uint64) & _HIGH)
    return bits.view(np.float64)


def sfu_revolutions(fn):
    """MUFU.SIN/COS of an angle t in revolutions: the SFU takes t as fixed point truncated to
    2^-25 of a revolution (so sin of |x| < 1.7e-7 is 0 on the GPU) and evaluates fn(2 pi t) on
    its fraction. Within 2^-21.5 of an H200 for all inputs, huge ones included."""
    def evaluate(t):
        t = np.trunc(t * 2.0 ** 25) * 2.0 ** -25
        fraction = t - np.round(t)
        fraction = np.where(fraction == 0, np.copysign(0.0, t), fraction)   # sin(-n) = -0
        return fn(2 * np.pi * fraction)
    return evaluate


INV_2PI_F32 = float(np.float32(0.15915494))          # 0x3e22f983


def to_revolutions(x):
    """The FMUL.RZ by f32(1/(2 pi)) ptxas puts before MUFU.SIN/COS (subnormal inputs flushed)."""
    return round_to(flush_subnormal(x, F32) * INV_2PI_F32, F32, "rz")
