"""Floating-point instructions: add/sub/mul/fma/mad/div, rcp/sqrt/rsqrt, the
.approx special functions (ex2, lg2, sin, cos, tanh), min/max, abs/neg,
copysign and testp, for f32, f64 and the half types f16/f16x2/bf16/bf16x2.

Where PTX differs from NumPy:
- .rz/.rm/.rp rounding, and fma's single rounding, are done exactly through
  floatbits (NumPy only rounds to nearest, and has no fused multiply-add);
- .ftz flushes subnormal inputs and results to zero of the same sign, and a
  product or fused sum that rounds up to the smallest normal when its value
  rounded with an unbounded exponent is still below it (tininess after rounding);
  .sat clamps results to [0, 1] with NaN -> +0; .relu clamps below at 0;
- NaN results are the GPU's canonical NaN (f32 0x7fffffff, f16/bf16 0x7fff);
  f64 passes NaN operands on, in an order of its own (see _nan_operand);
- min/max return the non-NaN operand and order -0 below +0;
- packed x2 types compute per half, element 0 in bits 0-15;
- .approx functions are the f64 function rounded once, wrapped in the range
  handling ptxas emits around the special function unit (MUFU): within PTX's
  bounds, but the SFU's last bit differs from ours for a fraction of inputs.

Checked bit for bit against an H200 (sm_90): every exactly rounded operation
in every mode and type here, and the NaN and special-value cases noted in
comments. Half types travel as NumPy float16 (f16) or raw bits (bf16, f16x2,
bf16x2); outside the fast paths every operand is decoded to float64 exactly,
computed, and rounded once.
"""

from __future__ import annotations

import functools

import numpy as np

from ...semantics.floatbits import (CANONICAL_NAN, FORMATS, F32, F64, decode, div_rounded, encode, fma_rounded,
                                    mul_rounded, round_to, sqrt_rounded)
from ...semantics.floating import (DEFAULT_NAN_F64, PLAIN, SFU_FLUSHING, FloatEnv, arithmetic, canonical_nan,
                                   high_word_sfu, min_max as float_min_max, quiet_f64, sfu_approx,
                                   to_revolutions)
from ...semantics.packed import per_half
from .table import Signature, same_type, value_op

HALF_TYPES = frozenset({"f16", "f16x2", "bf16", "bf16x2"})
F32_AND_HALF = HALF_TYPES | {"f32"}
PACKED = {"f16x2": "f16", "bf16x2": "bf16"}
ROUNDINGS = frozenset({"rn", "rz", "rm", "rp"})

# NaN results of f64 arithmetic, as seen on an H200: the quieted NaN operand,
# or 0xfff8000000000000 for invalid operations (as on x86); which operand wins
# when several are NaN differs per op (_nan_operand, _dfma_nan; div and sqrt
# follow x86, i.e. NumPy).


# ------------------------------------------------------------------ helpers

def _mode(ins) -> str:
    """The rounding modifier, .rn when none is given (what ptxas assumes)."""
    for m in ins.mods:
        if m in ROUNDINGS:
            return m
    return "rn"


def _ftz_applies(ins, t: str) -> bool:
    """.ftz exists for f32 and f16 (bf16 only on ex2, f64 only on rcp/rsqrt .approx)."""
    return "ftz" in ins.flags and t in ("f32", "f16", "bf16", "f64")


def _env(ins, t: str) -> FloatEnv:
    """The instruction's float rules for element type t: .ftz, .sat, .relu, .NaN, and f64's
    operand NaNs (semantics/floating.FloatEnv)."""
    flags = ins.flags
    return FloatEnv.flushing(_ftz_applies(ins, t), sat="sat" in flags, relu="relu" in flags,
                             nan="operand" if t == "f64" else "canonical", nan_wins="NaN" in flags)


def _operands(ins, t, *sources):
    """Sources decoded to float64, subnormals flushed under .ftz."""
    return _env(ins, t).inputs([decode(s, t) for s in sources], FORMATS[t])


def _deliver(ins, t: str, result, rescaled=None) -> np.ndarray:
    """Exactly rounded float64 results -> the register type, after .ftz, .sat and .relu
    (FloatEnv.outputs; `rescaled`: .ftz's tininess test where rounding can carry a tiny result up)."""
    return encode(_env(ins, t).outputs(np.asarray(result, dtype=np.float64), FORMATS[t], rescaled), t)


def _per_element(ins, fn, *sources):
    """fn(elem_type, *sources) on each half of packed types (semantics/packed.py), else once."""
    t = ins.type
    elem = PACKED.get(t)
    if elem is None:
        return fn(t, *sources)
    return per_half(lambda *halves: fn(elem, *halves), elem, *sources)


def _plain_f32(ins) -> bool:
    """No modifier that needs more than NumPy's IEEE float32 arithmetic."""
    return not (ins.flags & {"ftz", "sat", "relu", "rz", "rm", "rp"})


def _native(ins, t: str) -> bool:
    """Round to nearest with nothing else to do, on a type NumPy holds."""
    return t in ("f32", "f64", "f16") and _plain_f32(ins)


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
            names = ", ".join("." + m for m in extra)
            return f"modifier(s) {names} not supported on {ins.opcode}.{ins.type}"
        if len(ins.flags & (ROUNDINGS | {"approx", "full"})) > 1:
            return "more than one rounding modifier"
        if {"sat", "relu"} <= ins.flags:
            return ".sat and .relu are exclusive"
        if need_one_of and not ins.flags & need_one_of:
            names = ", ".join("." + m for m in sorted(need_one_of))
            return f"{ins.opcode}.{ins.type} needs one of {names}"
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

_DOUBLE = {"f64"}


def quietly(fn):
    """Run fn with NumPy's floating-point warnings off: overflow, invalid and
    NaN lanes are ordinary results on a GPU, not events."""
    @functools.wraps(fn)
    def compute(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return compute


def _float_op(*opcodes, types, check, signature=same_type, pipe=None):
    """Register for f32/half types (FMA pipe) and f64 (FP64 pipe) separately."""
    types = frozenset(types)

    def deco(fn):
        single, double = types - _DOUBLE, types & _DOUBLE
        if single:
            value_op(*opcodes, family="floating", signature=signature, types=single,
                     pipe=pipe or "fma", check=check)(quietly(fn))
        if double:
            value_op(*opcodes, family="floating", signature=signature, types=double,
                     pipe="fp64", check=check)(quietly(fn))
        return fn
    return deco


# ------------------------------------------------------- add, sub, mul, fma

def contraction_signs(ins) -> tuple:
    """(negate the product, negate the other source) of an add/sub ptxas fused with a multiply
    (machine/contraction.py): x*y + c, c + x*y and x*y - c keep the product's sign, c - x*y is
    fma(-x, y, c); only x*y - c negates c. The one rule both tiers follow."""
    subtracted = ins.opcode == "sub"
    return subtracted and ins.contracted == 1, subtracted and ins.contracted == 0


@_float_op("add", "sub", types=F32_AND_HALF | _DOUBLE, check=_check(_ARITH))
def add_sub(ins, a, b, *product):
    if ins.contracted >= 0:
        return _contracted(ins, a, b, *product)

    return _per_element(ins, lambda t, a, b: arithmetic(ins.opcode, t, a, b, mode=_mode(ins), env=_env(ins, t)),
                        a, b)


@_float_op("mul", types=F32_AND_HALF | _DOUBLE, check=_check(_ARITH))
def mul(ins, a, b):
    return _per_element(ins, lambda t, a, b: arithmetic("mul", t, a, b, mode=_mode(ins), env=_env(ins, t)), a, b)


def _fused_element(ins, t, a, b, c):
    """a*b + c of one element type, rounded once."""
    return arithmetic("fma", t, a, b, c, mode=_mode(ins), env=_env(ins, t))


def _fused(ins, a, b, c):
    """a*b + c rounded once (fma, and mad.f32/f64, which PTX defines as fused)."""
    return _per_element(ins, functools.partial(_fused_element, ins), a, b, c)


def _negated(t, values):
    """-values by the sign bit alone (as FFMA's operand negation), NaNs included."""
    if t in ("bf16",):
        return values ^ np.uint16(0x8000)
    return np.negative(values)


def _contracted(ins, a, b, x, y):
    """The add/sub `a ± b` whose product source (a or b) ptxas fused with its multiply x*y."""
    negate_product, negate_other = contraction_signs(ins)

    def element(t, a, b, x, y):
        other = b if ins.contracted == 0 else a
        if negate_product:
            x = _negated(t, x)
        if negate_other:
            other = _negated(t, other)
        return _fused_element(ins, t, x, y, other)
    return _per_element(ins, element, a, b, x, y)


@_float_op("fma", types=F32_AND_HALF | _DOUBLE, check=_check(_FMA, need_one_of=ROUNDINGS))
def fma(ins, a, b, c):
    return _fused(ins, a, b, c)


# mad.f32 without a rounding modifier is fused on sm_20+, same as mad.rn.f32
# (ptxas for sm_90 rejects it; accepted here for older PTX).
@_float_op("mad", types={"f32", "f64"}, check=_check(_MAD))
def mad(ins, a, b, c):
    return _fused(ins, a, b, c)


# ---------------------------------------------------------- div, rcp, sqrt

def _div_approx(ins, x, y):
    """div.approx/.full.f32 as ptxas emits them: a * MUFU.RCP(b). Both scale a
    and b by 2**24 first when b is subnormal (not under .ftz); .full also by
    1/4 when |b| > 2**126. Without that, the reciprocal of |b| > 2**126 is
    subnormal and flushed: PTX's documented 0 (NaN for a = inf) for .approx."""
    scale = np.ones_like(y)
    if "full" in ins.flags:
        scale = np.where(np.abs(y) > 2.0 ** 126, 0.25, scale)
    if "ftz" not in ins.flags:
        scale = np.where(np.abs(y) < F32.min_normal, 2.0 ** 24, scale)
    x = round_to(x * scale, F32, "rn")          # FMUL: may round or overflow
    y = y * scale
    return mul_rounded(x, sfu_approx("rcp", y, F32, SFU_FLUSHING), F32, "rn")


def _ieee_nan(result, ieee):
    """f64 div/rcp/sqrt NaN results: as x86 (NumPy) gives them, which is what
    an H200 gives too -- the first NaN operand quieted, or 0xfff8...0."""
    nan = np.isnan(result)
    return np.where(nan, ieee, result) if nan.any() else result


@_float_op("div", types={"f32", "f64"}, check=_check(_DIV))
def div(ins, a, b):
    t = ins.type
    mode = _mode(ins)
    if ins.flags & {"approx", "full"}:
        x, y = _operands(ins, t, a, b)
        return _deliver(ins, t, _div_approx(ins, x, y))
    if mode == "rn" and (t == "f64" or _plain_f32(ins)):
        return canonical_nan(a / b)
    x, y = _operands(ins, t, a, b)
    result = _deliver(ins, t, div_rounded(x, y, FORMATS[t], mode))
    return _ieee_nan(result, a / b) if t == "f64" else result


def _rsqrt_f64(x):
    """rsqrt.approx.f64: MUFU.RSQ64H, then one fused correction step exactly as
    ptxas emits it (bit-exact on an H200 for all inputs tried); subnormals are
    scaled by 2**54 first, specials go the slow path's way."""
    subnormal = (x > 0) & (x < F64.min_normal)
    x2 = np.where(subnormal, x * 2.0 ** 54, x)
    y0 = high_word_sfu("rsqrt", x2)
    e = fma_rounded(x2, -(y0 * y0), 1.0, F64, "rn")
    c = fma_rounded(e, 0.375, 0.5, F64, "rn")
    y = fma_rounded(c, y0 * e, y0, F64, "rn")
    y = np.where(subnormal, y * 2.0 ** 27, y)
    return np.select([np.isnan(x), x == 0, x < 0, np.isinf(x)],
                     [x + x, np.copysign(np.inf, x), DEFAULT_NAN_F64, 0.0], y)


@_float_op("rcp", types={"f32", "f64"}, check=_check(_RCP), pipe="sfu")
def rcp(ins, a):
    t = ins.type
    exact = "approx" not in ins.flags
    if exact and _native(ins, t):
        return canonical_nan(np.divide(1, a, dtype=a.dtype))
    (x,) = _operands(ins, t, a)
    if not exact:
        if t == "f64":
            return high_word_sfu("rcp", x)
        return _deliver(ins, t, sfu_approx("rcp", x, F32, FloatEnv.flushing("ftz" in ins.flags)))
    result = _deliver(ins, t, div_rounded(np.ones_like(x), x, FORMATS[t], _mode(ins)))
    if t == "f64":
        return _ieee_nan(result, 1.0 / a)
    return result


@_float_op("sqrt", types={"f32", "f64"}, check=_check(_SQRT), pipe="sfu")
def sqrt(ins, a):
    t = ins.type
    exact = "approx" not in ins.flags
    if exact and _native(ins, t):
        return canonical_nan(np.sqrt(a))
    (x,) = _operands(ins, t, a)
    if not exact:
        return _deliver(ins, t, sfu_approx("sqrt", x))
    result = _deliver(ins, t, sqrt_rounded(x, FORMATS[t], _mode(ins)))
    return _ieee_nan(result, np.sqrt(a)) if t == "f64" else result


@_float_op("rsqrt", types={"f32", "f64"}, check=_check(_RSQRT), pipe="sfu")
def rsqrt(ins, a):
    t = ins.type
    (x,) = _operands(ins, t, a)
    if t == "f64":
        if "ftz" in ins.flags:
            return high_word_sfu("rsqrt", x)
        return _rsqrt_f64(x)
    return _deliver(ins, t, sfu_approx("rsqrt", x))      # rsqrt(-0) = -inf, as PTX says


# ------------------------------------------------ special functions (.approx)

@_float_op("ex2", types=F32_AND_HALF, check=_check(_EX2), pipe="sfu")
@_float_op("tanh", types=F32_AND_HALF, check=_check(_TANH), pipe="sfu")
@_float_op("lg2", "sin", "cos", types={"f32"}, check=_check(_SFU_F32), pipe="sfu")
def special_function(ins, a):
    """f(x) computed in f64 and rounded once to the type (PTX bounds: ex2 2 ulp,
    lg2 2^-22.6 abs, sin/cos 2^-20.9 abs in [-pi, pi], tanh 2^-10.987 rel)."""
    def element(t, a):
        (x,) = _operands(ins, t, a)
        env = PLAIN
        if ins.opcode in ("sin", "cos"):     # as ptxas emits them: FMUL.RZ by f32(1/(2 pi)), then MUFU.SIN/COS,
            x, env = to_revolutions(x), FloatEnv(ftz_out=True)      # which flushes subnormal results
        return _deliver(ins, t, sfu_approx(ins.opcode, x, FORMATS[t], env))
    return _per_element(ins, element, a)


# ------------------------------------------------------------------ min, max

def _check_min_max(ins):
    reason = _check(_MINMAX)(ins)
    if reason:
        return reason
    if ("xorsign" in ins.flags) != ("abs" in ins.flags):
        return ".xorsign and .abs go together"
    if len(ins.srcs) != 2 and (len(ins.srcs) != 3 or ins.type != "f32" or "xorsign" in ins.flags):
        return f"{ins.opcode} takes two sources (three only for .f32 without .xorsign.abs)"
    return None


@_float_op("min", "max", types=F32_AND_HALF | _DOUBLE, check=_check_min_max, pipe="alu")
def min_max(ins, *sources):
    return _per_element(ins, lambda t, *values: float_min_max(t, values, ins.opcode == "min", _env(ins, t),
                                                              xorsign="xorsign" in ins.flags), *sources)


# ---------------------------------------------------- abs, neg, copysign, testp

_SIGN_BIT = {"f16": np.uint16(0x8000), "bf16": np.uint16(0x8000),
             "f32": np.uint32(0x80000000), "f64": np.uint64(1 << 63)}


_EXPONENT_BITS = {"f16": np.uint16(0x7C00), "bf16": np.uint16(0x7F80), "f32": np.uint32(0x7F800000),
                  "f64": np.uint64(0x7FF0000000000000)}


def _bits(values, t):
    values = np.asarray(values)
    if t == "bf16":
        return values
    return values.view({"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[t])


def _from_bits(bits, t):
    return bits if t == "bf16" else bits.view({"f16": np.float16, "f32": np.float32,
                                               "f64": np.float64}[t])


@_float_op("abs", "neg", types=F32_AND_HALF | _DOUBLE, check=_check(_ABSNEG), pipe="alu")
def abs_neg(ins, a):
    """Sign-bit operations, except for NaNs (PTX: unspecified): ptxas emits
    FADD |a|, -0 and the like, so f32/f16/bf16 NaNs become canonical and f64
    NaNs come back quieted with sign and payload kept."""
    def element(t, a):
        bits = _bits(a, t)
        sign = _SIGN_BIT[t]
        exponent = _EXPONENT_BITS[t]
        if _ftz_applies(ins, t):                  # subnormal: exponent field all zero
            bits = np.where((bits & exponent) == 0, bits & sign, bits)
        nan = ((bits & exponent) == exponent) & ((bits & ~(sign | exponent)) != 0)
        out = bits & ~sign if ins.opcode == "abs" else bits ^ sign
        if nan.any():
            quieted = quiet_f64(bits.view(np.float64)).view(np.uint64) if t == "f64" else bits.dtype.type(CANONICAL_NAN[t])
            out = np.where(nan, quieted, out)
        return _from_bits(out, t)
    return _per_element(ins, element, a)


@_float_op("copysign", types={"f32", "f64"}, check=_check(_PLAIN), pipe="alu")
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
    # the GPU counts zero as normal: finite and not subnormal
    "normal": lambda x, tiny: np.isfinite(x) & ~((x != 0) & (np.abs(x) < tiny)),
    "subnormal": lambda x, tiny: (x != 0) & (np.abs(x) < tiny),
}


def _check_testp(ins):
    tests = ins.flags & set(_TESTS)
    if len(ins.types) != 1 or ins.type not in ("f32", "f64"):
        return "testp takes one type, .f32 or .f64"
    if len(tests) != 1 or ins.flags - tests:
        return f"testp needs exactly one of {', '.join('.' + t for t in _TESTS)}"
    return None


@_float_op("testp", types={"f32", "f64"}, check=_check_testp, pipe="alu",
     signature=lambda ins: Signature(("pred",), (ins.type,)))
def testp(ins, a):
    (test,) = ins.flags & set(_TESTS)
    return np.asarray(_TESTS[test](np.asarray(a), FORMATS[ins.type].min_normal), dtype=bool)
