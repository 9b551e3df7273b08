"""Conversions as both ISAs do them: PTX's cvt, SASS's F2I, F2F, F2FP, FRND, I2F, I2I and I2IP.

Integer to integer (cvt, I2I): wrap, or clamp with .sat.

Float to integer (cvt.rXi.{s,u}N.fM, F2I): round by the mode, then saturate
to the destination's range. NaN gives 0 as PTX says, except where an H200
gives the top bit alone (0x80..0 of the destination's width): from f64, and
into 64-bit integers; the caller says which (`nan_top_bit`), knowing its
source type.

To a float (cvt to f16/bf16/tf32/f32/f64/fp8, F2F, F2FP, I2F): rounded once
by the mode, then .ftz/.sat/.relu/.satfinite, on plain format names (an
integer source is "int", its values of their own NumPy dtype); NaN results
are canonical except where an H200 keeps payloads (the NaN encodings below).

Packing (cvt.pack.sat, I2IP): two s32 clamped to a narrow integer type.
"""

from __future__ import annotations

import numpy as np

from .floatbits import F32, FORMATS, bf16_to_f32, decode, encode, flush_subnormal, round_integers, round_to

INT_ROUNDING = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
FLOAT_ROUNDING = frozenset({"rn", "rz", "rm", "rp", "rna"})
# the register dtype of each float format's bits, and its width
STORAGE = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "tf32": np.uint32, "f64": np.uint64}
WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "f64": 64}


def float_to_int(x, rounding: str, dtype, nan_top_bit: bool) -> np.ndarray:
    """float64 values -> integers of `dtype` rounded by `rounding` (a key of INT_ROUNDING), saturated."""
    info = np.iinfo(dtype)
    r = INT_ROUNDING[rounding](x)
    over = r >= float(info.max) + 1.0          # max + 1 is a power of two: exact in f64
    under = r < float(info.min)
    nan = np.isnan(r)
    safe = np.where(over | under | nan, 0.0, r)
    wide = safe.astype(np.int64 if info.min < 0 else np.uint64)
    wide = np.where(over, wide.dtype.type(info.max), np.where(under, wide.dtype.type(info.min), wide))
    result = wide.astype(info.dtype)
    if nan_top_bit and nan.any():
        top_bit = np.array(1 << (info.bits - 1), dtype=np.uint64).astype(np.dtype(f"uint{info.bits}"))
        result = np.where(nan, top_bit.view(info.dtype), result)
    return result


def int_to_int(values, dtype, saturate: bool) -> np.ndarray:
    """Integers (of their own dtype) to `dtype`: wrapped (truncated, or extended by the source's
    signedness), or clamped to the range both types share with `saturate` (cvt.sat, I2I.SAT)."""
    values = np.asarray(values)
    if saturate:
        source_range, target_range = np.iinfo(values.dtype), np.iinfo(dtype)
        low = max(source_range.min, target_range.min)
        high = min(source_range.max, target_range.max)
        values = np.clip(values, values.dtype.type(low), values.dtype.type(high))
    return values.astype(dtype)


# ------------------------------------------------------------ to a float type
# `flags` are the rule names of PTX's cvt: one rounding (rn rz rm rp rna, or rni rzi rmi rpi to
# round a float to an integral value), and ftz, sat, relu, satfinite.

def _float_mode(flags) -> str:
    found = flags & FLOAT_ROUNDING
    return next(iter(found)) if found else "rn"


def _finish_float(flags, rounded, dst: str):
    """Apply .ftz/.sat/.relu/.satfinite to exactly rounded values and encode."""
    fmt = FORMATS[dst]
    if "ftz" in flags and dst == "f32":
        rounded = flush_subnormal(rounded, F32)
    if "sat" in flags:
        rounded = np.where(np.isnan(rounded), 0.0, np.clip(rounded, 0.0, 1.0)) + 0.0
    if "relu" in flags:
        rounded = np.where(rounded < 0, 0.0, rounded) + 0.0
    if "satfinite" in flags:
        rounded = np.clip(rounded, -fmt.max_finite, fmt.max_finite)   # NaN stays NaN
    return encode(rounded, dst)


def convert_to_float(values, dst: str, src: str, flags=frozenset()):
    """`values` of float format `src` (or "int": integers of their own dtype) converted to float
    format `dst` under `flags` ('rz', 'relu', ...), rounded once: PTX's cvt and SASS's F2FP and F2F."""
    flags = frozenset(flags)
    if flags <= {"rn"}:
        fast = _nearest_by_numpy(values, dst, src)
        if fast is not None:
            return fast
    fmt = FORMATS[dst]
    if src == "int":
        return _finish_float(flags, round_integers(np.asarray(values), fmt, _float_mode(flags)), dst)
    if dst == "tf32" and "rna" in flags:
        return _tf32_rna(flags, values)
    if (dst, src) == ("f32", "bf16") and not flags:
        return bf16_to_f32(values)                 # a shift: NaN payloads kept as they are
    x = read_float(flags, values, src, dst)
    integer_rounding = flags & set(INT_ROUNDING)
    if integer_rounding:                           # cvt.rni.f32.f32 and kin: round to integral
        x = INT_ROUNDING[next(iter(integer_rounding))](x)
        out = _finish_float(flags, round_to(x, fmt, "rn"), dst)
    else:
        out = _finish_float(flags, round_to(x, fmt, _float_mode(flags)), dst)
    return _nan_as_gpu(out, values, dst, src, ftz="ftz" in flags)


def _nearest_by_numpy(values, dst: str, src: str):
    """The common round-to-nearest conversions NumPy's casts already do with
    one correct rounding (C casts from <= 32-bit ints, f64 -> f32), and
    f32 -> bf16 on the bits; None for everything else."""
    values = np.asarray(values)
    if src == "int" and dst in ("f32", "f64"):
        if values.dtype.itemsize <= 4:
            return values.astype(np.float32 if dst == "f32" else np.float64)
        return _wide_integers_nearest(values, dst)
    if (dst, src) == ("f32", "f64"):
        out = values.astype(np.float32)
        return _nan_as_gpu(out, values, dst, src, ftz=False) if np.isnan(out).any() else out
    if (dst, src) == ("bf16", "f32"):
        bits = values.view(np.uint32)
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
        return np.where(np.isnan(values), np.uint32(0x7FFF), rounded).astype(np.uint16)
    return None


EXACT_IN_F64 = 2 ** 53      # every integer of at most this magnitude is a float64


def _wide_integers_nearest(values, dst: str):
    """64-bit integers to f32 or f64, nearest-even. Those within +-2^53 are exact in float64, so
    NumPy's cast through float64 rounds them once; the others (rare: Numba's int64 indices and
    counters are small) go through the exact rule."""
    if values.ndim == 0 or values.dtype.kind not in "iu":
        return None
    if values.dtype.kind == "i":
        fits = values.view(np.uint64) + np.uint64(EXACT_IN_F64) <= np.uint64(2 * EXACT_IN_F64)
    else:
        fits = values <= np.uint64(EXACT_IN_F64)
    wide = values.astype(np.float64)
    if not fits.all():
        wide[~fits] = round_integers(values[~fits], FORMATS[dst], "rn")
    return wide.astype(np.float32) if dst == "f32" else wide


def read_float(flags, values, src: str, dst: str = ""):
    """A float source as float64, subnormal f32 flushed under .ftz (which an
    H200 ignores when converting to f16, but not to bf16)."""
    x = decode(values, src)
    if "ftz" in flags and src == "f32" and dst != "f16":
        x = flush_subnormal(x, F32)
    return x


# ------------------------------------------------------------- NaN encodings
# encode() writes the canonical NaN (0x7fffffff, 0x7fff); these are the
# conversions where an H200 writes something else.

_MANTISSA_BITS = {"f16": 10, "bf16": 7, "f32": 23, "tf32": 23, "f64": 52}


def _nan_as_gpu(out, values, dst: str, src: str, ftz: bool):
    """Replace the canonical NaNs in `out` where the GPU writes other bits."""
    if dst == "f64":
        if src == "f32" and ftz:                   # the f32 canonical NaN, widened
            nan_bits = np.uint64(0x7FFFFFFFE0000000)
        else:                                      # quieted, payload kept
            nan_bits = _widened_nan(values, src)
    elif src == "f64" and dst in ("f32", "f16", "bf16"):
        nan_bits = _narrowed_nan(values, dst)      # quieted, sign and top payload bits kept
    elif dst == "tf32":
        nan_bits = np.uint32(0x7FFFE000)
    else:
        return out
    nan = np.isnan(decode(out, dst))
    if not nan.any():
        return out
    bits = out.view(STORAGE[dst]) if out.dtype.kind == "f" else out
    return np.where(nan, np.asarray(nan_bits).astype(bits.dtype), bits).view(out.dtype)


def _widened_nan(values, src: str):
    """Into f64: quieted, sign and payload kept (F2F.F64 from f32/f16/bf16)."""
    bits = np.asarray(values).view(STORAGE[src]).astype(np.uint64) if src != "bf16" \
        else np.asarray(values).astype(np.uint64)
    width, mantissa = WIDTH[src], _MANTISSA_BITS[src]
    sign = (bits >> np.uint64(width - 1)) << np.uint64(63)
    payload = (bits & np.uint64((1 << mantissa) - 1)) << np.uint64(52 - mantissa)
    return sign | np.uint64(0x7FF8000000000000) | payload


def _narrowed_nan(values, dst: str):
    """From f64: quieted, sign and the top of the payload kept."""
    bits = np.asarray(values, dtype=np.float64).view(np.uint64)
    width, mantissa = WIDTH[dst], _MANTISSA_BITS[dst]
    sign = (bits >> np.uint64(63)) << np.uint64(width - 1)
    exponent = ((1 << (width - 1)) - 1) ^ ((1 << mantissa) - 1)
    quiet = 1 << (mantissa - 1)
    payload = (bits & np.uint64((1 << 52) - 1)) >> np.uint64(52 - mantissa)
    return sign | np.uint64(exponent | quiet) | payload


def _tf32_rna(flags, values):
    """cvt.rna.tf32.f32 works on the bits as an integer, as on an H200: add half
    an ulp to the magnitude (NaNs: nothing) and clear the low 13 bits, so NaN
    payloads survive truncated. .satfinite then steps anything at or above
    infinity down one ulp (which leaves NaNs NaN)."""
    bits = np.asarray(values).view(np.uint32)
    sign = bits & np.uint32(0x80000000)
    magnitude = bits & np.uint32(0x7FFFFFFF)
    nan = magnitude > np.uint32(0x7F800000)
    magnitude = np.where(nan, magnitude, magnitude + np.uint32(0x1000)) & np.uint32(0x7FFFE000)
    if "satfinite" in flags:
        too_big = magnitude >= np.uint32(0x7F800000)
        magnitude = np.where(too_big, magnitude - np.uint32(0x2000), magnitude)
    return sign | magnitude


# ------------------------------------------------- cvt.pack.sat (integers)

# convertType -> (bits, signed); PTX's parser reads .u4/.s4/.u2/.s2 as modifiers, not types.
PACK_TARGETS = {"u16": (16, False), "s16": (16, True), "u8": (8, False), "s8": (8, True),
                "u4": (4, False), "s4": (4, True), "u2": (2, False), "s2": (2, True)}


def pack_saturated(target: str, a, b, c=None) -> np.ndarray:
    """cvt.pack.sat.<target>: c's low bits above clamp(a) above clamp(b), b in the lowest bits
    (the PTX ISA's pseudocode; every form matched on an H200). Also SASS I2IP's meaning."""
    bits, signed = PACK_TARGETS[target]
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    field = (1 << bits) - 1
    a, b = (np.clip(np.asarray(v).astype(np.int32).astype(np.int64), low, high) & field for v in (a, b))
    word = (a << bits) | b
    if c is not None:
        word = word | (np.asarray(c).astype(np.int64) << (2 * bits))
    return (word & 0xFFFFFFFF).astype(np.uint32)
