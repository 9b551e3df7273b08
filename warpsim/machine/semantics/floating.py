"""Floating-point instructions: add/sub/mul/fma/mad/div, rcp/sqrt/rsqrt, the
.approx special functions (ex2, lg2, sin, cos, tanh), min/max, abs/neg,
copysign and testp, for f32, f64 and the half types f16/f16x2/bf16/bf16x2.

Where PTX differs from NumPy:
- .rz/.rm/.rp rounding, and fma's single rounding, are done exactly through
  floatbits (NumPy only rounds to nearest, and has no fused multiply-add);
- .ftz flushes subnormal f32/f16 inputs and results to zero of the same sign;
  .sat clamps results to [0, 1] with NaN -> +0; .relu clamps below at 0;
- NaN results are the GPU's canonical NaN (f32 0x7fffffff, f16/bf16 0x7fff);
- min/max return the non-NaN operand and order -0 below +0;
- packed x2 types compute per half, element 0 in bits 0-15;
- .approx functions are computed in f64 and rounded once: inside PTX's error
  bounds, but not bit-identical to the GPU's special function unit.

Half types travel as NumPy float16 (f16) or raw bits (bf16, f16x2, bf16x2);
every operand is decoded to float64 exactly, computed, and rounded once.
"""

from __future__ import annotations

import numpy as np

from .floatbits import (FORMATS, F32, F64, add_rounded, decode, div_rounded, encode,
                        flush_subnormal, fma_rounded, mul_rounded, round_to, sqrt_rounded)
from .registry import Signature, same_type, value_op

HALF_TYPES = frozenset({"f16", "f16x2", "bf16", "bf16x2"})
F32_AND_HALF = HALF_TYPES | {"f32"}
PACKED = {"f16x2": "f16", "bf16x2": "bf16"}
ROUNDINGS = frozenset({"rn", "rz", "rm", "rp"})
DIRECTED = ROUNDINGS - {"rn"}

# NaN results of f64 arithmetic are left as NumPy (x86) produces them: the
# quieted first NaN operand, or 0xfff8000000000000 for invalid operations.
# TODO(lead): check f64 NaN bits against an H200.


# ------------------------------------------------------------------ helpers

def _mode(ins) -> str:
    """The rounding modifier, .rn when none is given (what ptxas assumes)."""
    for m in ins.mods:
        if m in ROUNDINGS:
            return m
    return "rn"


def _ftz_applies(ins, t: str) -> bool:
    """.ftz exists for f32 and f16 (and f64 only on rcp/rsqrt .approx)."""
    return "ftz" in ins.flags and t in ("f32", "f16", "f64")


def _operands(ins, t, *sources):
    """Sources decoded to float64, subnormals flushed under .ftz."""
    values = [decode(s, t) for s in sources]
    if _ftz_applies(ins, t):
        values = [flush_subnormal(v, FORMATS[t]) for v in values]
    return values


def _deliver(ins, t: str, result) -> np.ndarray:
    """Exactly rounded float64 results -> the register type, after .ftz,
    .sat (clamp to [0, 1], NaN -> +0) and .relu (negatives -> +0, NaN kept)."""
    flags = ins.flags
    if _ftz_applies(ins, t):
        result = flush_subnormal(result, FORMATS[t])
    if "sat" in flags:
        result = np.where(np.isnan(result), 0.0, np.clip(result, 0.0, 1.0)) + 0.0  # -0 -> +0
    if "relu" in flags:
        result = np.where(result < 0, 0.0, result) + 0.0
    return encode(result, t)


def canonical_nan(x):
    """f32/f16 NaNs -> the canonical NaN the GPU writes (NumPy keeps payloads)."""
    if x.dtype == np.float64:
        return x
    nan = np.isnan(x)
    if not nan.any():
        return x
    bits = np.uint32(0x7FFFFFFF) if x.dtype == np.float32 else np.uint16(0x7FFF)
    return np.where(nan, np.asarray(bits).view(x.dtype), x)


def _unpack(values, elem: str):
    """A packed x2 word -> (element 0 from bits 0-15, element 1 from bits 16-31)."""
    values = np.asarray(values, dtype=np.uint32)
    halves = [(values & np.uint32(0xFFFF)).astype(np.uint16),
              (values >> np.uint32(16)).astype(np.uint16)]
    return [h.view(np.float16) if elem == "f16" else h for h in halves]


def _pack(low, high) -> np.ndarray:
    low, high = (np.asarray(h) for h in (low, high))
    low = low.view(np.uint16).astype(np.uint32)
    high = high.view(np.uint16).astype(np.uint32)
    return low | (high << np.uint32(16))


def _per_element(ins, fn, *sources):
    """fn(elem_type, *sources) on each half of packed types, else once."""
    t = ins.type
    elem = PACKED.get(t)
    if elem is None:
        return fn(t, *sources)
    split = [_unpack(s, elem) for s in sources]
    return _pack(fn(elem, *(s[0] for s in split)), fn(elem, *(s[1] for s in split)))


def _plain_f32(ins) -> bool:
    """No modifier that needs more than NumPy's IEEE float32 arithmetic."""
    return not (ins.flags & {"ftz", "sat", "rz", "rm", "rp"})


# ------------------------------------------------------------------ checks

def _check(allowed_by_type: dict, *, need_one_of=None):
    """A check= from {type: allowed flags}; flags outside them are rejected."""
    def check(ins):
        if len(ins.types) != 1:
            return f"{ins.opcode} takes exactly one type, got {ins.types or 'none'}"
        allowed = allowed_by_type.get(ins.type)
        if allowed is None:
            return f"{ins.opcode}.{ins.type} is not a PTX instruction"
        extra = sorted(ins.flags - allowed)
        if extra:
            return f"modifier(s) {', '.join('.' + m for m in extra)} not supported on {ins.opcode}.{ins.type}"
        if len(ins.flags & (ROUNDINGS | {"approx", "full"})) > 1:
            return "more than one rounding modifier"
        if {"sat", "relu"} <= ins.flags:
            return ".sat and .relu are exclusive"
        if need_one_of and not ins.flags & need_one_of:
            return f"{ins.opcode}.{ins.type} needs one of {', '.join('.' + m for m in sorted(need_one_of))}"
        return None
    return check


def _table(**groups):
    """Expand {'f32': flags, 'half': flags, 'f16': ...} into per-type sets."""
    table = {}
    for key, flags in groups.items():
        types = {"half16": ("f16", "f16x2"), "bhalf": ("bf16", "bf16x2")}.get(key, (key,))
        for t in types:
            table[t] = frozenset(flags)
    return table


_RND = ROUNDINGS
_ARITH = _table(f32=_RND | {"ftz", "sat"}, f64=_RND, half16={"rn", "ftz", "sat"}, bhalf={"rn"})
_FMA = _table(f32=_RND | {"ftz", "sat"}, f64=_RND, half16={"rn", "ftz", "sat", "relu"},
              bhalf={"rn", "relu"})
_MAD = _table(f32=_RND | {"ftz", "sat"}, f64=_RND)
_DIV = _table(f32=_RND | {"approx", "full", "ftz"}, f64=_RND)
_RCP = _table(f32=_RND | {"approx", "ftz"}, f64=_RND | {"approx", "ftz"})
_SQRT = _table(f32=_RND | {"approx", "ftz"}, f64=_RND)
_RSQRT = _table(f32={"approx", "ftz"}, f64={"approx", "ftz"})
_SFU_F32 = _table(f32={"approx", "ftz"})
_EX2 = _table(f32={"approx", "ftz"}, half16={"approx"}, bhalf={"approx", "ftz"})
_TANH = _table(f32={"approx"}, half16={"approx"}, bhalf={"approx"})
_MINMAX = _table(f32={"ftz", "NaN", "xorsign", "abs"}, f64=set(),
                 half16={"ftz", "NaN", "xorsign", "abs"}, bhalf={"NaN", "xorsign", "abs"})
_ABSNEG = _table(f32={"ftz"}, f64=set(), half16={"ftz"}, bhalf=set())
_PLAIN = _table(f32=set(), f64=set())

_SINGLE = F32_AND_HALF
_DOUBLE = {"f64"}


def _fp(*opcodes, types, check, signature=same_type, pipe=None):
    """Register for f32/half types (FMA pipe) and f64 (FP64 pipe) separately."""
    types = frozenset(types)

    def deco(fn):
        single, double = types - _DOUBLE, types & _DOUBLE
        if single:
            value_op(*opcodes, family="floating", signature=signature, types=single,
                     pipe=pipe or "fma", check=check)(fn)
        if double:
            value_op(*opcodes, family="floating", signature=signature, types=double,
                     pipe="fp64", check=check)(fn)
        return fn
    return deco


# ------------------------------------------------------- add, sub, mul, fma

@_fp("add", "sub", types=F32_AND_HALF | _DOUBLE, check=_check(_ARITH))
def add_sub(ins, a, b):
    def element(t, a, b):
        mode = _mode(ins)
        if t == "f64" and mode == "rn" or t == "f32" and _plain_f32(ins):
            with np.errstate(all="ignore"):
                return canonical_nan(a + b if ins.opcode == "add" else a - b)
        x, y = _operands(ins, t, a, b)
        if ins.opcode == "sub":
            y = -y                                   # x - y is x + (-y), zeros included
        return _deliver(ins, t, add_rounded(x, y, FORMATS[t], mode))
    return _per_element(ins, element, a, b)


@_fp("mul", types=F32_AND_HALF | _DOUBLE, check=_check(_ARITH))
def mul(ins, a, b):
    def element(t, a, b):
        mode = _mode(ins)
        if t == "f64" and mode == "rn" or t == "f32" and _plain_f32(ins):
            with np.errstate(all="ignore"):
                return canonical_nan(a * b)
        x, y = _operands(ins, t, a, b)
        return _deliver(ins, t, mul_rounded(x, y, FORMATS[t], mode))
    return _per_element(ins, element, a, b)


def _fused(ins, a, b, c):
    """a*b + c rounded once (fma, and mad.f32/f64, which PTX defines as fused)."""
    def element(t, a, b, c):
        x, y, z = _operands(ins, t, a, b, c)
        return _deliver(ins, t, fma_rounded(x, y, z, FORMATS[t], _mode(ins)))
    return _per_element(ins, element, a, b, c)


@_fp("fma", types=F32_AND_HALF | _DOUBLE, check=_check(_FMA, need_one_of=ROUNDINGS))
def fma(ins, a, b, c):
    return _fused(ins, a, b, c)


# mad.f32 without a rounding modifier is fused on sm_20+, same as mad.rn.f32.
@_fp("mad", types={"f32", "f64"}, check=_check(_MAD))
def mad(ins, a, b, c):
    return _fused(ins, a, b, c)


# ---------------------------------------------------------- div, rcp, sqrt

def _approx_reciprocal(x):
    """rcp.approx: 1/x in f64 rounded to f32 (the SFU is not correctly
    rounded; PTX allows 1 ulp)."""
    with np.errstate(all="ignore"):
        return (1.0 / x).astype(np.float32).astype(np.float64)


@_fp("div", types={"f32", "f64"}, check=_check(_DIV))
def div(ins, a, b):
    t = ins.type
    mode = _mode(ins)
    if "approx" in ins.flags:
        x, y = _operands(ins, t, a, b)
        # a * rcp(b); rcp of |b| > 2**126 is subnormal and the SFU flushes it,
        # which is why PTX documents 0 (NaN for infinite a) in that range.
        recip = flush_subnormal(_approx_reciprocal(y), F32)
        with np.errstate(all="ignore"):
            product = (x.astype(np.float32) * recip.astype(np.float32)).astype(np.float64)
        return _deliver(ins, t, product)
    # .full (2 ulp in PTX) is given the correctly rounded quotient
    if mode == "rn" and (t == "f64" or _plain_f32(ins)):
        with np.errstate(all="ignore"):
            return canonical_nan(a / b)
    x, y = _operands(ins, t, a, b)
    return _deliver(ins, t, div_rounded(x, y, FORMATS[t], mode))


@_fp("rcp", types={"f32", "f64"}, check=_check(_RCP), pipe="sfu")
def rcp(ins, a):
    t = ins.type
    (x,) = _operands(ins, t, a)
    if "approx" in ins.flags:
        if t == "f64":
            # rcp.approx.ftz.f64 is a fast approximation in hardware (MUFU.RCP64H)
            with np.errstate(all="ignore"):
                return flush_subnormal(1.0 / x, F64) if "ftz" in ins.flags else 1.0 / x
        return _deliver(ins, t, _approx_reciprocal(x))
    return _deliver(ins, t, div_rounded(np.ones_like(x), x, FORMATS[t], _mode(ins)))


@_fp("sqrt", types={"f32", "f64"}, check=_check(_SQRT), pipe="sfu")
def sqrt(ins, a):
    t = ins.type
    (x,) = _operands(ins, t, a)
    if "approx" in ins.flags:
        with np.errstate(all="ignore"):
            return _deliver(ins, t, np.sqrt(x).astype(np.float32).astype(np.float64))
    return _deliver(ins, t, sqrt_rounded(x, FORMATS[t], _mode(ins)))


@_fp("rsqrt", types={"f32", "f64"}, check=_check(_RSQRT), pipe="sfu")
def rsqrt(ins, a):
    t = ins.type
    (x,) = _operands(ins, t, a)
    with np.errstate(all="ignore"):
        result = 1.0 / np.sqrt(x)                     # rsqrt(-0) = -inf, as PTX says
    if t == "f64":
        return flush_subnormal(result, F64) if "ftz" in ins.flags else result
    return _deliver(ins, t, result.astype(np.float32).astype(np.float64))


# ------------------------------------------------ special functions (.approx)

_APPROX = {
    "ex2": np.exp2,
    "lg2": np.log2,
    "sin": np.sin,       # no argument reduction issues in f64 for f32 inputs
    "cos": np.cos,
    "tanh": np.tanh,
}


@_fp("ex2", types=F32_AND_HALF, check=_check(_EX2), pipe="sfu")
@_fp("tanh", types=F32_AND_HALF, check=_check(_TANH), pipe="sfu")
@_fp("lg2", "sin", "cos", types={"f32"}, check=_check(_SFU_F32), pipe="sfu")
def special_function(ins, a):
    """f(x) computed in f64 and rounded once to the type (PTX bounds: ex2 2 ulp,
    lg2 2^-22.6 abs, sin/cos 2^-20.9 abs in [-pi, pi], tanh 2^-10.987 rel)."""
    fn = _APPROX[ins.opcode]

    def element(t, a):
        (x,) = _operands(ins, t, a)
        with np.errstate(all="ignore"):
            y = fn(x)
        return _deliver(ins, t, round_to(y, FORMATS[t], "rn"))
    return _per_element(ins, element, a)


# ------------------------------------------------------------------ min, max

def _pick(opcode, x, y):
    """PTX min/max of two float64 arrays: a NaN operand loses to a number,
    two NaNs give NaN, and -0 counts as less than +0."""
    chosen = np.fmin(x, y) if opcode == "min" else np.fmax(x, y)
    both_zero = (x == 0) & (y == 0)
    if both_zero.any():
        negative = (np.signbit(x) | np.signbit(y)) if opcode == "min" else (np.signbit(x) & np.signbit(y))
        chosen = np.where(both_zero, np.where(negative, -0.0, 0.0), chosen)
    return chosen


def _check_min_max(ins):
    reason = _check(_MINMAX)(ins)
    if reason:
        return reason
    if ("xorsign" in ins.flags) != ("abs" in ins.flags):
        return ".xorsign and .abs go together"
    if len(ins.srcs) not in (2, 3):
        return f"{ins.opcode} takes two or three sources"
    if "xorsign" in ins.flags and len(ins.srcs) != 2:
        return ".xorsign.abs takes two sources"
    return None


@_fp("min", "max", types=F32_AND_HALF | _DOUBLE, check=_check_min_max, pipe="alu")
def min_max(ins, *sources):
    def element(t, *sources):
        values = _operands(ins, t, *sources)
        sign = None
        if "xorsign" in ins.flags:               # |a| vs |b|, sign = sign(a) ^ sign(b)
            sign = np.signbit(values[0]) ^ np.signbit(values[1])
            values = [np.abs(v) for v in values]
        result = values[0]
        for v in values[1:]:
            result = _pick(ins.opcode, result, v)
        if "NaN" in ins.flags:                    # .NaN: any NaN operand makes the result NaN
            result = np.where(np.any([np.isnan(v) for v in values], axis=0), np.nan, result)
        if sign is not None:
            result = np.where(sign, -result, result)
        return encode(result, t)
    return _per_element(ins, element, *sources)


# ---------------------------------------------------- abs, neg, copysign, testp

_SIGN_BIT = {"f16": np.uint16(0x8000), "bf16": np.uint16(0x8000),
             "f32": np.uint32(0x80000000), "f64": np.uint64(1 << 63)}


_EXPONENT_BITS = {"f16": np.uint16(0x7C00), "f32": np.uint32(0x7F800000)}


def _bits(values, t):
    values = np.asarray(values)
    if t == "bf16":
        return values
    return values.view({"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[t])


def _from_bits(bits, t):
    return bits if t == "bf16" else bits.view({"f16": np.float16, "f32": np.float32,
                                               "f64": np.float64}[t])


@_fp("abs", "neg", types=F32_AND_HALF | _DOUBLE, check=_check(_ABSNEG), pipe="alu")
def abs_neg(ins, a):
    """Sign-bit operations: NaN payloads pass through (PTX leaves them unspecified)."""
    def element(t, a):
        bits = _bits(a, t)
        sign = _SIGN_BIT[t]
        if _ftz_applies(ins, t):                  # subnormal: exponent field all zero
            exponent = _EXPONENT_BITS[t]
            bits = np.where(bits & exponent == 0, bits & sign, bits)
        bits = bits & ~sign if ins.opcode == "abs" else bits ^ sign
        return _from_bits(bits, t)
    return _per_element(ins, element, a)


@_fp("copysign", types={"f32", "f64"}, check=_check(_PLAIN), pipe="alu")
def copysign(ins, a, b):
    """copysign d, a, b: b's magnitude with a's sign (note PTX's operand order)."""
    t = ins.type
    sign = _SIGN_BIT[t]
    a_bits, b_bits = np.broadcast_arrays(_bits(a, t), _bits(b, t))
    return _from_bits((b_bits & ~sign) | (a_bits & sign), t)


_TESTS = {
    "finite": lambda x, tiny: np.isfinite(x),
    "infinite": lambda x, tiny: np.isinf(x),
    "number": lambda x, tiny: ~np.isnan(x),
    "notanumber": lambda x, tiny: np.isnan(x),
    "normal": lambda x, tiny: np.isfinite(x) & (np.abs(x) >= tiny),
    "subnormal": lambda x, tiny: (x != 0) & (np.abs(x) < tiny),
}


def _check_testp(ins):
    tests = ins.flags & set(_TESTS)
    if len(ins.types) != 1 or ins.type not in ("f32", "f64"):
        return "testp takes one type, .f32 or .f64"
    if len(tests) != 1 or ins.flags - tests:
        return f"testp needs exactly one of {', '.join('.' + t for t in _TESTS)}"
    return None


@_fp("testp", types={"f32", "f64"}, check=_check_testp, pipe="alu",
     signature=lambda ins: Signature(("pred",), (ins.type,)))
def testp(ins, a):
    (test,) = ins.flags & set(_TESTS)
    return np.asarray(_TESTS[test](np.asarray(a), FORMATS[ins.type].min_normal), dtype=bool)
