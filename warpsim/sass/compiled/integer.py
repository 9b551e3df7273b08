"""Integer SASS in the compiled tier: the adder family (IADD3, VIADD, IMAD, LEA) and the logic ops.

The same forms and rules as sass/executor/integer.py (read it for the operand
forms): a negated adder source enters as its complement plus one, carries are
how often the exact sum passed 2**32 (2**64 for the wide forms), carry-out
predicates hold carry >= 1 and carry >= 2, `.X` adds the carry-in predicates.
Flags of a row: bits 0-3 the adder's ones, then the operation's own bits from
bit 12. An adder row always has two carry-in predicates after its values (!PT,
never true, where there are fewer) and writes two carry-out destinations (PT,
dropped, where there are fewer).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .lanes import M32, in_pred, out32, out_pair, out_pred, put32, put64, read32, read64, source
from .layout import Unencodable, encodes, family

FAMILY = family("integer")
(ADD3, ADD3_64, VADD, MAD, MAD_WIDE, MAD_HIGH, MAD_HIGH_PAIR, LEA, LEA_HIGH, LEA_HIGH_SX32, LOGIC3, PLOGIC3,
 FUNNEL, SELECT) = range(14)
SIGNED = 1 << 12            # a signed product, comparison or extension
HIGH = 1 << 13              # SHF: the high word
LEFT = 1 << 14              # SHF: shift left
WRAP = 1 << 15              # SHF, SGXT: the amount wraps mod 32 (otherwise clamped)
LIMIT64 = 1 << 16           # SHF: a 64-bit type (clamp at 64)
U64_ = np.uint64
CARRY, CARRY2 = U64_(1 << 32), U64_(2 << 32)     # a 32-bit sum that carried once, twice


def split_operands(ins):
    """(destination, carry-out predicates, value sources, trailing predicates), as the NumPy decoder
    splits them."""
    ops = list(ins.operands)
    outs = []
    while ops and ops[0].kind in ("pred", "upred"):
        outs.append(ops.pop(0))
    dst = ops.pop(0)
    while ops and ops[0].kind in ("pred", "upred"):
        outs.append(ops.pop(0))
    values = []
    while ops and ops[0].kind not in ("pred", "upred"):
        values.append(ops.pop(0))
    return dst, outs, values, ops


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
    row.dest(dst)
    ones = sum(row.source(op, 64 if wide else 32, negate_as_invert=True) for op in values)
    _adder(row, dst, outs, tail, "X" in ins.mods, ones, ADD3_64 if wide else ADD3)


@encodes("VIADD", "UVIADD", family_number=FAMILY)
def viadd(ins, row):
    if ins.mods or len(ins.operands) < 3:
        raise Unencodable("operand form")
    dst, a, b = ins.operands[:3]
    row.op(VADD).dest(dst)
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
    row.dest(dst)
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
    row.dest(dst)
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
    row.dest(dst)
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
    row.op(FUNNEL, flags).dest(dst)
    for op in (a, b, c):
        row.source(op)


@encodes("SEL", "USEL", "FSEL", family_number=FAMILY)
def sel(ins, row):
    """P ? a : b (the NumPy tier's compare family has it; FSEL's sources take float modifiers)."""
    if ins.mods or len(ins.operands) < 4:
        raise Unencodable("operand form")
    dst, a, b, p = ins.operands[:4]
    row.op(SELECT).dest(dst)
    row.source(a, floating=ins.opcode == "FSEL")
    row.source(b, floating=ins.opcode == "FSEL")
    row.predicate(p)


@njit(inline="always")
def _signed32(x):
    return np.int64(x) - np.int64(4294967296) if x & U64_(0x80000000) else np.int64(x)


@njit(inline="always")
def _product(a, b, signed):
    """The exact 64-bit product of two 32-bit words, as unsigned bits."""
    if signed:
        return U64_(_signed32(a) * _signed32(b))
    return a * b


@njit(inline="always")
def _add64(total, term, carries):
    partial = total + term
    if partial < total:
        carries += U64_(1)
    return partial, carries


@njit(inline="always")
def _lut3(lut, a, b, c):
    out = U64_(0)
    for k in range(8):
        if lut >> k & 1:
            out |= (a if k & 4 else a ^ M32) & (b if k & 2 else b ^ M32) & (c if k & 1 else c ^ M32)
    return out


@njit(inline="always")
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


@njit(cache=True, nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    op, flags = c[1], c[2]
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
    if op == MAD_WIDE:
        low, high = out_pair(c, 0, R, UR, scratch)
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
    elif op == MAD or op == MAD_HIGH:
        signed = flags & SIGNED != 0
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            if op == MAD:
                product = (a * b) & M32
            else:
                product = (_product(a, b, signed) >> U64_(32)) & M32
            total = product + read32(s2, R, UR, values, lane) + ones + U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            put32(o0, lane, total)
            q1[lane] = total >= CARRY
            q2[lane] = total >= CARRY2
    elif op == MAD_WIDE or op == MAD_HIGH_PAIR:
        signed = flags & SIGNED != 0
        for j in range(m):
            lane = lanes[j]
            a, b = read32(s0, R, UR, values, lane), read32(s1, R, UR, values, lane)
            carries = U64_(0)
            total, carries = _add64(_product(a, b, signed), read64(s2, R, UR, values, lane), carries)
            total, carries = _add64(total, ones, carries)
            total, carries = _add64(total, U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not), carries)
            if op == MAD_HIGH_PAIR:
                put32(o0, lane, total >> U64_(32))
            else:
                put64(low, high, lane, total)
            q1[lane] = carries >= U64_(1)
            q2[lane] = carries >= U64_(2)
    elif op == LEA or op == LEA_HIGH or op == LEA_HIGH_SX32:
        for j in range(m):
            lane = lanes[j]
            shift = read32(s3, R, UR, values, lane)
            a = (read32(s0, R, UR, values, lane) + read32(s4, R, UR, values, lane)) & M32
            if op == LEA:
                shifted = (a << shift) & M32
            else:
                if op == LEA_HIGH_SX32:
                    high_word = M32 if a >> U64_(31) else U64_(0)
                else:
                    high_word = read32(s2, R, UR, values, lane)
                shifted = (((high_word << U64_(32)) | a) << shift) >> U64_(32)
            total = shifted + read32(s1, R, UR, values, lane) + U64_(c1[lane] != c1_not) + U64_(c2[lane] != c2_not)
            put32(o0, lane, total)
            q1[lane] = total >= CARRY
            q2[lane] = total >= CARRY2
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
            if p[lane] != p_not:
                put32(o0, lane, read32(s0, R, UR, values, lane))
            else:
                put32(o0, lane, read32(s1, R, UR, values, lane))
