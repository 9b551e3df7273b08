"""Floating SASS in the compiled tier: FADD FMUL FFMA, DADD DMUL DFMA, HFMA2's constant load, and the
conversions I2F/I2FP, F2I, F2F (f32 <-> f64), FRND.

Every form here gives the bits of its NumPy step (sass/executor/floating.py and conversion.py, which
compute through semantics/floating.py, floatbits.py and conversion.py) for every operand:

- f32 arithmetic rounds once; to nearest it is the machine's own f32 add, multiply and fma (a correct
  rounding, as NumPy's and fma_nearest's), and under .RZ/.RM/.RP it is floatbits' rule done per lane:
  the exact result as an f64 pair (TwoSum; an f32 product is exact in f64) rounded to odd, cast to
  f32 to nearest, then stepped one ulp where the mode disagrees (floatbits._round_native). .FTZ
  flushes operands and the result, and for FMUL/FFMA also a result that reached the smallest normal
  only by rounding on the subnormal grid (floatbits.flush_tiny_result: the same operation, rounded
  the same way, on operands scaled by 2^25); .SAT clamps to [0, 1] with NaN and -0 to +0; NaN
  results are the canonical 0x7fffffff.
- f64 arithmetic passes a NaN operand on, quieted, in the order an H200 picks (semantics.floating's
  operand_nan and fma_operand_nan); DADD reads a NaN operand past its -/|| as its register holds it,
  so its source modifiers travel in the row's flags and are applied per lane. Directed DADD follows
  floatbits.add_rounded (TwoSum, one ulp stepped, an overflow of the nearest sum capped where the
  mode rounds toward zero); directed DMUL is the exact product of the significands (128 bits)
  rounded by the mode, which is what mul_rounded's Dekker product and its exact fallback give.
  Directed DFMA stays a NumPy step.
- HFMA2 with RZ for both factors loads a constant (ptxas's `HFMA2.MMA Rd, -RZ, RZ, hi, lo`): its
  word is the NumPy step's, run once when the kernel is loaded, since it reads no register.
- Conversions round as semantics/conversion.py does: integers to floats exactly in every mode,
  floats to integers saturating (NaN to 0, or to the top bit alone from f64 or into 64 bits),
  f64 to f32 keeping a NaN's sign and the top of its payload, f32 to f64 keeping all of it.

Flags of a row: bits 0-1 the rounding mode (to a float: rn rz rm rp; to an integral value: rni rzi
rmi rpi), then FTZ and SAT, DADD's source modifiers, and the conversions' types.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
from numba import njit

from ...machine.compiled.runtime import (RMI, RNI, RPI, RZI, bits64_of, bits_of, f32_of, f64_of, flushed, fused_f32,
                                        fused_f64, integral)
from ..executor.conversion import INTS, ROUND_FLOAT, ROUNDING, _types
from ..executor.floating import MODES, _mode
from ..executor.operands import normalized
from ..executor.state import Group
from ..executor.table import build_step
from .lanes import M32, M64, ZERO64, out32, out_pair, put32, put64, read32, read64, source
from .layout import Unencodable, encodes, family

FAMILY = family("floating")
(FADD, FMUL, FFMA, CONST32, DADD, DMUL, DFMA, I2F, F2I, F2F_NARROW, F2F_WIDE, FRND32, FRND64) = range(13)

U64_ = np.uint64
RN, RZ, RM, RP = RNI, RZI, RMI, RPI         # to a float; to an integral value: rni rzi rmi rpi
MODE_NUMBER = {"rn": RN, "rz": RZ, "rm": RM, "rp": RP, "rni": RN, "rzi": RZ, "rmi": RM, "rpi": RP}
MODE_BITS = 3
FTZ = 1 << 2
SAT = 1 << 3
A_NEG, A_ABS, B_NEG, B_ABS = 1 << 4, 1 << 5, 1 << 6, 1 << 7     # DADD's source modifiers
SRC64 = 1 << 8              # the source is 64 bits (f64, or a 64-bit integer)
DST64 = 1 << 9              # the result is 64 bits
SIGNED = 1 << 10            # the integer side is signed
NAN_TOP = 1 << 11           # F2I: NaN gives the top bit alone
WIDTH_SHIFT = 12            # the integer side's width (8, 16, 32, 64) from this bit

SIGN32_ = U64_(0x80000000)
MAGNITUDE32_ = U64_(0x7FFFFFFF)
CANONICAL32 = U64_(0x7FFFFFFF)
ONE32 = U64_(0x3F800000)
SIGN64_ = U64_(1 << 63)
MAGNITUDE64_ = U64_((1 << 63) - 1)
QUIET64 = U64_(1 << 51)
DEFAULT_NAN64 = U64_(0xFFF8000000000000)
FRACTION64 = U64_((1 << 52) - 1)
HIDDEN64 = U64_(1 << 52)
MIN_NORMAL32 = 2.0 ** -126
MIN_NORMAL64 = 2.0 ** -1022
MAX64 = float(np.finfo(np.float64).max)
TINY_SCALE = 2.0 ** 25      # floatbits.flush_tiny_result's scale for f32 (2^(precision + 1))


# ------------------------------------------------------------------ encoders

F32_OPS = {"FADD": (FADD, 2), "FMUL": (FMUL, 2), "FFMA": (FFMA, 3)}
F64_OPS = {"DADD": (DADD, 2), "DMUL": (DMUL, 2), "DFMA": (DFMA, 3)}


def _operands(ins, arity: int) -> list:
    if len(ins.operands) != arity + 1:
        raise Unencodable("operand form")
    return list(ins.operands)


@encodes("FADD", "FMUL", "FFMA", family_number=FAMILY)
def f32_arithmetic(ins, row):
    op, arity = F32_OPS[ins.opcode]
    if set(ins.mods) - set(MODES) - {"FTZ", "SAT"}:
        raise Unencodable("modifier")
    ops = _operands(ins, arity)
    row.op(op, MODE_NUMBER[_mode(ins)] | (FTZ if "FTZ" in ins.mods else 0) | (SAT if "SAT" in ins.mods else 0))
    row.on_rows().dest(ops[0])
    for operand in ops[1:]:
        row.source(operand, floating=True)


@encodes("DADD", "DMUL", "DFMA", family_number=FAMILY)
def f64_arithmetic(ins, row):
    op, arity = F64_OPS[ins.opcode]
    if set(ins.mods) - set(MODES):
        raise Unencodable("modifier")
    mode = MODE_NUMBER[_mode(ins)]
    if op == DFMA and mode != RN:
        raise Unencodable("DFMA's directed rounding (floatbits.fma_rounded's exact fallback)")
    ops = _operands(ins, arity)
    flags = mode
    row.on_rows().dest(ops[0], 64)
    for k, operand in enumerate(ops[1:]):
        if op == DADD:          # a NaN operand goes on as its register holds it: modifiers per lane
            operand = normalized(operand)
            flags |= (A_NEG if operand.negate else 0) << (2 * k) | (A_ABS if operand.absolute else 0) << (2 * k)
            operand = replace(operand, negate=False, absolute=False)
        row.source(operand, 64, floating=True)
    row.op(op, flags)


def _constant_word(ins) -> int:
    """The word an instruction that reads no register writes: its NumPy step, run once on a warp."""
    step = build_step(ins)
    st = SimpleNamespace(R=np.zeros((256, 32), dtype=np.uint32), UR=np.zeros((64, 32), dtype=np.uint32),
                         P=np.zeros((8, 32), dtype=bool), UP=np.zeros((8, 32), dtype=bool))
    step.run(st, Group(np.arange(32)))
    dst = ins.operands[0]
    if dst.kind != "reg":
        raise Unencodable(f"destination {dst.text}")
    if dst.number is None:
        return 0
    words = st.R[dst.number]
    if (words != words[0]).any():
        raise Unencodable("a constant that differs between lanes")
    return int(words[0])


@encodes("HFMA2", family_number=FAMILY)
def hfma2_constant(ins, row):
    """Only the constant load: both factors RZ (so the product is a zero) and an immediate pair."""
    ops = [normalized(op) for op in ins.operands]
    if len(ops) != 5 or not (ops[1].is_zero_register and ops[2].is_zero_register) or \
            ops[3].kind != "imm" or ops[4].kind != "imm":
        raise Unencodable("HFMA2 of registers")
    if any(op.suffixes for op in ops[1:]):
        raise Unencodable("operand form")
    word = _constant_word(ins)
    row.op(CONST32).on_rows().dest(ops[0])
    row.constant(word)


def _int_flags(name: str) -> int:
    dtype, width = INTS[name]
    return (SIGNED if np.issubdtype(dtype, np.signedinteger) else 0) | width << WIDTH_SHIFT


@encodes("I2F", "I2FP", family_number=FAMILY)
def i2f(ins, row):
    dst_type, src_type = _types(ins, "F32", "S32")
    if dst_type not in ("F32", "F64") or src_type not in INTS:
        raise Unencodable("conversion types")
    ops = _operands(ins, 1)
    if normalized(ops[1]).suffixes:
        raise Unencodable(f"operand {ops[1].text}")
    mode = next((ROUND_FLOAT[m] for m in ins.mods if m in ROUND_FLOAT), "rn")
    width = INTS[src_type][1]
    row.op(I2F, MODE_NUMBER[mode] | _int_flags(src_type) | (SRC64 if width == 64 else 0) |
           (DST64 if dst_type == "F64" else 0))
    row.dest(ops[0])
    row.source(ops[1], 64 if width == 64 else 32)


@encodes("F2I", family_number=FAMILY)
def f2i(ins, row):
    dst_type, src_type = _types(ins, "S32", "F32")
    if dst_type not in INTS or src_type not in ("F32", "F64"):
        raise Unencodable("conversion types")
    ops = _operands(ins, 1)
    rounding = next((ROUNDING[m] for m in ins.mods if m in ROUNDING), "rni")
    width = INTS[dst_type][1]
    flags = MODE_NUMBER[rounding] | _int_flags(dst_type) | (SRC64 if src_type == "F64" else 0) | \
        (DST64 if width == 64 else 0) | (NAN_TOP if src_type == "F64" or width == 64 else 0) | \
        (FTZ if "FTZ" in ins.mods and src_type == "F32" else 0)
    row.op(F2I, flags).dest(ops[0])
    row.source(ops[1], 64 if src_type == "F64" else 32, floating=True)


@encodes("F2F", family_number=FAMILY)
def f2f(ins, row):
    dst_type, src_type = _types(ins, "F32", "F32")
    if (dst_type, src_type) not in (("F32", "F64"), ("F64", "F32")):
        raise Unencodable("conversion types")
    ops = _operands(ins, 1)
    mode = next((ROUND_FLOAT[m] for m in ins.mods if m in ROUND_FLOAT), "rn")
    narrow = src_type == "F64"
    row.op(F2F_NARROW if narrow else F2F_WIDE, MODE_NUMBER[mode] | (FTZ if "FTZ" in ins.mods else 0))
    row.dest(ops[0])
    row.source(ops[1], 64 if narrow else 32, floating=True)


@encodes("FRND", family_number=FAMILY)
def frnd(ins, row):
    if "F16" in ins.mods or "BF16" in ins.mods:
        raise Unencodable("a half's FRND")
    wide = "F64" in ins.mods
    ops = _operands(ins, 1)
    rounding = next((ROUNDING[m] for m in ins.mods if m in ROUNDING), "rni")
    row.op(FRND64 if wide else FRND32, MODE_NUMBER[rounding] | (FTZ if "FTZ" in ins.mods and not wide else 0))
    row.dest(ops[0])
    row.source(ops[1], 64 if wide else 32, floating=True)


# ------------------------------------------------------------------ exact rounding, per lane

@njit
def _f32(bits):
    return f32_of(np.uint32(bits & M32))


@njit
def _sign64(x):
    """The sign bit of a float64 (NaN and zeros included)."""
    return (bits64_of(x) >> U64_(63)) != U64_(0)


@njit
def _two_sum(a, b):
    """(s, err): s = RN(a + b), a + b = s + err exactly (floatbits.two_sum, operation for operation)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


@njit
def _to_odd(s, err):
    """floatbits.round_to_odd: keep s if exact or odd, else step its bits one toward err."""
    bits = bits64_of(s)
    if err != 0.0 and (bits & U64_(1)) == U64_(0) and math.isfinite(err):
        if _sign64(err) != _sign64(s):
            bits = bits - U64_(1)
        else:
            bits = bits + U64_(1)
    return f64_of(bits)


@njit
def _step32(value, up):
    """np.nextafter of a float32 toward +inf (up) or -inf; value is not NaN."""
    bits = U64_(bits_of(value))
    if bits & MAGNITUDE32_ == U64_(0):
        return f32_of(np.uint32(1)) if up else f32_of(np.uint32(0x80000001))
    if ((bits & SIGN32_) == U64_(0)) == up:
        return f32_of(np.uint32(bits + U64_(1)))
    return f32_of(np.uint32(bits - U64_(1)))


@njit
def _round32(s, err, mode):
    """The exact s + err (f64 pair) rounded to f32 by mode: floatbits._round_native."""
    exact = _to_odd(s, err)
    nearest = np.float32(exact)
    if mode == RN:
        return nearest
    wide = np.float64(nearest)
    if mode == RZ:
        if abs(wide) > abs(exact):          # one ulp toward zero
            return f32_of(np.uint32(U64_(bits_of(nearest)) - U64_(1)))
    elif mode == RP:
        if wide < exact:
            return _step32(nearest, True)
    elif wide > exact:
        return _step32(nearest, False)
    return nearest


@njit
def _saturated(value):
    """.SAT: clamped to [0, 1], NaN and -0 to +0 (FloatEnv.outputs); masks, not branches, since a
    sign that varies between lanes mispredicts."""
    positive = U64_(0) - U64_(value > np.float32(0.0))
    at_least_one = U64_(0) - U64_(value >= np.float32(1.0))
    return ((U64_(bits_of(value)) & (at_least_one ^ M64)) | (ONE32 & at_least_one)) & positive


@njit
def _f32_op(op, a, b, c, mode, flags):
    """FADD/FMUL/FFMA of register bits under the row's flags: the result's register bits."""
    ftz = (flags & FTZ) != 0
    x, y, z = _f32(a), _f32(b), _f32(c)
    if ftz:
        x, y, z = flushed(x), flushed(y), flushed(z)
    wx, wy, wz = np.float64(x), np.float64(y), np.float64(z)
    if op == FADD:
        if mode == RN:
            value = x + y
        else:
            s, err = _two_sum(wx, wy)
            value = _round32(s, err, mode)
            if mode == RM and s == 0.0 and (_sign64(wx) or _sign64(wy)):
                value = np.float32(-0.0)
    elif op == FMUL:
        value = x * y if mode == RN else _round32(wx * wy, 0.0, mode)
    else:
        if mode == RN:
            value = fused_f32(x, y, z)
        else:
            product = wx * wy
            s, err = _two_sum(product, wz)
            value = _round32(s, err, mode)
            if mode == RM and s == 0.0 and (_sign64(product) or _sign64(wz)):
                value = np.float32(-0.0)
    if ftz:
        value = flushed(value)
        if op != FADD and abs(np.float64(value)) == MIN_NORMAL32:
            # tiny after rounding with an unbounded exponent: the operation again, 2^25 times larger
            if op == FMUL:
                scaled = _round32((wx * TINY_SCALE) * wy, 0.0, mode)
            else:
                s, err = _two_sum((wx * TINY_SCALE) * wy, wz * TINY_SCALE)
                scaled = _round32(s, err, mode)
            if abs(np.float64(scaled)) < MIN_NORMAL32 * TINY_SCALE:
                value = value * np.float32(0.0)
    if flags & SAT:
        return _saturated(value)
    return CANONICAL32 if value != value else U64_(bits_of(value))


@njit
def _quiet64(x):
    return bits64_of(x) | QUIET64


@njit
def _operand_nan(x, y):
    """semantics.floating.operand_nan: the second NaN operand, else the first, quieted."""
    if y != y:
        return _quiet64(y)
    if x != x:
        return _quiet64(x)
    return DEFAULT_NAN64


@njit
def _fma_operand_nan(x, y, z):
    """semantics.floating.fma_operand_nan: b, then c, then a, quieted."""
    if y != y:
        return _quiet64(y)
    if z != z:
        return _quiet64(z)
    if x != x:
        return _quiet64(x)
    return DEFAULT_NAN64


@njit
def _raw_nan_modified(bits, negate, absolute):
    """DADD's operand: -x and |x| of a number; a NaN as its register holds it."""
    if (bits & MAGNITUDE64_) > U64_(0x7FF0000000000000):
        return f64_of(bits)
    if absolute:
        bits = bits & MAGNITUDE64_
    if negate:
        bits = bits ^ SIGN64_
    return f64_of(bits)


@njit
def _step64(value, up):
    """np.nextafter of a float64 toward +inf (up) or -inf; value is not NaN."""
    bits = bits64_of(value)
    if bits & MAGNITUDE64_ == U64_(0):
        return f64_of(U64_(1)) if up else f64_of(SIGN64_ | U64_(1))
    if ((bits & SIGN64_) == U64_(0)) == up:
        return f64_of(bits + U64_(1))
    return f64_of(bits - U64_(1))


@njit
def _add64_directed(x, y, mode):
    """floatbits.add_rounded for f64 under rz/rm/rp: _step_f64 on the TwoSum pair, then the zero sign."""
    s, err = _two_sum(x, y)
    if not math.isfinite(err):
        err = 0.0
    out = s
    if mode == RP:
        if err > 0.0:
            out = _step64(s, True)
    elif mode == RM:
        if err < 0.0:
            out = _step64(s, False)
    elif err != 0.0 and _sign64(err) != _sign64(s):
        out = _step64(s, _sign64(s))            # toward zero
    if math.isinf(s) and math.isfinite(x) and math.isfinite(y):
        negative = s < 0.0
        away = (mode == RP and not negative) or (mode == RM and negative)
        if not away:
            out = -MAX64 if negative else MAX64
    if mode == RM and s == 0.0 and (_sign64(x) or _sign64(y)):
        out = -0.0
    return out


@njit
def _bit_length(x):
    """Bits of a uint64 (0 for 0)."""
    n = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if x >> U64_(shift):
            x = x >> U64_(shift)
            n += shift
    return n + 1 if x else n


@njit
def _significand(x):
    """A finite nonzero f64 as (integer significand, exponent): x = m * 2^e."""
    bits = bits64_of(x)
    exponent = np.int64((bits >> U64_(52)) & U64_(0x7FF))
    fraction = bits & FRACTION64
    if exponent == 0:
        return fraction, np.int64(-1074)
    return fraction | HIDDEN64, exponent - np.int64(1075)


@njit
def _mul64_directed(x, y, mode):
    """x * y rounded once by rz/rm/rp: the 106-bit product of the significands, rounded at the
    f64 grid (subnormal included) with a guard and a sticky bit; overflow to inf or the largest
    finite value as the mode says (what floatbits.mul_rounded computes, Fraction lanes included)."""
    if not (math.isfinite(x) and math.isfinite(y)) or x == 0.0 or y == 0.0:
        return x * y
    negative = _sign64(x) != _sign64(y)
    ma, ea = _significand(x)
    mb, eb = _significand(y)
    half = U64_(0xFFFFFFFF)
    a0, a1, b0, b1 = ma & half, ma >> U64_(32), mb & half, mb >> U64_(32)
    low = a0 * b0
    middle = a0 * b1 + a1 * b0                  # < 2^54
    high = a1 * b1 + (middle >> U64_(32))
    shifted_middle = (middle & half) << U64_(32)
    low_sum = low + shifted_middle
    if low_sum < low:
        high += U64_(1)
    low = low_sum
    e = ea + eb
    length = (64 + _bit_length(high)) if high else _bit_length(low)
    top = np.int64(length) - 1 + e
    quantum = max(top, np.int64(-1022)) - 52
    shift = quantum - e
    if shift <= 0:
        return math.ldexp(np.float64(low), e) * (-1.0 if negative else 1.0)
    # q = P >> shift (< 2^53), guard = bit shift - 1, sticky = any bit below it
    if shift >= 128:
        q, guard, sticky = U64_(0), False, True
    else:
        if shift >= 64:
            q = high >> U64_(shift - 64)
        else:
            q = (low >> U64_(shift)) | ((high << U64_(64 - shift)) if high else U64_(0))
        g = shift - 1
        if g >= 64:
            guard = ((high >> U64_(g - 64)) & U64_(1)) != U64_(0)
            sticky = low != U64_(0) or (high & ((U64_(1) << U64_(g - 64)) - U64_(1))) != U64_(0)
        else:
            guard = ((low >> U64_(g)) & U64_(1)) != U64_(0)
            sticky = (low & ((U64_(1) << U64_(g)) - U64_(1))) != U64_(0)
    inexact = guard or sticky
    if mode == RP:
        up = inexact and not negative
    elif mode == RM:
        up = inexact and negative
    else:
        up = False
    magnitude = math.ldexp(np.float64(q + (U64_(1) if up else U64_(0))), quantum)
    if magnitude > MAX64:
        away = (mode == RP and not negative) or (mode == RM and negative)
        magnitude = math.inf if away else MAX64
    return -magnitude if negative else magnitude


@njit
def _int_to_float(magnitude, negative, mode, precision):
    """An integer (magnitude, sign) rounded to `precision` significand bits by mode
    (floatbits.round_scaled at exponent 0): exactly representable in the result's type."""
    if magnitude >> U64_(precision) == U64_(0):
        value = np.float64(magnitude)                   # exact (zero is +0)
    else:
        shift = _bit_length(magnitude) - precision
        q = magnitude >> U64_(shift)
        r = magnitude & ((U64_(1) << U64_(shift)) - U64_(1))
        half = U64_(1) << U64_(shift - 1)
        if mode == RN:
            up = r > half or (r == half and (q & U64_(1)) == U64_(1))
        elif mode == RP:
            up = r != U64_(0) and not negative
        elif mode == RM:
            up = r != U64_(0) and negative
        else:
            up = False
        value = math.ldexp(np.float64(q + (U64_(1) if up else U64_(0))), shift)
    return -value if negative else value


@njit
def _float_to_int_bits(x, mode, flags, low, high):
    """semantics.conversion.float_to_int and F2I's store: rounded, saturated to [low, high) (the
    type's range as floats, high = max + 1), NaN to 0 or the top bit; a narrow result extended by
    its type to 32 bits."""
    width = (flags >> WIDTH_SHIFT) & 127
    top = U64_(1) << U64_(width - 1)
    r = integral(x, mode)
    if r != r:
        if flags & NAN_TOP:
            bits = (U64_(0) - top) if flags & SIGNED else top
        else:
            bits = U64_(0)
    elif r >= high:
        bits = (top - U64_(1)) if flags & SIGNED else (top - U64_(1)) | top
    elif r < low:
        bits = (U64_(0) - top) if flags & SIGNED else U64_(0)
    elif flags & SIGNED or width < 64:
        bits = U64_(np.int64(r))                # two's complement, without a branch on the sign
    else:
        bits = U64_(r)
    return bits if width == 64 else bits & M32


@njit
def _flush_f64(x, smallest):
    """floatbits.flush_subnormal of a float64 below `smallest` (the format's smallest normal)."""
    if x != 0.0 and abs(x) < smallest:
        return -0.0 if _sign64(x) else 0.0
    return x


@njit
def _int_to_float_bits(v, flags, mode):
    """I2F of an integer register (or pair): its type's bits of v, rounded to f32 or f64."""
    width = (flags >> WIDTH_SHIFT) & 127
    field = M64 if width == 64 else (U64_(1) << U64_(width)) - U64_(1)
    v = v & field
    negative = (flags & SIGNED) != 0 and (v >> U64_(width - 1)) != U64_(0)
    magnitude = ((U64_(0) - v) & field) if negative else v
    if flags & DST64:
        return bits64_of(_int_to_float(magnitude, negative, mode, 53))
    return U64_(bits_of(np.float32(_int_to_float(magnitude, negative, mode, 24))))


@njit
def _f32_source(bits, flags):
    """An f32 operand as float64, flushed under .FTZ."""
    x = np.float64(_f32(bits))
    if flags & FTZ:
        x = _flush_f64(x, MIN_NORMAL32)
    return x


@njit
def _narrowed(bits, mode, flags):
    """F2F.F32.F64: rounded by mode (.FTZ: operand and result flushed); a NaN quieted, its sign and
    the top of its payload kept (conversion._narrowed_nan)."""
    x = f64_of(bits)
    if flags & FTZ:
        x = _flush_f64(x, MIN_NORMAL64)
    value = _round32(x, 0.0, mode)
    if flags & FTZ:
        value = flushed(value)
    out = U64_(bits_of(value))
    if x != x:
        out = ((bits >> U64_(63)) << U64_(31)) | U64_(0x7FC00000) | ((bits & FRACTION64) >> U64_(29))
    return out


@njit
def _widened(bits, flags):
    """F2F.F64.F32: exact (.FTZ: a subnormal operand flushed); a NaN quieted, its sign and payload
    kept (conversion._widened_nan)."""
    value = _f32(bits)
    if flags & FTZ:
        value = flushed(value)
    out = bits64_of(np.float64(value))
    if value != value:
        out = ((bits >> U64_(31)) << U64_(63)) | U64_(0x7FF8000000000000) | ((bits & U64_(0x7FFFFF)) << U64_(29))
    return out


# ------------------------------------------------------------------ the family's machine code

@njit(nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    op, flags = c[1], c[2]
    mode = flags & MODE_BITS
    s0, s1, s2 = source(c, 0), source(c, 1), source(c, 2)
    if op == FADD or op == FMUL or op == FFMA:
        o = out32(c, 0, R, UR, scratch)
        if flags == 0 and op == FADD:
            for j in range(m):
                lane = lanes[j]
                value = _f32(read32(s0, R, UR, values, lane)) + _f32(read32(s1, R, UR, values, lane))
                put32(o, lane, CANONICAL32 if value != value else U64_(bits_of(value)))
        elif flags == 0 and op == FMUL:
            for j in range(m):
                lane = lanes[j]
                value = _f32(read32(s0, R, UR, values, lane)) * _f32(read32(s1, R, UR, values, lane))
                put32(o, lane, CANONICAL32 if value != value else U64_(bits_of(value)))
        elif flags == 0:
            for j in range(m):
                lane = lanes[j]
                value = fused_f32(_f32(read32(s0, R, UR, values, lane)), _f32(read32(s1, R, UR, values, lane)),
                                  _f32(read32(s2, R, UR, values, lane)))
                put32(o, lane, CANONICAL32 if value != value else U64_(bits_of(value)))
        elif op == FFMA:
            for j in range(m):
                lane = lanes[j]
                put32(o, lane, _f32_op(op, read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane),
                                       read32(s2, R, UR, values, lane), mode, flags))
        else:
            for j in range(m):
                lane = lanes[j]
                put32(o, lane, _f32_op(op, read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane),
                                       U64_(0), mode, flags))
    elif op == CONST32:
        o = out32(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            put32(o, lane, read32(s0, R, UR, values, lane))
    elif op == DADD:
        low, high = out_pair(c, 0, R, UR, scratch)
        a_neg, a_abs, b_neg, b_abs = (flags & A_NEG) != 0, (flags & A_ABS) != 0, (flags & B_NEG) != 0, \
            (flags & B_ABS) != 0
        for j in range(m):
            lane = lanes[j]
            x = _raw_nan_modified(read64(s0, R, UR, values, lane), a_neg, a_abs)
            y = _raw_nan_modified(read64(s1, R, UR, values, lane), b_neg, b_abs)
            value = x + y if mode == RN else _add64_directed(x, y, mode)
            put64(low, high, lane, _operand_nan(x, y) if value != value else bits64_of(value))
    elif op == DMUL:
        low, high = out_pair(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            x, y = f64_of(read64(s0, R, UR, values, lane)), f64_of(read64(s1, R, UR, values, lane))
            value = x * y if mode == RN else _mul64_directed(x, y, mode)
            put64(low, high, lane, _operand_nan(x, y) if value != value else bits64_of(value))
    elif op == DFMA:
        low, high = out_pair(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            x, y, z = f64_of(read64(s0, R, UR, values, lane)), f64_of(read64(s1, R, UR, values, lane)), \
                f64_of(read64(s2, R, UR, values, lane))
            value = fused_f64(x, y, z)
            put64(low, high, lane, _fma_operand_nan(x, y, z) if value != value else bits64_of(value))
    elif op == I2F:
        width = (flags >> WIDTH_SHIFT) & 127
        source64, result64 = width == 64, (flags & DST64) != 0
        if result64:
            low, high = out_pair(c, 0, R, UR, scratch)
        o = out32(c, 0, R, UR, scratch)
        if source64 and result64:
            for j in range(m):
                lane = lanes[j]
                put64(low, high, lane, _int_to_float_bits(read64(s0, R, UR, values, lane), flags, mode))
        elif source64:
            for j in range(m):
                lane = lanes[j]
                put32(o, lane, _int_to_float_bits(read64(s0, R, UR, values, lane), flags, mode))
        elif result64:
            for j in range(m):
                lane = lanes[j]
                put64(low, high, lane, _int_to_float_bits(read32(s0, R, UR, values, lane), flags, mode))
        else:
            for j in range(m):
                lane = lanes[j]
                put32(o, lane, _int_to_float_bits(read32(s0, R, UR, values, lane), flags, mode))
    elif op == F2I:
        width = (flags >> WIDTH_SHIFT) & 127
        low_limit = -math.ldexp(1.0, width - 1) if flags & SIGNED else 0.0
        high_limit = math.ldexp(1.0, width - 1) if flags & SIGNED else math.ldexp(1.0, width)
        source64, result64 = (flags & SRC64) != 0, (flags & DST64) != 0
        if result64:
            low, high = out_pair(c, 0, R, UR, scratch)
        o = out32(c, 0, R, UR, scratch)
        if source64 and result64:
            for j in range(m):
                lane = lanes[j]
                put64(low, high, lane, _float_to_int_bits(f64_of(read64(s0, R, UR, values, lane)), mode, flags,
                                                          low_limit, high_limit))
        elif source64:
            for j in range(m):
                lane = lanes[j]
                put32(o, lane, _float_to_int_bits(f64_of(read64(s0, R, UR, values, lane)), mode, flags,
                                                  low_limit, high_limit))
        elif result64:
            for j in range(m):
                lane = lanes[j]
                put64(low, high, lane, _float_to_int_bits(_f32_source(read32(s0, R, UR, values, lane), flags), mode,
                                                          flags, low_limit, high_limit))
        else:
            for j in range(m):
                lane = lanes[j]
                put32(o, lane, _float_to_int_bits(_f32_source(read32(s0, R, UR, values, lane), flags), mode, flags,
                                                  low_limit, high_limit))
    elif op == F2F_NARROW:
        o = out32(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            put32(o, lane, _narrowed(read64(s0, R, UR, values, lane), mode, flags))
    elif op == F2F_WIDE:
        low, high = out_pair(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            put64(low, high, lane, _widened(read32(s0, R, UR, values, lane), flags))
    elif op == FRND32:
        ftz = (flags & FTZ) != 0
        o = out32(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            x = np.float64(_f32(read32(s0, R, UR, values, lane)))
            if ftz:
                x = _flush_f64(x, MIN_NORMAL32)
            r = integral(x, mode)
            put32(o, lane, CANONICAL32 if r != r else U64_(bits_of(np.float32(r))))
    elif op == FRND64:
        low, high = out_pair(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            bits = read64(s0, R, UR, values, lane)
            r = integral(f64_of(bits), mode)
            put64(low, high, lane, (bits | QUIET64) if r != r else bits64_of(r))


# ------------------------------------------------------------------ per-lane forms
# One lane of an operation run on rows: run_rows' loops call them, and so does the code fused.py
# generates. (op, flags, the sources' uint64 bits in order) -> the result's bits.


@njit
def f32_lane(op, flags, a, b, c):
    """FADD, FMUL (c unused), FFMA of register bits: to nearest with and without .FTZ on the machine's
    own f32 arithmetic (.FTZ's tiny-after-rounding case through _f32_op), every other form _f32_op's."""
    if flags == 0:
        if op == FADD:
            value = _f32(a) + _f32(b)
        elif op == FMUL:
            value = _f32(a) * _f32(b)
        else:
            value = fused_f32(_f32(a), _f32(b), _f32(c))
        return CANONICAL32 if value != value else U64_(bits_of(value))
    if flags == FTZ:
        if op == FADD:
            value = flushed(flushed(_f32(a)) + flushed(_f32(b)))
            return CANONICAL32 if value != value else U64_(bits_of(value))
        if op == FMUL:
            value = flushed(flushed(_f32(a)) * flushed(_f32(b)))
        else:
            value = flushed(fused_f32(flushed(_f32(a)), flushed(_f32(b)), flushed(_f32(c))))
        return _f32_op(op, a, b, c, RN, FTZ) if abs(np.float64(value)) == MIN_NORMAL32 else \
            CANONICAL32 if value != value else U64_(bits_of(value))
    return _f32_op(op, a, b, c, flags & MODE_BITS, flags)


@njit
def const_lane(op, flags, x):
    """HFMA2's constant load: the word it loads."""
    return x


@njit
def f64_lane(op, flags, a, b, c):
    """DADD (its source modifiers in the flags, applied past a NaN), DMUL (c unused), DFMA of pair bits."""
    mode = flags & MODE_BITS
    if op == DADD:
        x = _raw_nan_modified(a, (flags & A_NEG) != 0, (flags & A_ABS) != 0)
        y = _raw_nan_modified(b, (flags & B_NEG) != 0, (flags & B_ABS) != 0)
        value = x + y if mode == RN else _add64_directed(x, y, mode)
        return _operand_nan(x, y) if value != value else bits64_of(value)
    if op == DMUL:
        x, y = f64_of(a), f64_of(b)
        value = x * y if mode == RN else _mul64_directed(x, y, mode)
        return _operand_nan(x, y) if value != value else bits64_of(value)
    x, y, z = f64_of(a), f64_of(b), f64_of(c)
    value = fused_f64(x, y, z)
    return _fma_operand_nan(x, y, z) if value != value else bits64_of(value)


# op -> (its per-lane form, its sources: v a value, 0 a zero in place of a source the row has not;
# its results likewise)
LANES = {FADD: (f32_lane, "vv0", "v"), FMUL: (f32_lane, "vv0", "v"), FFMA: (f32_lane, "vvv", "v"),
         CONST32: (const_lane, "v", "v"), DADD: (f64_lane, "vv0", "v"), DMUL: (f64_lane, "vv0", "v"),
         DFMA: (f64_lane, "vvv", "v")}


@njit(nogil=True)
def run_rows(c, T, TB, O, OB, m):
    """FADD, FMUL, FFMA, HFMA2's constant and DADD, DMUL, DFMA on gathered rows (lanes.py): sources
    T[0..2] into O[0], each lane through its per-lane form; the loops of the common f32 forms have
    their operation and flags as constants, so each compiles without the others' branches."""
    op, flags = c[1], c[2]
    t0, t1, t2, o0 = T[0], T[1], T[2], O[0]
    if op == FADD and flags == 0:
        for j in range(m):
            o0[j] = f32_lane(FADD, 0, t0[j], t1[j], ZERO64)
    elif op == FMUL and flags == 0:
        for j in range(m):
            o0[j] = f32_lane(FMUL, 0, t0[j], t1[j], ZERO64)
    elif op == FFMA and flags == 0:
        for j in range(m):
            o0[j] = f32_lane(FFMA, 0, t0[j], t1[j], t2[j])
    elif op == FFMA and flags == FTZ:
        for j in range(m):
            o0[j] = f32_lane(FFMA, FTZ, t0[j], t1[j], t2[j])
    elif op == FMUL and flags == FTZ:
        for j in range(m):
            o0[j] = f32_lane(FMUL, FTZ, t0[j], t1[j], ZERO64)
    elif op == FADD and flags == FTZ:
        for j in range(m):
            o0[j] = f32_lane(FADD, FTZ, t0[j], t1[j], ZERO64)
    elif op == FADD or op == FMUL:
        for j in range(m):
            o0[j] = f32_lane(op, flags, t0[j], t1[j], ZERO64)
    elif op == FFMA:
        for j in range(m):
            o0[j] = f32_lane(op, flags, t0[j], t1[j], t2[j])
    elif op == CONST32:
        for j in range(m):
            o0[j] = const_lane(op, flags, t0[j])
    elif op == DADD or op == DMUL:
        for j in range(m):
            o0[j] = f64_lane(op, flags, t0[j], t1[j], ZERO64)
    elif op == DFMA:
        for j in range(m):
            o0[j] = f64_lane(op, flags, t0[j], t1[j], t2[j])
