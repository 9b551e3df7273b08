"""Integer arithmetic: add/sub and their carry forms, mul/mad (and the 24-bit
kinds), div/rem, min/max, abs/neg, sad, dp4a/dp2a, and the bit-counting and
bit-field ops popc, clz, bfind, brev, bfe, bfi, bmsk, fns and szext.

NumPy's same-width integer arithmetic already wraps like PTX's. What the
SASS executor computes too (carries, the high half of a product, min/max,
bit counts, bmsk and szext) lives in semantics/integer.py; what only PTX
has is spelled out here: saturation, division (NumPy floors and says nothing
sensible about x/0; PTX truncates toward zero), mul24, sad, dp4a and bit fields.
"""

from __future__ import annotations

import numpy as np

from ...ptx.types import TYPES
from ...semantics import integer as bits
from ...semantics.integer import as_unsigned, low_mask, negate, shift_left, shift_right
from .logic import no_flags
from .table import Signature, same_type, value_op

ARITH_TYPES = frozenset({"u16", "u32", "u64", "s16", "s32", "s64"})
CARRY_TYPES = frozenset({"u32", "u64", "s32", "s64"})
SIGNED_TYPES = frozenset({"s16", "s32", "s64"})
WIDE_TYPE = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

# What x/0 and x%0 give, per (opcode, signed), as a function of the dividend.
# PTX leaves it undefined. Measured on an H200 (sm_90, driver 580.159, PTX
# JIT-compiled by the driver): every type, signed or not, gives all ones
# (-1 for signed) for both div and rem, whatever the dividend.
def _all_ones(dividend):
    return ~np.zeros_like(dividend)


DIVIDE_BY_ZERO = {
    ("div", False): _all_ones,
    ("div", True): _all_ones,
    ("rem", False): _all_ones,
    ("rem", True): _all_ones,
}

# bfe/bfi read position and length through this mask, by operand width. The
# manual restricts both to 0..255 (mask 0xff); the H200 does so for 32-bit
# operands, but its 64-bit forms use the whole u32 (pos 260 extracts nothing
# rather than starting at bit 4). Measured as for DIVIDE_BY_ZERO.
BIT_FIELD_OPERAND_MASK = {32: 0xFF, 64: 0xFFFFFFFF}


# ------------------------------------------------------------------ helpers

def _exact(values) -> np.ndarray:
    """Widen to 64 bits of the same signedness (exact for 32-bit products)."""
    values = np.asarray(values)
    return values.astype(np.int64 if values.dtype.kind == "i" else np.uint64)


def _wrap(values, type_name: str) -> np.ndarray:
    """The low bits of a wider result read as `type_name` (two's complement wrap)."""
    t = TYPES[type_name]
    return np.asarray(values).astype(t.storage).view(t.dtype)


def _saturate_s32(values) -> np.ndarray:
    """Clamp an exact (int64) result into s32, as .sat does."""
    return np.clip(values, INT32_MIN, INT32_MAX).astype(np.int32)


def _magnitude(values) -> np.ndarray:
    """|x| as an unsigned value of the same width (|INT_MIN| fits there)."""
    values = np.asarray(values)
    unsigned = as_unsigned(values)
    if values.dtype.kind != "i":
        return unsigned
    return np.where(values < 0, unsigned.dtype.type(0) - unsigned, unsigned)


def _carry_flag(cc, dtype) -> np.ndarray:
    return (np.asarray(cc) & np.uint32(1)).astype(dtype)


# ------------------------------------------------------------------ add, sub (+ carry)

def _carry_signature(operands: int):
    """(t,)*operands sources, plus CC.CF in for the c-forms and out for .cc."""
    def signature(ins) -> Signature:
        t = ins.type
        reads = ins.opcode in ("addc", "subc", "madc")
        writes = "cc" in ins.flags
        srcs = (t,) * operands + (("cc",) if reads else ())
        dsts = (t,) + (("cc",) if writes else ())
        return Signature(dsts, srcs, writes_cc=writes, reads_cc=reads)
    return signature


def _check_add_sub(ins):
    if "sat" in ins.flags and (ins.type != "s32" or "cc" in ins.flags):
        return ".sat applies only to add/sub.s32 without .cc"
    if "cc" in ins.flags and ins.type not in CARRY_TYPES:
        return ".cc needs a 32- or 64-bit type"
    return no_flags("sat", "cc")(ins)


@value_op("add", "sub", family="integer", signature=_carry_signature(2),
          types=ARITH_TYPES, check=_check_add_sub)
def add_sub(ins, a, b):
    """Wrap-around a ± b; .sat.s32 clamps the exact result; .cc also returns CC.CF."""
    if "sat" in ins.flags:
        exact = _exact(a) + _exact(b) if ins.opcode == "add" else _exact(a) - _exact(b)
        return _saturate_s32(exact)
    if "cc" in ins.flags:
        ua, ub = as_unsigned(a), as_unsigned(b)
        if ins.opcode == "add":
            total, carry = bits.add_with_carry([ua, ub], ua.dtype)
        else:
            total, carry = bits.subtract_with_carry(ua, ub, 1)
        return total.view(np.asarray(a).dtype), carry
    return a + b if ins.opcode == "add" else a - b


@value_op("addc", "subc", family="integer", signature=_carry_signature(2),
          types=CARRY_TYPES, check=no_flags("cc"))
def add_sub_carry(ins, a, b, carry_in):
    """a + b + CC.CF, or a - b - !CC.CF (CF is a carry: semantics/integer.subtract_with_carry)."""
    ua, ub = as_unsigned(a), as_unsigned(b)
    flag = _carry_flag(carry_in, ua.dtype)
    if ins.opcode == "addc":
        total, carry = bits.add_with_carry([ua, ub, flag], ua.dtype)
    else:
        total, carry = bits.subtract_with_carry(ua, ub, flag)
    total = total.view(np.asarray(a).dtype)
    return (total, carry) if "cc" in ins.flags else total


# ------------------------------------------------------------------ mul, mad

def _product(a, b, mode: str, type_name: str):
    """The .lo, .hi or .wide part of a*b for operands of `type_name`."""
    a = np.asarray(a)
    signed = a.dtype.kind == "i"
    if mode == "lo":
        return bits.multiply_low(a, b).view(a.dtype)
    if mode == "hi":
        return bits.multiply_high(a, b, signed).view(a.dtype)
    return bits.multiply_wide(a, b, signed).view(TYPES[WIDE_TYPE[type_name]].dtype)


def _mode(ins) -> str:
    flags = ins.flags                   # (the check made sure exactly one is there)
    return "lo" if "lo" in flags else "hi" if "hi" in flags else "wide"


def _check_mul_mad(ins):
    modes = ins.flags & {"lo", "hi", "wide"}
    if len(modes) != 1:
        return f"{ins.opcode}.{ins.type} needs exactly one of .lo/.hi/.wide"
    if "wide" in modes and ins.type not in WIDE_TYPE:
        return ".wide needs a 16- or 32-bit type"
    is_mad_hi_s32 = ins.opcode == "mad" and modes == {"hi"} and ins.type == "s32"
    if "sat" in ins.flags and not is_mad_hi_s32:
        return ".sat is only mad.hi.sat.s32"
    if "cc" in ins.flags and ("wide" in modes or ins.type not in CARRY_TYPES):
        return "mad.cc needs .lo/.hi and a 32- or 64-bit type"
    allowed = {"mul": ("lo", "hi", "wide"), "mad": ("lo", "hi", "wide", "sat", "cc")}
    return no_flags(*allowed[ins.opcode])(ins)


def _mul_mad_signature(ins) -> Signature:
    t = ins.type
    if "wide" in ins.flags:
        wide = WIDE_TYPE.get(t, t)
        return Signature((wide,), (t, t) + ((wide,) if ins.opcode == "mad" else ()))
    if ins.opcode == "mad":
        return _carry_signature(3)(ins)
    return same_type(ins)


@value_op("mul", family="integer", signature=_mul_mad_signature, types=ARITH_TYPES,
          check=_check_mul_mad)
def mul(ins, a, b):
    if "wide" in ins.flags:                 # (the commonest: an index times an element size)
        a = np.asarray(a)
        return bits.multiply_wide(a, b, a.dtype.kind == "i").view(TYPES[WIDE_TYPE[ins.type]].dtype)
    return _product(a, b, _mode(ins), ins.type)


@value_op("mad", family="integer", signature=_mul_mad_signature, types=ARITH_TYPES,
          check=_check_mul_mad)
def mad(ins, a, b, c):
    """part(a*b) + c, wrapping; .hi.sat.s32 clamps; .cc gives the carry of the addition."""
    part = _product(a, b, _mode(ins), ins.type)
    if "sat" in ins.flags:
        return _saturate_s32(_exact(part) + _exact(c))
    if "cc" in ins.flags:
        unsigned_part = as_unsigned(part)
        total, carry = bits.add_with_carry([unsigned_part, as_unsigned(c)], unsigned_part.dtype)
        return total.view(part.dtype), carry
    return part + np.asarray(c)


def _check_madc(ins):
    if len(ins.flags & {"lo", "hi"}) != 1:
        return "madc needs exactly one of .lo/.hi"
    return no_flags("lo", "hi", "cc")(ins)


@value_op("madc", family="integer", signature=_carry_signature(3), types=CARRY_TYPES,
          check=_check_madc)
def madc(ins, a, b, c, carry_in):
    """part(a*b) + c + CC.CF, optionally writing the carry out."""
    part = as_unsigned(_product(a, b, _mode(ins), ins.type))
    total, carry = bits.add_with_carry([part, as_unsigned(c), _carry_flag(carry_in, part.dtype)], part.dtype)
    total = total.view(np.asarray(a).dtype)
    return (total, carry) if "cc" in ins.flags else total


# ------------------------------------------------------------------ mul24, mad24

def _product24(a, b):
    """Exact 48-bit product of the low 24 bits (sign-extended from bit 23 for .s32)."""
    a, b = _exact(a), _exact(b)
    if a.dtype.kind == "i":
        forty = np.int64(40)                        # move bit 23 to the sign, then back
        return ((a << forty) >> forty) * ((b << forty) >> forty)
    low24 = np.uint64(0xFFFFFF)
    return (a & low24) * (b & low24)


def _part24(a, b, ins):
    """.lo: bits 31..0 of the 48-bit product; .hi: bits 47..16."""
    product = _product24(a, b)
    if "hi" in ins.flags:
        product = product >> product.dtype.type(16)
    return _wrap(product, ins.type)


def _check_24(ins):
    if len(ins.flags & {"lo", "hi"}) != 1:
        return f"{ins.opcode} needs exactly one of .lo/.hi"
    is_mad24_hi_s32 = ins.opcode == "mad24" and "hi" in ins.flags and ins.type == "s32"
    if "sat" in ins.flags and not is_mad24_hi_s32:
        return ".sat is only mad24.hi.sat.s32"
    return no_flags("lo", "hi", "sat")(ins)


@value_op("mul24", family="integer", signature=same_type, types={"u32", "s32"}, check=_check_24)
def mul24(ins, a, b):
    return _part24(a, b, ins)


@value_op("mad24", family="integer", signature=same_type, types={"u32", "s32"}, check=_check_24)
def mad24(ins, a, b, c):
    part = _part24(a, b, ins)
    if "sat" in ins.flags:
        return _saturate_s32(_exact(part) + _exact(c))
    return part + np.asarray(c)


# ------------------------------------------------------------------ div, rem

@value_op("div", "rem", family="integer", signature=same_type, types=ARITH_TYPES,
          check=no_flags())
def div_rem(ins, a, b):
    """Truncating division (NumPy floors): quotient of magnitudes, sign applied after.

    INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0; x/0 follows DIVIDE_BY_ZERO.
    """
    a, b = np.asarray(a), np.asarray(b)
    signed = a.dtype.kind == "i"
    by_zero = b == 0
    safe_b = np.where(by_zero, b.dtype.type(1), b)
    a_mag, b_mag = _magnitude(a), _magnitude(safe_b)
    if ins.opcode == "div":
        result = a_mag // b_mag
        if signed:
            result = np.where((a < 0) != (safe_b < 0), negate(result), result)
    else:
        result = a_mag % b_mag                      # the remainder takes the dividend's sign
        if signed:
            result = np.where(a < 0, negate(result), result)
    result = np.asarray(result).view(a.dtype)
    return np.where(by_zero, DIVIDE_BY_ZERO[(ins.opcode, signed)](a), result)


# ------------------------------------------------------------------ min, max, abs, neg, sad

def _check_min_max(ins):
    if "relu" in ins.flags and ins.type != "s32":
        return ".relu is supported only on .s32 (packed .s16x2 is not)"
    return no_flags("relu")(ins)


@value_op("min", "max", family="integer", signature=same_type, types=ARITH_TYPES,
          check=_check_min_max)
def min_max(ins, a, b):
    """Signed or unsigned by the operand dtype; .relu clamps the result at 0."""
    a = np.asarray(a)
    return bits.min_max([a, b], ins.opcode == "min", a.dtype.kind == "i", "relu" in ins.flags).view(a.dtype)


@value_op("abs", "neg", family="integer", signature=same_type, types=SIGNED_TYPES,
          check=no_flags())
def abs_neg(ins, a):
    """abs/neg of INT_MIN wrap to INT_MIN."""
    a = np.asarray(a)
    if ins.opcode == "neg":
        return negate(a)
    return bits.absolute(a).view(a.dtype)


@value_op("sad", family="integer", signature=same_type, types=ARITH_TYPES, check=no_flags())
def sad(ins, a, b, c):
    """c + |a - b|, the difference taken exactly (unsigned) before wrapping the sum."""
    a = np.asarray(a)
    return bits.absolute_difference_sum(a, b, c, a.dtype.kind == "i").view(a.dtype)


# ------------------------------------------------------------------ dp4a, dp2a

def _dot_types(ins):
    a_type, b_type = ins.types
    return a_type, b_type, ("u32" if a_type == b_type == "u32" else "s32")


def _dot_signature(ins) -> Signature:
    a_type, b_type, c_type = _dot_types(ins)
    return Signature((c_type,), (a_type, b_type, c_type))


def _check_dot(ins):
    if len(ins.types) != 2:
        return f"{ins.opcode} needs .atype.btype"
    if ins.opcode == "dp2a" and len(ins.flags & {"lo", "hi"}) != 1:
        return "dp2a needs exactly one of .lo/.hi"
    extra = ins.flags - ({"lo", "hi"} if ins.opcode == "dp2a" else set())
    return f"modifier(s) {sorted(extra)} not supported on {ins.opcode}" if extra else None


@value_op("dp4a", "dp2a", family="integer", signature=_dot_signature,
          types={"u32", "s32"}, check=_check_dot)
def dot_product_accumulate(ins, a, b, c):
    """c + sum of lane products: dp4a bytes x bytes; dp2a 16-bit halves of a x
    bytes 0-1 (.lo) or 2-3 (.hi) of b. Exact, then wrapped to 32 bits."""
    a_type, b_type, c_type = _dot_types(ins)
    a, b, c = np.broadcast_arrays(a, b, c)
    words = bits.dot_accumulate(np.ravel(a), np.ravel(b), np.ravel(c), 8 if ins.opcode == "dp4a" else 16,
                                a_type == "s32", b_type == "s32", "hi" in ins.flags)
    return _wrap(words.reshape(a.shape), c_type)


# ------------------------------------------------------------------ popc, clz, bfind, brev

BIT_COUNT_TYPES = frozenset({"b32", "b64"})
BFIND_TYPES = frozenset({"u32", "u64", "s32", "s64"})


def _count_signature(ins) -> Signature:
    """popc, clz and bfind count bits of any width into a .u32."""
    return Signature(("u32",), (ins.type,))


@value_op("popc", family="integer", signature=_count_signature, types=BIT_COUNT_TYPES,
          check=no_flags())
def popc(ins, a):
    return bits.popcount(a)


@value_op("clz", family="integer", signature=_count_signature, types=BIT_COUNT_TYPES,
          check=no_flags())
def clz(ins, a):
    return bits.count_leading_zeros(a)


@value_op("bfind", family="integer", signature=_count_signature, types=BFIND_TYPES,
          check=no_flags("shiftamt"))
def bfind(ins, a):
    """Position of the most significant non-sign bit; 0xffffffff if there is none (.shiftamt:
    width-1-position)."""
    return bits.find_leading_bit(a, np.asarray(a).dtype.kind == "i", "shiftamt" in ins.flags)


@value_op("brev", family="integer", signature=same_type, types=BIT_COUNT_TYPES,
          check=no_flags())
def brev(ins, a):
    return bits.reverse_bits(a).view(np.asarray(a).dtype)


# ------------------------------------------------------------------ bfe, bfi

def _field_operands(position, length, width):
    """Position and length as int64, through BIT_FIELD_OPERAND_MASK."""
    mask = np.uint32(BIT_FIELD_OPERAND_MASK[width])
    return ((np.asarray(position, dtype=np.uint32) & mask).astype(np.int64),
            (np.asarray(length, dtype=np.uint32) & mask).astype(np.int64))


def _field_length(position, length, width):
    """How many field bits lie inside the register: min(len, width - pos), at least 0."""
    return np.clip(np.minimum(length, width - position), 0, width)


@value_op("bfe", family="integer", types=BFIND_TYPES, check=no_flags(),
          signature=lambda ins: Signature((ins.type,), (ins.type, "u32", "u32")))
def bfe(ins, a, b, c):
    """Extract c bits of a from bit b, zero- or sign-extended.

    Bits past the msb and above the field are the sign bit, a[min(pos+len-1, msb)]
    for .s types (0 if len is 0), and 0 for unsigned ones.
    """
    a = np.asarray(a)
    ua = as_unsigned(a)
    width = TYPES[ins.type].bits
    position, length = _field_operands(b, c, width)
    inside = _field_length(position, length, width)
    mask = low_mask(inside, ua.dtype)
    field = shift_right(ua, position) & mask
    if a.dtype.kind == "i":
        sign_position = np.minimum(position + length - 1, width - 1)
        sign = (shift_right(ua, np.maximum(sign_position, 0)) & ua.dtype.type(1)) != 0
        sign &= length != 0
        field = np.where(sign, field | ~mask, field)
    return np.asarray(field).view(a.dtype)


@value_op("bfi", family="integer", types=BIT_COUNT_TYPES, check=no_flags(),
          signature=lambda ins: Signature((ins.type,), (ins.type, ins.type, "u32", "u32")))
def bfi(ins, a, b, c, d):
    """Insert the low d bits of a into b at bit c; bits that would land past
    the msb are dropped, so pos >= width or len == 0 gives b."""
    ua, ub = as_unsigned(a), as_unsigned(b)
    width = TYPES[ins.type].bits
    position, length = _field_operands(c, d, width)
    mask = low_mask(_field_length(position, length, width), ub.dtype)
    placed_mask = shift_left(mask, position)
    return (ub & ~placed_mask) | (shift_left(ua & mask, position) & placed_mask)


@value_op("bmsk", family="integer", types={"b32"}, check=no_flags("clamp", "wrap"),
          signature=lambda ins: Signature(("b32",), ("u32", "u32")))
def bmsk(ins, a, b):
    """A mask of b bits from bit a (.wrap reads both mod 32; .clamp saturates them)."""
    return bits.bit_mask(a, b, clamp="clamp" in ins.mods)


SZEXT_MODES = ("clamp", "wrap")


def _check_szext(ins):
    modes = [m for m in ins.flags if m in SZEXT_MODES]
    if len(modes) != 1:
        return "szext takes one mode, .clamp or .wrap"
    return no_flags(*SZEXT_MODES)(ins)


@value_op("szext", family="integer", types={"u32", "s32"}, check=_check_szext,
          signature=lambda ins: Signature((ins.type,), (ins.type, "u32")))
def szext(ins, a, b):
    """The low N bits of a, zero-extended (.u32) or sign-extended from bit N-1 (.s32); N = 0 gives 0."""
    a = np.asarray(a)
    return bits.extend_low_bits(a, b, a.dtype.kind == "i", clamp="clamp" in ins.flags).view(a.dtype)


@value_op("fns", family="integer", signature=lambda ins: Signature(("b32",), ("b32", "u32", "s32")),
          types={"b32"}, check=no_flags())
def fns(ins, mask, base, offset):
    """Position of the offset-th set bit of mask counting from bit `base` (up for offset > 0,
    down for offset < 0; offset 0 asks about bit base itself); 0xffffffff when there is none.

    Outside the manual's range, as an H200 does it (tests/machine/test_conformance.py): a base
    over 31 finds nothing (the pseudocode's loop never starts), and offset INT_MIN gives 0."""
    mask = np.atleast_1d(np.asarray(mask, dtype=np.uint32))
    raw_base = np.atleast_1d(np.asarray(base, dtype=np.int64) & 0xFFFFFFFF)
    base = raw_base & 31
    offset = np.atleast_1d(np.asarray(offset, dtype=np.int64))
    n = max(len(mask), len(base), len(offset))
    mask, base, offset = (np.broadcast_to(v, (n,)) for v in (mask, base, offset))
    bits = ((mask[:, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(bool)
    position = np.arange(32)
    upward = np.where(position >= base[:, None], bits, False)
    downward = np.where(position <= base[:, None], bits, False)
    rank_up = np.cumsum(upward, axis=1)                       # set bits in [base, pos]
    rank_down = np.cumsum(downward[:, ::-1], axis=1)[:, ::-1]  # set bits in [pos, base]
    want = np.abs(offset)[:, None]
    hit_up = upward & (rank_up == want)
    hit_down = downward & (rank_down == want)
    hits = np.where((offset > 0)[:, None], hit_up, hit_down)
    found = hits.any(axis=1)
    first = np.where(offset > 0, hits.argmax(axis=1), 31 - hits[:, ::-1].argmax(axis=1))
    result = np.where(found, first, 0xFFFFFFFF)
    at_base = bits[np.arange(n), base]
    result = np.where(offset == 0, np.where(at_base, base, 0xFFFFFFFF), result)
    result = np.where(np.broadcast_to(raw_base, (n,)) > 31, 0xFFFFFFFF, result)
    result = np.where(offset == -2**31, 0, result)
    return result.astype(np.uint32)
