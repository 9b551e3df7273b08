"""Integer SASS in the compiled tier: the adder family (IADD3, VIADD, IMAD, LEA), the logic ops,
min/max, shifts, and the bit counts, masks and permutes.

The same forms and rules as sass/executor/integer.py (read it for the operand
forms): a negated adder source enters as its complement plus one, carries are
how often the exact sum passed 2**32 (2**64 for the wide forms), carry-out
predicates hold carry >= 1 and carry >= 2, `.X` adds the carry-in predicates.
Flags of a row: bits 0-3 the adder's ones, then the operation's own bits from
bit 12. An adder row always has two carry-in predicates after its values (!PT,
never true, where there are fewer) and writes two carry-out destinations (PT,
dropped, where there are fewer).

The other operations follow semantics/integer.py and bits.py rule for rule
(shift amounts read as the whole unsigned word, then clamped or wrapped; a
shift by the width or more gives 0 or the sign). Signed order is compared as
unsigned order with the sign bit flipped (a field's top bit for the packed
16-bit and byte forms), which also makes |a - b| the difference of the two
flipped words.

Every lane loop reads all its operands before any branch in its body, and
stores once: a read after a branch (in SEL's two arms, after IMAD.WIDE's choice
of a signed product, after |a - b|'s comparison) measured three to ten times
slower per lane.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..executor.integer import split_operands
from .lanes import M32, SIGN32, in_pred, out32, out_pair, out_pred, put32, put64, read32, read64, source
from .layout import Unencodable, encodes, family

FAMILY = family("integer")
(ADD3, ADD3_64, VADD, MAD, MAD_WIDE, MAD_HIGH, MAD_HIGH_PAIR, LEA, LEA_HIGH, LEA_HIGH_SX32, LOGIC3, PLOGIC3,
 FUNNEL, SELECT) = range(14)
(MIN_MAX, MIN_MAX3, ADD_MIN_MAX, MIN_MAX16X2, ABSOLUTE, EXTEND, PERMUTE, POPCOUNT, LEADING_BIT, REVERSE, BIT_MASK,
 SHIFT_LEFT, SHIFT_RIGHT, ABS_DIFF, ABS_DIFF4) = range(14, 29)
SIGNED = 1 << 12            # a signed product, comparison or extension
HIGH = 1 << 13              # SHF: the high word
LEFT = 1 << 14              # SHF: shift left
WRAP = 1 << 15              # SHF, SGXT, BMSK, SHL, SHR: the amount wraps mod 32 (otherwise clamped)
LIMIT64 = 1 << 16           # SHF: a 64-bit type (clamp at 64)
RELU = 1 << 17              # min/max: a negative result becomes 0
SHIFT_AMOUNT = 1 << 18      # FLO.SH: 31 minus the bit's position
ACCUMULATE = 1 << 19        # VABSDIFF4.ACC: c plus the sum of the byte differences
U64_ = np.uint64
CARRY, CARRY2 = U64_(1 << 32), U64_(2 << 32)     # a 32-bit sum that carried once, twice
M16, SIGN16 = U64_(0xFFFF), U64_(0x8000)
HIGH_ONES = U64_(0xFFFFFFFF00000000)


def _adder(row, dst, outs, tail, carry_in: bool, ones: int, op: int, extra: int = 0):
    """The carry-out destinations (after the result), the carry-in predicates (after the values),
    and the flags."""
    if len(outs) > 2 or (carry_in and len(tail) > 2):
        raise Unencodable("operand form")
    for out in outs:
        row.dest(out)
    carry_ins = list(tail) if carry_in else []
    for p in carry_ins:
        row.predicate(p)
    for _ in range(2 - len(carry_ins)):
        row.never()                     # !PT: no carry-in there
    row.op(op, ones | extra)


@encodes("IADD3", "UIADD3", family_number=FAMILY)
def iadd3(ins, row):
    dst, outs, values, tail = split_operands(ins)
    if set(ins.mods) - {"X", "64"} or len(values) != 3:
        raise Unencodable("operand form")
    wide = "64" in ins.mods
    if wide and (outs or tail or "X" in ins.mods):
        raise Unencodable("carries of .64")
    row.on_rows().dest(dst, 64 if wide else 32)
    ones = sum(row.source(op, 64 if wide else 32, negate_as_invert=True) for op in values)
    _adder(row, dst, outs, tail, "X" in ins.mods, ones, ADD3_64 if wide else ADD3)


@encodes("VIADD", "UVIADD", family_number=FAMILY)
def viadd(ins, row):
    if ins.mods or len(ins.operands) < 3:
        raise Unencodable("operand form")
    dst, a, b = ins.operands[:3]
    row.op(VADD).on_rows().dest(dst)
    row.source(a)
    row.source(b)


@encodes("IMAD", "UIMAD", family_number=FAMILY)
def imad(ins, row):
    dst, outs, values, tail = split_operands(ins)
    if set(ins.mods) - {"WIDE", "HI", "MOV", "SHL", "X", "IADD", "U32", "S32"} or len(values) != 3:
        raise Unencodable("operand form")
    wide, high = "WIDE" in ins.mods, "HI" in ins.mods
    signed = "U32" not in ins.mods
    pair_c = high and values[2].kind in ("reg", "ureg") and values[2].number is not None
    row.on_rows().dest(dst, 64 if wide else 32)
    row.source(values[0])
    row.source(values[1])
    ones = row.source(values[2], 64 if wide or pair_c else 32, negate_as_invert=True)
    op = MAD_WIDE if wide else MAD_HIGH_PAIR if pair_c else MAD_HIGH if high else MAD
    _adder(row, dst, outs, tail, "X" in ins.mods, ones, op, SIGNED if signed else 0)


@encodes("LEA", "ULEA", family_number=FAMILY)
def lea(ins, row):
    dst, outs, values, tail = split_operands(ins)
    if set(ins.mods) - {"HI", "X", "SX32"}:
        raise Unencodable("modifier")
    high, sx32 = "HI" in ins.mods, "SX32" in ins.mods
    if not values or values[-1].kind != "imm":
        raise Unencodable("shift amount not an immediate")
    if len(values) != (3 if not high or sx32 else 4):
        raise Unencodable("operand form")
    row.on_rows().dest(dst)
    a_ones = row.source(values[0], negate_as_invert=True)
    row.source(values[1])
    if high and not sx32:
        row.source(values[2])
    else:
        row.constant(0)
    row.constant(int(values[-1].value) & 31)
    row.constant(a_ones)
    # the carry-in predicates follow the five values
    op = LEA_HIGH_SX32 if high and sx32 else LEA_HIGH if high else LEA
    _adder(row, dst, outs, tail, "X" in ins.mods, 0, op)


@encodes("LOP3", "ULOP3", family_number=FAMILY)
def lop3(ins, row):
    dst, outs, values, tail = split_operands(ins)
    if len(values) != 4 or values[3].kind != "imm" or set(ins.mods) - {"LUT"}:
        raise Unencodable("operand form")
    if tail and not (tail[0].name in ("PT", "UPT") and tail[0].invert):
        raise Unencodable("predicate input other than !PT")
    if len(outs) > 2:
        raise Unencodable("operand form")
    row.on_rows().dest(dst)
    for out in outs:
        row.dest(out)
    for op in values[:3]:
        row.source(op)
    row.op(LOGIC3, int(values[3].value) & 0xFF | len(outs) << 8)


@encodes("SHF", "USHF", family_number=FAMILY)
def shf(ins, row):
    types = [m for m in ins.mods if m in ("U32", "S32", "U64", "S64")]
    if set(ins.mods) - {"L", "R", "W", "HI", "U32", "S32", "U64", "S64"} or len(ins.operands) < 4:
        raise Unencodable("operand form")
    kind = types[0] if types else "U32"
    dst, a, b, c = ins.operands[:4]
    flags = (SIGNED if kind.startswith("S") else 0) | (HIGH if "HI" in ins.mods else 0) | \
        (LEFT if "L" in ins.mods else 0) | (WRAP if "W" in ins.mods else 0) | (LIMIT64 if kind.endswith("64") else 0)
    row.op(FUNNEL, flags).on_rows().dest(dst)
    for op in (a, b, c):
        row.source(op)


@encodes("SEL", "USEL", "FSEL", family_number=FAMILY)
def sel(ins, row):
    """P ? a : b (the NumPy tier's compare family has it; FSEL's sources take float modifiers)."""
    if ins.mods or len(ins.operands) < 4:
        raise Unencodable("operand form")
    dst, a, b, p = ins.operands[:4]
    row.op(SELECT).on_rows().dest(dst)
    row.source(a, floating=ins.opcode == "FSEL")
    row.source(b, floating=ins.opcode == "FSEL")
    row.predicate(p)


def _operands(ins, count: int, allowed: set):
    """The operands of a form of exactly `count` operands whose modifiers are among `allowed`."""
    if set(ins.mods) - allowed:
        raise Unencodable("modifier " + ", ".join("." + m for m in sorted(set(ins.mods) - allowed)))
    if len(ins.operands) != count:
        raise Unencodable("operand form")
    return ins.operands


def _word_op(row, ins, op: int, flags: int, count: int, allowed: set):
    """A row of Rd = f(sources): the destination, then every other operand as a value."""
    ops = _operands(ins, count, allowed)
    row.op(op, flags).dest(ops[0])
    for source_op in ops[1:]:
        row.source(source_op)


@encodes("IABS", "UIABS", family_number=FAMILY)
def iabs(ins, row):
    _word_op(row, ins, ABSOLUTE, 0, 2, set())


@encodes("IMNMX", "UIMNMX", "VIMNMX", "UVIMNMX", family_number=FAMILY)
def imnmx(ins, row):
    """Rd = P ? min(a, b) : max(a, b), signed unless .U32 (.U16x2/.S16x2: of each 16-bit half,
    signed for .S16x2 alone, as the NumPy step reads them)."""
    dst, a, b, p = _operands(ins, 4, {"U32", "S32", "RELU", "U16x2", "S16x2"})
    packed = {"U16x2", "S16x2"} & set(ins.mods)
    signed = "S16x2" in packed if packed else "U32" not in ins.mods
    flags = (SIGNED if signed else 0) | (RELU if "RELU" in ins.mods else 0)
    row.op(MIN_MAX16X2 if packed else MIN_MAX, flags).dest(dst)
    row.source(a)
    row.source(b)
    row.predicate(p)


@encodes("VIMNMX3", "UVIMNMX3", "VIADDMNMX", "UVIADDMNMX", family_number=FAMILY)
def min_max_of_three(ins, row):
    """VIMNMX3: P ? min(a, b, c) : max(a, b, c); VIADDMNMX: P ? min(a + b, c) : max(a + b, c), the
    sum wrapping at 2**32."""
    dst, a, b, c, p = _operands(ins, 5, {"U32", "S32"})
    op = ADD_MIN_MAX if ins.opcode.endswith("VIADDMNMX") else MIN_MAX3
    row.op(op, 0 if "U32" in ins.mods else SIGNED).dest(dst)
    for op in (a, b, c):
        row.source(op)
    row.predicate(p)


@encodes("SGXT", "USGXT", family_number=FAMILY)
def sgxt(ins, row):
    flags = (0 if "U32" in ins.mods else SIGNED) | (WRAP if "W" in ins.mods else 0)
    _word_op(row, ins, EXTEND, flags, 3, {"U32", "W"})


@encodes("PRMT", "UPRMT", family_number=FAMILY)
def prmt(ins, row):
    """Sources a, selector, b (the pool is {b:a}); PRMT's modes (.F4E, ...) stay NumPy's to refuse."""
    _word_op(row, ins, PERMUTE, 0, 4, set())


@encodes("POPC", "UPOPC", family_number=FAMILY)
def popc(ins, row):
    _word_op(row, ins, POPCOUNT, 0, 2, set())


@encodes("FLO", "UFLO", family_number=FAMILY)
def flo(ins, row):
    flags = (0 if "U32" in ins.mods else SIGNED) | (SHIFT_AMOUNT if "SH" in ins.mods else 0)
    _word_op(row, ins, LEADING_BIT, flags, 2, {"U32", "S32", "SH"})


@encodes("BREV", "UBREV", family_number=FAMILY)
def brev(ins, row):
    _word_op(row, ins, REVERSE, 0, 2, set())


@encodes("BMSK", "UBMSK", family_number=FAMILY)
def bmsk(ins, row):
    """Sources: the first bit, the count."""
    _word_op(row, ins, BIT_MASK, WRAP if "W" in ins.mods else 0, 3, {"W"})


@encodes("SHL", "USHL", family_number=FAMILY)
def shl(ins, row):
    _word_op(row, ins, SHIFT_LEFT, WRAP if "W" in ins.mods else 0, 3, {"W"})


@encodes("SHR", "USHR", family_number=FAMILY)
def shr(ins, row):
    """Logical unless .S32 (the NumPy step's default is unsigned)."""
    flags = (SIGNED if "S32" in ins.mods else 0) | (WRAP if "W" in ins.mods else 0)
    _word_op(row, ins, SHIFT_RIGHT, flags, 3, {"U32", "S32", "W"})


@encodes("VABSDIFF", family_number=FAMILY)
def vabsdiff(ins, row):
    """Rd = c + |a - b|, the difference exact, signed unless .U32."""
    _word_op(row, ins, ABS_DIFF, 0 if "U32" in ins.mods else SIGNED, 4, {"U32", "S32"})


@encodes("VABSDIFF4", family_number=FAMILY)
def vabsdiff4(ins, row):
    """|a - b| of each byte pair, signed unless .U8: packed, or (.ACC) c plus their sum."""
    flags = (0 if "U8" in ins.mods else SIGNED) | (ACCUMULATE if "ACC" in ins.mods else 0)
    _word_op(row, ins, ABS_DIFF4, flags, 4, {"U8", "S8", "ACC"})


@njit
def _signed32(x):
    return np.int64(x) - np.int64(4294967296) if x & U64_(0x80000000) else np.int64(x)


@njit
def _product(a, b, signed):
    """The exact 64-bit product of two 32-bit words, as unsigned bits."""
    if signed:
        return U64_(_signed32(a) * _signed32(b))
    return a * b


@njit
def _add64(total, term, carries):
    partial = total + term
    if partial < total:
        carries += U64_(1)
    return partial, carries


@njit
def _put_sum32(out, q1, q2, lane, total):
    """A 32-bit adder's result and its carry-out predicates (total: the exact sum, below 2**35)."""
    put32(out, lane, total)
    q1[lane] = total >= CARRY
    q2[lane] = total >= CARRY2


@njit
def _wide_sum(product, addend, ones, carry_in):
    """product + addend + ones + carry_in modulo 2**64, and how often it carried."""
    carries = U64_(0)
    total, carries = _add64(product, addend, carries)
    total, carries = _add64(total, ones, carries)
    return _add64(total, carry_in, carries)


@njit
def _lut3(lut, a, b, c):
    out = U64_(0)
    for k in range(8):
        if lut >> k & 1:
            out |= (a if k & 4 else a ^ M32) & (b if k & 2 else b ^ M32) & (c if k & 1 else c ^ M32)
    return out


@njit
def _funnel(low, high, amount, flags):
    """SHF: {high:low} shifted by amount (clamped, or mod 32 under .W), the word .HI names."""
    if flags & WRAP:
        amount &= U64_(31)
    else:
        limit = U64_(64) if flags & LIMIT64 else U64_(32)
        if amount > limit:
            amount = limit
    pair = (high << U64_(32)) | low
    if amount >= U64_(64):
        if flags & LEFT or not flags & SIGNED:
            shifted = U64_(0)
        else:
            shifted = U64_(np.int64(pair) >> np.int64(63))
    elif flags & LEFT:
        shifted = pair << amount
    elif flags & SIGNED:
        shifted = U64_(np.int64(pair) >> np.int64(amount))
    else:
        shifted = pair >> amount
    if flags & HIGH:
        return (shifted >> U64_(32)) & M32
    return shifted & M32


@njit
def _pick(x, y, take_min):
    """min or max of two order keys."""
    if take_min:
        return x if x < y else y
    return x if x > y else y


@njit
def _min_max16(a, b, take_min, bias, relu):
    """min/max of each 16-bit half of two words; `bias` 0x8000 orders a half as signed, `relu`
    (signed only) makes a negative half 0."""
    low = _pick((a & M16) ^ bias, (b & M16) ^ bias, take_min) ^ bias
    high = _pick((a >> U64_(16)) ^ bias, (b >> U64_(16)) ^ bias, take_min) ^ bias
    if relu:
        low &= U64_(0) - (((low >> U64_(15)) & U64_(1)) ^ U64_(1))
        high &= U64_(0) - (((high >> U64_(15)) & U64_(1)) ^ U64_(1))
    return low | (high << U64_(16))


@njit
def _permute(low, selectors, high):
    """PRMT: nibble i of the selector picks byte i from the pool {high:low}; bit 3 replicates its sign
    (chosen without a branch: a branch per byte made the loop five times slower)."""
    pool = (high << U64_(32)) | low
    result = U64_(0)
    for position in range(4):
        selector = selectors >> U64_(4 * position)
        byte = (pool >> ((selector & U64_(7)) << U64_(3))) & U64_(255)
        sign_fill = (U64_(0) - (byte >> U64_(7))) & U64_(255)
        result |= (sign_fill if selector & U64_(8) else byte) << U64_(8 * position)
    return result


@njit
def _popcount(x):
    x = x - ((x >> U64_(1)) & U64_(0x55555555))
    x = (x & U64_(0x33333333)) + ((x >> U64_(2)) & U64_(0x33333333))
    x = (x + (x >> U64_(4))) & U64_(0x0F0F0F0F)
    return ((x * U64_(0x01010101)) & M32) >> U64_(24)


@njit
def _highest_bit(x):
    """The position of the highest set bit of a nonzero word."""
    position = U64_(0)
    for step in (U64_(16), U64_(8), U64_(4), U64_(2), U64_(1)):
        if x >> step:
            x >>= step
            position += step
    return position


@njit
def _reverse(x):
    x = ((x >> U64_(1)) & U64_(0x55555555)) | ((x & U64_(0x55555555)) << U64_(1))
    x = ((x >> U64_(2)) & U64_(0x33333333)) | ((x & U64_(0x33333333)) << U64_(2))
    x = ((x >> U64_(4)) & U64_(0x0F0F0F0F)) | ((x & U64_(0x0F0F0F0F)) << U64_(4))
    x = ((x >> U64_(8)) & U64_(0x00FF00FF)) | ((x & U64_(0x00FF00FF)) << U64_(8))
    return ((x >> U64_(16)) | (x << U64_(16))) & M32


@njit
def _bit_mask(start, count, wrap):
    """BMSK as semantics.integer.bit_mask: both read mod 32, the mask stops at bit 31; clamping
    gives 0 from start 32 and runs to bit 31 from count 32."""
    first, width = start & U64_(31), count & U64_(31)
    above_start = (M32 << first) & M32
    to_msb = first + width >= U64_(32)
    if not wrap:
        if start >= U64_(32):
            above_start = U64_(0)
        to_msb = to_msb or start >= U64_(32) or count >= U64_(32)
    if to_msb:
        above_end = U64_(0)
    elif width == U64_(0):
        above_end = M32
    else:
        above_end = (M32 << (first + width)) & M32
    return above_start & (above_end ^ M32)


@njit
def _extend(x, count, signed, wrap):
    """SGXT as semantics.integer.extend_low_bits: the low min(count, 32) (or count mod 32) bits."""
    width = count & U64_(31) if wrap else (count if count < U64_(32) else U64_(32))
    if width == U64_(0):
        return U64_(0)
    keep = M32 >> (U64_(32) - width)
    field = x & keep
    if signed and (x >> (width - U64_(1))) & U64_(1):
        field |= keep ^ M32
    return field


@njit
def _abs_diff4(a, b, total, accumulate):
    """|a - b| of each byte of two words of order keys: packed, or added to total."""
    packed = U64_(0)
    for at in (U64_(0), U64_(8), U64_(16), U64_(24)):
        x, y = (a >> at) & U64_(255), (b >> at) & U64_(255)
        difference = max(x, y) - min(x, y)
        total += difference
        packed |= difference << at
    return total if accumulate else packed


@njit
def _amount(s, wrap):
    """A shift amount: the whole word, mod 32 under .W, else at most 32."""
    if wrap:
        return s & U64_(31)
    return s if s < U64_(32) else U64_(32)


@njit(nogil=True)
def _min_max(c, R, P, UR, UP, values, lanes, m, scratch):
    """IMNMX, VIMNMX3, VIADDMNMX and the packed halves: P ? min : max, compared as order keys."""
    op, flags = c[1], c[2]
    signed, relu = flags & SIGNED != 0, flags & RELU != 0
    s0, s1, s2 = source(c, 0), source(c, 1), source(c, 2)
    o0 = out32(c, 0, R, UR, scratch)
    if op == MIN_MAX16X2:
        p, p_not = in_pred(s2, P, UP)
        bias = SIGN16 if signed else U64_(0)
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            put32(o0, lane, _min_max16(a, b, p[lane] != p_not, bias, relu and signed))
        return
    bias = SIGN32 if signed else U64_(0)
    clamp = relu and signed                 # (an unsigned result is never below 0)
    if op == MIN_MAX:
        p, p_not = in_pred(s2, P, UP)
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane) ^ bias, read32(s1, R, UR, values, lane) ^ bias
            x = _pick(a, b, p[lane] != p_not) ^ bias
            put32(o0, lane, U64_(0) if clamp and x & SIGN32 else x)
    elif op == MIN_MAX3:
        p, p_not = in_pred(source(c, 3), P, UP)
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane) ^ bias, read32(s1, R, UR, values, lane) ^ bias
            d = read32(s2, R, UR, values, lane) ^ bias
            take_min = p[lane] != p_not
            put32(o0, lane, _pick(_pick(a, b, take_min), d, take_min) ^ bias)
    elif op == ADD_MIN_MAX:
        p, p_not = in_pred(source(c, 3), P, UP)
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            d = read32(s2, R, UR, values, lane) ^ bias
            put32(o0, lane, _pick(((a + b) & M32) ^ bias, d, p[lane] != p_not) ^ bias)


@njit(nogil=True)
def _bits(c, R, UR, values, lanes, m, scratch):
    """The one-word operations: IABS, SGXT, PRMT, POPC, FLO, BREV, BMSK, SHL, SHR, VABSDIFF(4)."""
    op, flags = c[1], c[2]
    signed, wrap = flags & SIGNED != 0, flags & WRAP != 0
    s0, s1, s2 = source(c, 0), source(c, 1), source(c, 2)
    o0 = out32(c, 0, R, UR, scratch)
    if op == ABSOLUTE:
        for j in range(m):
            lane = lanes[j]
            x = read32(s0, R, UR, values, lane)
            put32(o0, lane, (U64_(0) - x) & M32 if x & SIGN32 else x)
    elif op == EXTEND:
        for j in range(m):
            lane = lanes[j]
            x, count = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            put32(o0, lane, _extend(x, count, signed, wrap))
    elif op == PERMUTE:
        for j in range(m):
            lane = lanes[j]
            a, selectors = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            b = read32(s2, R, UR, values, lane)
            put32(o0, lane, _permute(a, selectors, b))
    elif op == POPCOUNT:
        for j in range(m):
            lane = lanes[j]
            put32(o0, lane, _popcount(read32(s0, R, UR, values, lane)))
    elif op == LEADING_BIT:
        flip = SIGN32 if signed else U64_(0)          # a negative value: its highest 0
        shift_amount = flags & SHIFT_AMOUNT != 0
        for j in range(m):
            lane = lanes[j]
            x = read32(s0, R, UR, values, lane)
            if x & flip:
                x ^= M32
            position = _highest_bit(x)
            if x == U64_(0):
                position = M32
            elif shift_amount:
                position = U64_(31) - position
            put32(o0, lane, position)
    elif op == REVERSE:
        for j in range(m):
            lane = lanes[j]
            put32(o0, lane, _reverse(read32(s0, R, UR, values, lane)))
    elif op == BIT_MASK:
        for j in range(m):
            lane = lanes[j]
            start, count = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            put32(o0, lane, _bit_mask(start, count, wrap))
    elif op == SHIFT_LEFT:
        for j in range(m):
            lane = lanes[j]
            x, amount = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            amount = _amount(amount, wrap)
            put32(o0, lane, (x << amount) & M32 if amount < U64_(32) else U64_(0))
    elif op == SHIFT_RIGHT:
        fill = HIGH_ONES if signed else U64_(0)      # the sign through bit 63: a logical shift is arithmetic
        for j in range(m):
            lane = lanes[j]
            x, amount = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            amount = _amount(amount, wrap)
            if x & SIGN32:
                x |= fill
            put32(o0, lane, x >> amount if amount < U64_(32) else (x >> U64_(32)) & M32)
    elif op == ABS_DIFF:
        bias = SIGN32 if signed else U64_(0)
        for j in range(m):
            lane = lanes[j]
            x, y = read32(s0, R, UR, values, lane) ^ bias, read32(s1, R, UR, values, lane) ^ bias
            total = read32(s2, R, UR, values, lane)
            put32(o0, lane, max(x, y) - min(x, y) + total)
    elif op == ABS_DIFF4:
        bias = U64_(0x80808080) if signed else U64_(0)
        accumulate = flags & ACCUMULATE != 0
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane) ^ bias, read32(s1, R, UR, values, lane) ^ bias
            total = read32(s2, R, UR, values, lane)
            put32(o0, lane, _abs_diff4(a, b, total, accumulate))


@njit(nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    op, flags = c[1], c[2]
    if op >= ABSOLUTE:
        _bits(c, R, UR, values, lanes, m, scratch)
        return
    if op >= MIN_MAX:
        _min_max(c, R, P, UR, UP, values, lanes, m, scratch)
        return
    ones = U64_(flags & 15)
    s0, s1, s2, s3, s4 = source(c, 0), source(c, 1), source(c, 2), source(c, 3), source(c, 4)
    first = 5 if op == LEA or op == LEA_HIGH or op == LEA_HIGH_SX32 else 3      # the carry-in predicates
    c1, c1_not = in_pred(source(c, first), P, UP)
    c2, c2_not = in_pred(source(c, first + 1), P, UP)
    q1, q2 = out_pred(c, 1, P, UP, scratch_p), out_pred(c, 2, P, UP, scratch_p)     # carry-outs, LOP3's flags
    if op == ADD3_64:
        low, high = out_pair(c, 0, R, UR, scratch)
        for j in range(m):
            lane = lanes[j]
            put64(low, high, lane, read64(s0, R, UR, values, lane) + read64(s1, R, UR, values, lane) +
                  read64(s2, R, UR, values, lane) + ones)
        return
    o0 = out32(c, 0, R, UR, scratch)
    if op == ADD3:
        for j in range(m):
            lane = lanes[j]
            total = read32(s0, R, UR, values, lane) + read32(s1, R, UR, values, lane) + \
                read32(s2, R, UR, values, lane) + ones + U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            put32(o0, lane, total)
            q1[lane] = total >= CARRY
            q2[lane] = total >= CARRY2
    elif op == VADD:
        for j in range(m):
            lane = lanes[j]
            put32(o0, lane, read32(s0, R, UR, values, lane) + read32(s1, R, UR, values, lane))
    elif op == MAD:
        for j in range(m):
            lane = lanes[j]
            a, b, addend = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane), \
                read32(s2, R, UR, values, lane)
            carry_in = U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            _put_sum32(o0, q1, q2, lane, ((a * b) & M32) + addend + ones + carry_in)
    elif op == MAD_HIGH:
        signed = flags & SIGNED != 0
        for j in range(m):
            lane = lanes[j]
            a, b, addend = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane), \
                read32(s2, R, UR, values, lane)
            carry_in = U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            _put_sum32(o0, q1, q2, lane, ((_product(a, b, signed) >> U64_(32)) & M32) + addend + ones + carry_in)
    elif op == MAD_WIDE:
        low, high = out_pair(c, 0, R, UR, scratch)
        signed = flags & SIGNED != 0
        for j in range(m):
            lane = lanes[j]
            a, b, addend = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane), \
                read64(s2, R, UR, values, lane)
            carry_in = U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            total, carries = _wide_sum(_product(a, b, signed), addend, ones, carry_in)
            put64(low, high, lane, total)
            q1[lane] = carries >= U64_(1)
            q2[lane] = carries >= U64_(2)
    elif op == MAD_HIGH_PAIR:
        signed = flags & SIGNED != 0
        for j in range(m):
            lane = lanes[j]
            a, b, addend = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane), \
                read64(s2, R, UR, values, lane)
            carry_in = U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            total, carries = _wide_sum(_product(a, b, signed), addend, ones, carry_in)
            put32(o0, lane, total >> U64_(32))
            q1[lane] = carries >= U64_(1)
            q2[lane] = carries >= U64_(2)
    elif op == LEA:
        for j in range(m):
            lane = lanes[j]
            a, b, shift = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane), \
                read32(s3, R, UR, values, lane)
            a_ones = read32(s4, R, UR, values, lane)
            carry_in = U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            low_ones = ((U64_(1) << shift) - U64_(1)) * a_ones      # -a is ~(a << s) + 1 (the NumPy step's rule)
            _put_sum32(o0, q1, q2, lane, (((a << shift) & M32) | low_ones) + a_ones + b + carry_in)
    elif op == LEA_HIGH or op == LEA_HIGH_SX32:
        sign_extend = op == LEA_HIGH_SX32
        for j in range(m):
            lane = lanes[j]
            a, b, high_word = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane), \
                read32(s2, R, UR, values, lane)
            shift, a_ones = read32(s3, R, UR, values, lane), read32(s4, R, UR, values, lane)
            carry_in = U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            a = (a + a_ones) & M32
            if sign_extend:
                high_word = M32 if a >> U64_(31) else U64_(0)
            _put_sum32(o0, q1, q2, lane, ((((high_word << U64_(32)) | a) << shift) >> U64_(32)) + b + carry_in)
    elif op == LOGIC3:
        lut = flags & 255
        for j in range(m):
            lane = lanes[j]
            result = _lut3(lut, read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane),
                           read32(s2, R, UR, values, lane)) & M32
            put32(o0, lane, result)
            q1[lane] = result != U64_(0)
            q2[lane] = result != U64_(0)
    elif op == FUNNEL:
        for j in range(m):
            lane = lanes[j]
            put32(o0, lane, _funnel(read32(s0, R, UR, values, lane), read32(s2, R, UR, values, lane),
                                    read32(s1, R, UR, values, lane), flags))
    elif op == SELECT:
        p, p_not = in_pred(s2, P, UP)
        for j in range(m):
            lane = lanes[j]
            x, y = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            put32(o0, lane, x if p[lane] != p_not else y)


# ------------------------------------------------------------------ per-lane forms
# One lane of an operation run on rows: run_rows' loops call them for each lane of a row, and the
# code fused.py generates calls them with the lane's registers in locals. Each takes the row's
# operation and flags, then its sources in order (values as uint64 bits, predicates as bools), and
# returns its results in the order of the row's destinations.


@njit
def adder_lane(op, flags, a, b, c, carry1, carry2):
    """ADD3, IMAD, IMAD.HI: (the exact 32-bit sum, below 2**35; carry >= 1; carry >= 2)."""
    if op == ADD3:
        first = a + b
    elif op == MAD:
        first = (a * b) & M32
    else:
        first = (_product(a, b, flags & SIGNED != 0) >> U64_(32)) & M32
    total = first + c + U64_(flags & 15) + U64_(carry1) + U64_(carry2)
    return total, total >= CARRY, total >= CARRY2


@njit
def add3_64_lane(op, flags, a, b, c):
    """IADD3.64: the 64-bit sum."""
    return a + b + c + U64_(flags & 15)


@njit
def vadd_lane(op, flags, a, b):
    return a + b


@njit
def mad_wide_lane(op, flags, a, b, c, carry1, carry2):
    """IMAD.WIDE (the 64-bit sum) and IMAD.HI of a pair addend (its high word), with the carries."""
    total, carries = _wide_sum(_product(a, b, flags & SIGNED != 0), c, U64_(flags & 15),
                               U64_(carry1) + U64_(carry2))
    return (total >> U64_(32) if op == MAD_HIGH_PAIR else total), carries >= U64_(1), carries >= U64_(2)


@njit
def lea_lane(op, flags, a, b, high_word, shift, a_ones, carry1, carry2):
    """LEA, LEA.HI, LEA.HI.SX32: (the exact sum, carry >= 1, carry >= 2)."""
    if op == LEA:       # -a is ~(a << s) + 1 (the NumPy step's rule): the carry of b - (a << s)
        shifted = (((a << shift) & M32) | (((U64_(1) << shift) - U64_(1)) * a_ones)) + a_ones
    else:
        a = (a + a_ones) & M32
        if op == LEA_HIGH_SX32:
            high_word = M32 if a >> U64_(31) else U64_(0)
        shifted = (((high_word << U64_(32)) | a) << shift) >> U64_(32)
    total = shifted + b + U64_(carry1) + U64_(carry2)
    return total, total >= CARRY, total >= CARRY2


@njit
def logic3_lane(op, flags, a, b, c):
    """LOP3.LUT: (the result, and its nonzero flag for both predicate destinations)."""
    result = _lut3(flags & 255, a, b, c) & M32
    return result, result != U64_(0), result != U64_(0)


@njit
def funnel_lane(op, flags, low, amount, high):
    return _funnel(low, high, amount, flags)


@njit
def select_lane(op, flags, a, b, p):
    return a if p else b


# op -> (its per-lane form, its sources: v a value, p a predicate; its results likewise)
LANES = {
    ADD3: (adder_lane, "vvvpp", "vpp"), MAD: (adder_lane, "vvvpp", "vpp"), MAD_HIGH: (adder_lane, "vvvpp", "vpp"),
    ADD3_64: (add3_64_lane, "vvv", "v"), VADD: (vadd_lane, "vv", "v"),
    MAD_WIDE: (mad_wide_lane, "vvvpp", "vpp"), MAD_HIGH_PAIR: (mad_wide_lane, "vvvpp", "vpp"),
    LEA: (lea_lane, "vvvvvpp", "vpp"), LEA_HIGH: (lea_lane, "vvvvvpp", "vpp"),
    LEA_HIGH_SX32: (lea_lane, "vvvvvpp", "vpp"), LOGIC3: (logic3_lane, "vvv", "vpp"),
    FUNNEL: (funnel_lane, "vvv", "v"), SELECT: (select_lane, "vvp", "v"),
}


@njit(nogil=True)
def run_rows(c, T, TB, O, OB, m):
    """The adder family, LOP3, SHF and SEL on gathered rows (lanes.py): sources T[k] / TB[k], results
    O[0] and the carry-out or flag predicates OB[1], OB[2], each lane through its per-lane form."""
    op, flags = c[1], c[2]
    t0, t1, t2, t3, t4 = T[0], T[1], T[2], T[3], T[4]
    o0, q1, q2 = O[0], OB[1], OB[2]
    if op == ADD3 or op == MAD or op == MAD_HIGH:
        b3, b4 = TB[3], TB[4]
        for j in range(m):
            o0[j], q1[j], q2[j] = adder_lane(op, flags, t0[j], t1[j], t2[j], b3[j], b4[j])
    elif op == ADD3_64:
        for j in range(m):
            o0[j] = add3_64_lane(op, flags, t0[j], t1[j], t2[j])
    elif op == VADD:
        for j in range(m):
            o0[j] = vadd_lane(op, flags, t0[j], t1[j])
    elif op == MAD_WIDE or op == MAD_HIGH_PAIR:
        b3, b4 = TB[3], TB[4]
        for j in range(m):
            o0[j], q1[j], q2[j] = mad_wide_lane(op, flags, t0[j], t1[j], t2[j], b3[j], b4[j])
    elif op == LEA or op == LEA_HIGH or op == LEA_HIGH_SX32:
        b5, b6 = TB[5], TB[6]
        for j in range(m):
            o0[j], q1[j], q2[j] = lea_lane(op, flags, t0[j], t1[j], t2[j], t3[j], t4[j], b5[j], b6[j])
    elif op == LOGIC3:
        for j in range(m):
            o0[j], q1[j], q2[j] = logic3_lane(op, flags, t0[j], t1[j], t2[j])
    elif op == FUNNEL:
        for j in range(m):
            o0[j] = funnel_lane(op, flags, t0[j], t1[j], t2[j])
    elif op == SELECT:
        b2 = TB[2]
        for j in range(m):
            o0[j] = select_lane(op, flags, t0[j], t1[j], b2[j])
