"""Exact floating-point rounding for PTX, vectorized over lanes.

NumPy only rounds to nearest-even, and only to float16/32/64. PTX also needs
.rz/.rm/.rp (and .rna for tf32), bf16/tf32/fp8 targets, and one single rounding
of results wider than a float64 (fma, f32 ops with directed rounding). So this
module works on the integer significand:

* an operation is first computed as a float64 `value` that is the exact result
  rounded to nearest, plus the exact residual `err` (exact = value + err), from
  the error-free transformations TwoSum / TwoProd (Veltkamp splitting);
* `round_to` then rounds value+err to any format and mode exactly: for f64
  targets by stepping one ulp with nextafter; for f32/f16 by rounding to odd
  in f64 and letting NumPy's cast round once more (exact in every mode); for
  the others by rounding the significand as an integer, with the residual's
  sign as a sticky bit.

Lanes a fast path cannot do exactly (f64 results near overflow or underflow)
fall back, lane by lane, to fractions.Fraction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np


@dataclass(frozen=True)
class FloatFormat:
    """A binary float format: significand bits (with the hidden one), smallest
    normal exponent, largest finite value, whether it has infinities."""
    name: str
    precision: int
    emin: int
    max_finite: float
    has_inf: bool = True

    @property
    def min_normal(self) -> float:
        return math.ldexp(1.0, self.emin)

    # The bit layout (sign, exponent, fraction) of the format's own width; tf32 sits in the
    # top 19 bits of an f32 register, so its masks are not a register's.
    @property
    def exponent_bits(self) -> int:
        return (3 - 2 * self.emin).bit_length()        # a bias of 1 - emin, all ones kept for inf/NaN

    @property
    def width(self) -> int:
        return 1 + self.exponent_bits + self.precision - 1

    @property
    def sign_mask(self) -> int:
        return 1 << (self.width - 1)

    @property
    def fraction_mask(self) -> int:
        return (1 << (self.precision - 1)) - 1

    @property
    def exponent_mask(self) -> int:
        return (self.sign_mask - 1) ^ self.fraction_mask


F64 = FloatFormat("f64", 53, -1022, float(np.finfo(np.float64).max))
F32 = FloatFormat("f32", 24, -126, float(np.finfo(np.float32).max))
F16 = FloatFormat("f16", 11, -14, 65504.0)
BF16 = FloatFormat("bf16", 8, -126, math.ldexp(2 - 2 ** -7, 127))
TF32 = FloatFormat("tf32", 11, -126, math.ldexp(2 - 2 ** -10, 127))
E4M3 = FloatFormat("e4m3", 4, -6, 448.0, has_inf=False)
E5M2 = FloatFormat("e5m2", 3, -14, 57344.0)

FORMATS = {f.name: f for f in (F64, F32, F16, BF16, TF32, E4M3, E5M2)}

# The NaN NVIDIA GPUs write for invalid results (f64 has none: it passes
# operands' NaNs on, see floating.py; encode() leaves f64 NaNs alone).
CANONICAL_NAN = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "tf32": 0x7FFFFFFF,
                 "e4m3": 0x7F, "e5m2": 0x7F}

_U64 = np.uint64
_ONE = _U64(1)
_F64_FRAC = _U64((1 << 52) - 1)
_F64_HIDDEN = _U64(1 << 52)
_INF = np.inf


# ----------------------------------------------------------- decode / encode

def bf16_to_f32(bits) -> np.ndarray:
    """bf16 bits -> float32 (exact: bf16 is the top half of an f32)."""
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def decode(values, type_name: str) -> np.ndarray:
    """Typed register values of a float type -> float64, exactly."""
    values = np.asarray(values)
    if type_name in ("f16", "f32", "f64"):
        return values.astype(np.float64)
    if type_name == "bf16":
        return bf16_to_f32(values).astype(np.float64)
    if type_name == "tf32":
        return values.astype(np.uint32).view(np.float32).astype(np.float64)
    if type_name in ("e4m3", "e5m2"):
        return _decode_fp8(values, FORMATS[type_name])
    raise KeyError(f"no float decoding for {type_name}")


def encode(x, type_name: str) -> np.ndarray:
    """float64 values exactly representable in `type_name` (or inf/NaN) -> its
    register dtype; NaNs become the format's canonical NaN."""
    x = np.asarray(x, dtype=np.float64)
    if type_name == "f64":
        return x
    nan = np.isnan(x)
    if type_name in ("f32", "f16"):
        out = x.astype(np.float32 if type_name == "f32" else np.float16)
        if nan.any():
            bits_dtype = np.uint32 if type_name == "f32" else np.uint16
            out = np.where(nan, np.array(CANONICAL_NAN[type_name], bits_dtype).view(out.dtype), out)
        return out
    if type_name in ("bf16", "tf32"):
        bits = x.astype(np.float32).view(np.uint32)
        if type_name == "bf16":
            bits = (bits >> np.uint32(16)).astype(np.uint16)
        return np.where(nan, bits.dtype.type(CANONICAL_NAN[type_name]), bits)
    if type_name in ("e4m3", "e5m2"):
        return _encode_fp8(x, FORMATS[type_name])
    raise KeyError(f"no float encoding for {type_name}")


def _decode_fp8(bits, fmt: FloatFormat) -> np.ndarray:
    """fp8 bits (low byte) -> float64."""
    bits = np.asarray(bits).astype(np.int64) & 0xFF
    mbits = fmt.precision - 1
    bias = 1 - fmt.emin
    sign = np.where(bits & 0x80, -1.0, 1.0)
    expo = (bits >> mbits) & ((1 << (7 - mbits)) - 1)
    mant = bits & ((1 << mbits) - 1)
    value = np.where(expo == 0, np.ldexp(mant.astype(np.float64), fmt.emin - mbits),
                     np.ldexp((mant + (1 << mbits)).astype(np.float64),
                              (expo - bias - mbits).astype(np.int32)))
    top = (1 << (7 - mbits)) - 1
    if fmt.has_inf:          # e5m2: IEEE-style specials
        value = np.where(expo == top, np.where(mant == 0, np.inf, np.nan), value)
    else:                    # e4m3: only S.1111.111 is NaN, no infinities
        value = np.where((expo == top) & (mant == (1 << mbits) - 1), np.nan, value)
    return sign * value


def _encode_fp8(x, fmt: FloatFormat) -> np.ndarray:
    """float64 exactly representable in an fp8 format (or inf/NaN) -> bits (uint8)."""
    mbits = fmt.precision - 1
    bias = 1 - fmt.emin
    mag = np.abs(x)
    sign = np.signbit(x).astype(np.int64) << 7
    finite = np.isfinite(mag) & (mag > 0)
    safe = np.where(finite, mag, 1.0)
    _, ex = np.frexp(safe)
    top = ex.astype(np.int64) - 1
    normal = top >= fmt.emin
    field = np.where(normal, top + bias, 0)
    scale = np.where(normal, top - mbits, fmt.emin - mbits)
    mant = np.ldexp(safe, (-scale).astype(np.int32)).astype(np.int64)
    mant = np.where(normal, mant - (1 << mbits), mant)
    bits = np.where(finite, (field << mbits) | mant, 0)
    bits = np.where(np.isinf(mag), 0x7C if fmt.has_inf else 0x7F, bits)
    bits = np.where(np.isnan(mag), CANONICAL_NAN[fmt.name], bits | sign)
    return bits.astype(np.uint8)


# ----------------------------------------------------- error-free transforms

def two_sum(a, b):
    """(s, err) with s = RN(a+b) and a + b = s + err exactly (Knuth)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


def _split(a):
    """Veltkamp: a = hi + lo with hi, lo of at most 26 significant bits."""
    c = 134217729.0 * a          # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """(p, err) with p = RN(a*b) and a*b = p + err exactly (Dekker), provided
    |a|,|b| < 2**996 and the exponent sum stays above about -968."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, err


def round_to_odd(s, err):
    """The pair s + err rounded to odd at f64 precision: keep s if exact or its
    last bit is 1, else step one ulp toward err. Rounding the result once more
    to any format of <= 51 bits then equals a single rounding of s + err."""
    bits = s.view(_U64)
    inexact = (err != 0) & ((bits & _ONE) == 0) & np.isfinite(err)
    toward_zero = np.signbit(err) != np.signbit(s)
    step = np.where(toward_zero, _U64(0xFFFF_FFFF_FFFF_FFFF), _ONE)   # -1 (wrapping) or +1 on the magnitude
    return np.where(inexact, bits + step, bits).view(np.float64)


# ------------------------------------------------------------------ rounding

def _bit_length(m) -> np.ndarray:
    """Exact bit length of positive uint64 values (float conversion may round up)."""
    _, ex = np.frexp(m.astype(np.float64))
    ex = ex.astype(np.int64)
    shift = np.clip(ex - 2, 0, 63).astype(_U64)
    rounded_up = (ex >= 2) & (((m >> shift) >> _ONE) == 0)
    return ex - rounded_up


def _increment(q, r, half, shifted, negative, mode):
    """Whether rounding the truncated significand q (remainder r) goes up."""
    if mode == "rn":
        return (r > half) | ((r == half) & shifted & ((q & _ONE) == 1))
    if mode == "rna":
        return shifted & (r >= half)
    if mode == "rz":
        return np.zeros(q.shape, dtype=bool)
    if mode == "rp":
        return (r != 0) & ~negative
    if mode == "rm":
        return (r != 0) & negative
    raise ValueError(f"unknown rounding mode {mode}")


def round_scaled(m, e, negative, fmt: FloatFormat, mode: str) -> np.ndarray:
    """Round the exact value (-1)^negative * m * 2^e (m: uint64 > 0) to fmt.

    Returns float64 holding the rounded value; overflow gives inf or the
    largest finite value as the mode says (formats without inf included: their
    conversions are always .satfinite, which clamps afterwards).
    """
    m = np.asarray(m, dtype=_U64)
    e = np.asarray(e, dtype=np.int64)
    negative = np.asarray(negative, dtype=bool)
    top = _bit_length(m) - 1 + e                                 # floor(log2(value))
    quantum = np.maximum(top, fmt.emin) - (fmt.precision - 1)    # exponent of one ulp
    shift = quantum - e
    k = np.clip(shift, 0, 62).astype(_U64)     # m < 2**62 whenever shift > 62 matters
    q = m >> k
    r = m & ((_ONE << k) - _ONE)
    half = (_ONE << k) >> _ONE
    q = q + _increment(q, r, half, shift > 0, negative, mode).astype(_U64)
    mag = np.ldexp(q.astype(np.float64), np.maximum(quantum, e).astype(np.int32))
    away = (mode in ("rn", "rna")) | ((mode == "rp") & ~negative) | ((mode == "rm") & negative)
    mag = np.where(mag > fmt.max_finite, np.where(away, _INF, fmt.max_finite), mag)
    return np.where(negative, -mag, mag)


def _step_f64(value, err, mode, finite_exact):
    """Directed rounding of value+err at f64 precision, value = RN(exact)."""
    if mode in ("rn", "rna") or err is None:
        out = value
    else:
        err = np.where(np.isfinite(err), err, 0.0)
        if mode == "rp":
            move, target = err > 0, _INF
        elif mode == "rm":
            move, target = err < 0, -_INF
        else:                                        # rz: residual points toward zero
            move, target = (err != 0) & (np.signbit(err) != np.signbit(value)), 0.0
        out = np.where(move, np.nextafter(value, target), value)
    if finite_exact is not None:                     # RN overflowed to inf; directed may not
        overflow = np.isinf(value) & finite_exact
        if overflow.any():
            negative = np.signbit(value)
            away = (mode in ("rn", "rna")) | ((mode == "rp") & ~negative) | ((mode == "rm") & negative)
            capped = np.where(away, value, np.copysign(F64.max_finite, value))
            out = np.where(overflow, capped, out)
    return out


def round_to(value, fmt: FloatFormat, mode: str = "rn", err=None, finite_exact=None):
    """Round the exact value+err to `fmt` under `mode`; float64 result.

    `value` is the exact result rounded to nearest f64 (or exact); `err` the
    exact residual (only its sign matters) or None. `finite_exact` marks lanes
    whose exact result is finite even if `value` overflowed to inf.
    """
    value = np.asarray(value, dtype=np.float64)
    if fmt is F64:
        return _step_f64(value, err, mode, finite_exact)
    if fmt.name in _NATIVE and mode != "rna":
        return _round_native(value, err, _NATIVE[fmt.name], mode)
    if fmt is BF16 and mode == "rn":
        return _round_bf16_nearest(value, err)
    regular = np.isfinite(value) & (value != 0)
    safe = np.where(regular, value, 1.0)
    bits = safe.view(_U64)
    negative = np.signbit(safe)
    expo = ((bits >> _U64(52)) & _U64(0x7FF)).astype(np.int64)
    frac = bits & _F64_FRAC
    m = np.where(expo > 0, frac | _F64_HIDDEN, frac)
    e = np.where(expo > 0, expo - 1075, -1074)
    m4 = (m << _U64(2)).astype(np.int64)
    if err is not None:                              # sticky: which side of value exact lies
        err = np.where(np.isfinite(err), err, 0.0)
        away = (err != 0) & (np.signbit(err) == negative)
        toward = (err != 0) & (np.signbit(err) != negative)
        m4 = m4 + away - toward
    rounded = round_scaled(m4.astype(_U64), e - 2, negative, fmt, mode)
    return np.where(regular, rounded, value)


_NATIVE = {"f32": np.float32, "f16": np.float16}


def _round_native(value, err, dtype, mode):
    """Fast path for targets NumPy has: round value+err to odd at f64
    precision, then let NumPy's (correctly rounded, nearest-even) cast
    round once more and step one ulp where a directed mode disagrees.
    Rounding to odd first makes the second rounding exact in every mode."""
    exact = value if err is None else round_to_odd(value, np.asarray(err, dtype=np.float64))
    with np.errstate(over="ignore"):
        nearest = exact.astype(dtype)
    if mode == "rn":
        return nearest.astype(np.float64)
    if mode == "rz":
        wrong, target = np.abs(nearest) > np.abs(exact), 0
    elif mode == "rp":
        wrong, target = nearest < exact, np.inf
    elif mode == "rm":
        wrong, target = nearest > exact, -np.inf
    else:
        raise ValueError(f"unknown rounding mode {mode}")
    return np.where(wrong, np.nextafter(nearest, dtype(target)), nearest).astype(np.float64)


def _round_bf16_nearest(value, err):
    """value+err to bf16, nearest-even: round to odd at f32 precision (chop,
    then OR the sticky bit into the last place), then round the f32 bits."""
    exact = value if err is None else round_to_odd(value, np.asarray(err, dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        chopped = _round_native(exact, None, np.float32, "rz").astype(np.float32)
    bits = chopped.view(np.uint32) | (chopped.astype(np.float64) != exact).astype(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    rounded = bits.view(np.float32).astype(np.float64)
    return np.where(np.isnan(exact), exact, np.where(np.isinf(exact), exact, rounded))


def round_integers(values, fmt: FloatFormat, mode: str = "rn") -> np.ndarray:
    """Integer arrays (any width, signed or not) rounded to fmt, exactly; float64."""
    values = np.asarray(values)
    if values.dtype.kind == "i":
        wide = values.astype(np.int64)
        negative = wide < 0
        bits = wide.view(_U64)
        mag = np.where(negative, (~bits) + _ONE, bits)   # |INT64_MIN| fits in u64
    else:
        mag = values.astype(_U64)
        negative = np.zeros(mag.shape, dtype=bool)
    nonzero = mag != 0
    rounded = round_scaled(np.where(nonzero, mag, _ONE), np.zeros(mag.shape, np.int64),
                           negative, fmt, mode)
    return np.where(nonzero, rounded, 0.0)


def flush_subnormal(x, fmt: FloatFormat | None = None):
    """.ftz: subnormal values become zero of the same sign (fmt None: the array's own format)."""
    x = np.asarray(x)
    min_normal = np.finfo(x.dtype).tiny if fmt is None else x.dtype.type(fmt.min_normal)
    tiny = (x != 0) & (np.abs(x) < min_normal)
    return np.where(tiny, np.copysign(x.dtype.type(0), x), x) if tiny.any() else x


def flush_tiny_result(result, rescaled, fmt: FloatFormat):
    """.ftz on a rounded result, as an H200 does it: zero of its sign also where rounding to the
    subnormal grid reached the smallest normal but the exact value, rounded to the format's
    precision with an unbounded exponent, stays below it (IEEE's tininess after rounding).
    0.5 * 0x07ff (exactly 0x0400 * (1 - 2^-11)) is 0 in mul.rn.ftz.f16, not 0x0400, while
    0x3801 * 0x07fe (0x0400 * (1 - 2^-20)) is 0x0400; the same in f32 and f16x2, mul and fma
    (tests/machine/conformance/h200.npz, the forms named "near min").

    `rescaled(scale)` is the same operation, rounded the same way, with its exact value
    multiplied by `scale` (a power of two that keeps the smallest normal's neighbours normal);
    it is computed only when some result is the smallest normal (None: an operation, such as
    a sum, whose tiny results are exact, so only subnormal results are flushed)."""
    result = flush_subnormal(np.asarray(result), fmt)
    if rescaled is None:
        return result
    edge = np.abs(result) == result.dtype.type(fmt.min_normal)
    if not edge.any():
        return result
    scale = 2.0 ** (fmt.precision + 1)
    below = np.abs(np.asarray(rescaled(scale), dtype=np.float64)) < fmt.min_normal * scale
    return np.where(edge & below, np.copysign(result.dtype.type(0), result), result)


# ---------------------------------------------------- exact rational fallback

def round_fraction(value: Fraction, fmt: FloatFormat, mode: str) -> float:
    """A nonzero rational rounded to fmt (Python ints; for rare fallback lanes)."""
    negative = value < 0
    num, den = abs(value.numerator), value.denominator
    top = num.bit_length() - den.bit_length()
    if (num << max(0, -top)) < (den << max(0, top)):
        top -= 1
    quantum = max(top, fmt.emin) - (fmt.precision - 1)
    scaled_num = num << max(0, -quantum)
    scaled_den = den << max(0, quantum)
    q, r = divmod(scaled_num, scaled_den)
    twice = 2 * r
    if mode == "rn":
        up = twice > scaled_den or (twice == scaled_den and q & 1)
    elif mode == "rna":
        up = twice >= scaled_den
    elif mode == "rz":
        up = False
    else:
        up = r != 0 and ((mode == "rp") != negative)
    try:
        mag = math.ldexp(q + up, quantum)
    except OverflowError:
        mag = math.inf
    if mag > fmt.max_finite:
        away = mode in ("rn", "rna") or (mode == "rp" and not negative) or (mode == "rm" and negative)
        mag = math.inf if away else fmt.max_finite
    return -mag if negative else mag


def _zero_sum_sign(x_negative: bool, y_negative: bool, mode: str) -> float:
    """IEEE sign of an exact zero sum x + y: -0 if both are negative, and under
    round-down also if they differ."""
    if x_negative and y_negative:
        return -0.0
    if mode == "rm" and x_negative != y_negative:
        return -0.0
    return 0.0


def _fma_lane(a: float, b: float, c: float, mode: str) -> float:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        prod_negative = math.copysign(1, a) * math.copysign(1, b) < 0
        return _zero_sum_sign(prod_negative, math.copysign(1, c) < 0, mode)
    return round_fraction(exact, F64, mode)


def _fallback(out, lanes, fn, *operands):
    """Recompute the selected lanes with a per-lane exact function."""
    for i in np.flatnonzero(lanes):
        out[i] = fn(*(float(x[i]) for x in operands))
    return out


# ------------------------------------------------- correctly rounded arithmetic
# Inputs: float64 arrays holding the operands exactly. Output: float64 holding
# the result correctly rounded to `fmt` under `mode` (NaN payloads arbitrary).

def _exponent(x):
    return np.frexp(x)[1].astype(np.int64)


def _fix_zero_sign(result, x, y, exact_zero, mode):
    """Round-down makes an exact zero sum of opposite-signed terms -0 (IEEE)."""
    if mode != "rm":
        return result
    both_positive = ~np.signbit(x) & ~np.signbit(y)
    return np.where(exact_zero & ~both_positive, -0.0, result)


def add_rounded(x, y, fmt: FloatFormat, mode: str):
    """x + y rounded once to fmt."""
    with np.errstate(all="ignore"):
        s, err = two_sum(x, y)
        result = round_to(s, fmt, mode, err, finite_exact=np.isfinite(x) & np.isfinite(y))
    return _fix_zero_sign(result, x, y, s == 0, mode)


def _broadcast(*arrays):
    return [np.array(a, dtype=np.float64) for a in np.broadcast_arrays(*arrays)]


def mul_rounded(a, b, fmt: FloatFormat, mode: str):
    """a * b rounded once to fmt (f64: Dekker product, Fraction at the extremes)."""
    a, b = _broadcast(a, b)
    with np.errstate(all="ignore"):
        if fmt is not F64:          # products of narrower formats are exact in f64
            return round_to(a * b, fmt, mode)
        if mode == "rn":
            return a * b
        regular = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
        ea, eb = _exponent(a), _exponent(b)
        extreme = regular & ((ea + eb > 1000) | (ea + eb < -900))
        shift = ((ea - eb) // 2).astype(np.int32)                 # balance exponents for _split
        p, err = two_prod(np.ldexp(a, -shift), np.ldexp(b, shift))
        out = np.where(regular, round_to(p, F64, mode, err), a * b)
    return _fallback(out, extreme,
                     lambda u, v: round_fraction(Fraction(u) * Fraction(v), F64, mode), a, b)


# Functions (a, b, c) -> a*b + c of float64 arrays rounded once to nearest, registered by a layer that
# may compile (machine/compiled/fused.py: the processor's FMA); fma_rounded tries the first.
NEAREST_FMA64: list = []


def fma_rounded(a, b, c, fmt: FloatFormat, mode: str):
    """a * b + c with a single rounding to fmt.

    Narrower formats: the product is exact in f64, so TwoSum(product, c) gives
    the exact sum as a pair. f64: Boldo-Melquiond -- (ph, pl) = TwoProd(a, b),
    (sh, sl) = TwoSum(c, ph), v = round_to_odd(sl + pl), result = round(sh + v),
    which is exact for every rounding mode away from overflow and underflow.
    """
    a, b, c = _broadcast(a, b, c)
    if fmt is F64 and mode == "rn" and NEAREST_FMA64:     # the processor's FMA rounds once to nearest too
        return NEAREST_FMA64[0](a, b, c)
    with np.errstate(all="ignore"):
        if fmt is not F64:
            p = a * b
            s, err = two_sum(p, c)
            return _fix_zero_sign(round_to(s, fmt, mode, err), p, c, s == 0, mode)
        regular = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (a != 0) & (b != 0)
        ea, eb, ec = _exponent(a), _exponent(b), _exponent(c)
        if (np.abs(ea) > 450).any() or (np.abs(eb) > 450).any():
            shift = ((ea - eb) // 2).astype(np.int32)   # balance a and b for _split
            ph, pl = two_prod(np.ldexp(a, -shift), np.ldexp(b, shift))
        else:
            ph, pl = two_prod(a, b)
        sh, sl = two_sum(c, ph)
        v = round_to_odd(*two_sum(sl, pl))
        if mode == "rn":
            result = sh + v
        else:
            result = add_rounded(sh, v, F64, mode)
            # an exact zero here means c cancelled a nonzero product exactly
            result = np.where(result == 0, -0.0 if mode == "rm" else 0.0, result)
        extreme = regular & ((ea + eb > 1000) | (ea + eb < -900) | (ec > 1000)
                             | ((result != 0) & (np.abs(result) < 2.0 ** -960)))
        if regular.all():
            out = result
        else:
            # zero products, inf and NaN: a*b is exact (or an infinite c wins
            # over a finite product that overflows); one rounded addition remains
            special = np.where(np.isfinite(a) & np.isfinite(b) & np.isinf(c), c,
                               add_rounded(a * b, c, F64, mode))
            out = np.where(regular, result, special)
    return _fallback(out, extreme, lambda u, w, z: _fma_lane(u, w, z, mode), a, b, c)


def div_rounded(a, b, fmt: FloatFormat, mode: str):
    """a / b rounded once to fmt: q = RN(a/b), residual sign from a - q*b exactly.

    Both operands are first scaled by the same power of two (the quotient does
    not change) so that b is near 1 and TwoProd(q, b) cannot overflow.
    """
    a, b = _broadcast(a, b)
    with np.errstate(all="ignore"):
        regular = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
        ea, eb = _exponent(a), _exponent(b)
        extreme = regular & ((ea - eb > 990) | (ea - eb < -900))     # _split needs |q| < 2**996
        a2, b2 = np.ldexp(a, (-eb).astype(np.int32)), np.ldexp(b, (-eb).astype(np.int32))
        q = a2 / b2
        ph, pl = two_prod(q, b2)
        residual = (a2 - ph) - pl                       # a2 - ph is exact (Sterbenz)
        err = np.where(np.signbit(b2), -residual, residual)
        out = np.where(regular, round_to(q, fmt, mode, err), round_to(a / b, fmt, mode))
    if fmt is not F64:
        return out
    return _fallback(out, extreme,
                     lambda u, v: round_fraction(Fraction(u) / Fraction(v), F64, mode), a, b)


def sqrt_rounded(a, fmt: FloatFormat, mode: str):
    """sqrt(a) rounded once to fmt; a is scaled by an even power of two into
    [0.25, 1) first so the square s*s is exact as a TwoProd pair."""
    a = np.array(a, dtype=np.float64)
    with np.errstate(all="ignore"):
        regular = np.isfinite(a) & (a > 0)
        half = (_exponent(a) // 2).astype(np.int32)
        a2 = np.ldexp(a, -2 * half)
        s = np.sqrt(a2)
        ph, pl = two_prod(s, s)
        err = (a2 - ph) - pl
        if fmt is F64:
            rooted = np.ldexp(round_to(s, F64, mode, err), half)
        else:
            rooted = round_to(np.ldexp(s, half), fmt, mode, err)
        return np.where(regular, rooted, np.sqrt(a))
