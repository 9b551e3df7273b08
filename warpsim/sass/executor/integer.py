"""Integer SASS: IMAD, IADD3, LEA, LOP3, SHF, PRMT, min/max, bit counts (and their uniform twins).

A decoder per opcode: it reads the modifiers and operand forms and calls
semantics/ (integer.py: the adder with carries, products, min/max, bit counts,
masks, shift amounts; bits.py: truth tables, byte permutes, funnel shifts),
which the PTX machine's integer and logic families call too. Operand forms
after NVIDIA's CUDA Binary Utilities instruction set reference ("Hopper
Instruction Set") and the PTX each comes from; carry and funnel details as
ptxas uses them for 64-bit arithmetic:

- Carries: an instruction with carry-out predicates (`IADD3 R8, P1, R2, R7, RZ`)
  writes the carry of its 32-bit (64-bit for .WIDE) sum; the `.X` form adds its
  trailing carry-in predicates. A negated source `-R2` enters as `~R2 + 1`, as
  the adder does, so `-RZ` carries: 64-bit subtraction relies on that.
- Funnel shifts: SHF.L/R shift the 64-bit pair {c:a}; `.HI` keeps the high
  word, otherwise the low one. The amount wraps modulo 32 under `.W` and is
  clamped otherwise (32 for .U32/.S32, 64 for .U64/.S64), the whole 32-bit
  amount, as shl/shr by a register, which ptxas gives as SHF, need.
- Everything wraps modulo 2**32 (PTX's .lo semantics); signed variants differ
  only where the type matters (.WIDE, .HI, shifts, min/max, SX32).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...semantics import integer as bits
from ...semantics.bits import funnel_shift, lut3, permute_bytes
from .operands import U32, U64, alu, dest, pred_dest, predicate, source
from .table import Step, Unsupported, semantics

M32 = U64(0xFFFFFFFF)
INT_TYPES = ("U32", "S32", "U64", "S64")


def split_operands(ins):
    """(destinations, carry-out predicates, value sources, trailing predicates) of an ALU form."""
    ops = list(ins.operands)
    outs = []
    while ops and ops[0].kind in ("pred", "upred"):       # LOP3.LUT P0, R2, ...: the predicate first
        outs.append(ops.pop(0))
    dst = ops.pop(0)
    while ops and ops[0].kind in ("pred", "upred"):
        outs.append(ops.pop(0))
    values = []
    while ops and ops[0].kind not in ("pred", "upred"):
        values.append(ops.pop(0))
    return dst, outs, values, ops


def adder_term(op, bits=32):
    """Reader of a source as it enters the adder: (term, +1 for a negated source)."""
    if op.negate:
        plain = replace(op, negate=False, invert=True)
        return source(plain, bits), 1
    return source(op, bits), 0


def _carry_ins(ops):
    return [predicate(op) for op in ops]


def _write_carries(writers, st, g, carry):
    """carry: 0..3 per lane; the first predicate holds carry >= 1, the second carry >= 2."""
    for k, write in enumerate(writers):
        write(st, g, carry >= k + 1)


# ------------------------------------------------------------------ IADD3

@semantics("IADD3", "UIADD3", family="integer", pipe=("alu", "uniform"), mods=("X", "64"),
           doc="a + b + c (+ carry-ins under .X); optional carry-out predicates; .64: of register pairs, "
               "wrapping at 2**64")
def iadd3(ins):
    dst, outs, values, tail = split_operands(ins)
    if len(values) != 3:
        raise Unsupported("operand form")
    if "64" in ins.mods:
        return _iadd3_64(ins, dst, outs, values, tail)
    terms = [adder_term(op) for op in values]
    ones = sum(one for _, one in terms)
    carries = _carry_ins(tail) if "X" in ins.mods else []
    write, carry_writers = dest(dst), [pred_dest(op) for op in outs]

    def run(st, g):
        words = [read(st, g) for read, _ in terms] + [read(st, g) for read in carries]
        if not carry_writers:
            write(st, g, bits.wrapping_sum(words + [ones], U32))
            return
        total, carry = bits.add_with_carry(words + [ones], U32)
        write(st, g, total)
        _write_carries(carry_writers, st, g, carry)
    return Step(ins, run)


def _iadd3_64(ins, dst, outs, values, tail):
    """UIADD3.64 UR8, UR4, UR8, URZ (ptxas's 64-bit address sums): pairs in, a pair out."""
    if outs or tail or "X" in ins.mods:
        raise Unsupported("carries of .64")
    terms = [adder_term(op, 64) for op in values]
    ones = sum(one for _, one in terms)
    write = dest(dst, 64)

    def run(st, g):
        write(st, g, bits.add_with_carry([read(st, g) for read, _ in terms] + [ones], U64)[0])
    return Step(ins, run)


def packed_source(op):
    """Reader of a value of 16-bit lanes: `-R13` negates each lane (`VIADD.16x2 R9, R4, -R13` is
    __vsub2), where source() would negate the 32-bit word and borrow across the lanes."""
    read = source(replace(op, negate=False))
    if not op.negate:
        return read
    zero = U32(0)
    return lambda st, g: bits.packed_sum(zero, read(st, g), 16, subtract=True)


@semantics("VIADD", "UVIADD", family="integer", pipe=("fma", "uniform"), mods=("16x2",),
           doc="a + b (32-bit, wraps); .16x2: of each 16-bit lane pair, each wrapping (a negated operand "
               "per lane)")
def viadd(ins):
    dst, a, b = ins.operands[:3]
    if "16x2" in ins.mods:
        return Step(ins, alu([dest(dst)], [packed_source(a), packed_source(b)],
                             lambda x, y: bits.packed_sum(x, y, 16)))
    ra, rb = source(a), source(b)
    return Step(ins, alu([dest(dst)], [ra, rb], lambda x, y: bits.wrapping_sum([x, y], U32)))


# ------------------------------------------------------------------ IMAD

@semantics("IMAD", "UIMAD", family="integer", pipe=("fma", "uniform"),
           mods=("WIDE", "HI", "MOV", "SHL", "X", "IADD", "U32", "S32"),
           doc="a * b + c: low word; .WIDE 64-bit result with a 64-bit c; .HI high word of a*b plus c; "
               ".X adds carry-ins; .MOV/.SHL/.IADD are the same operation. A register c of .HI is the pair "
               "{c+1:c}: the high word of a*b + that pair (ptxas zeroes c and puts x in c+1 for x + mulhi)")
def imad(ins):
    dst, outs, values, tail = split_operands(ins)
    if len(values) != 3:
        raise Unsupported("operand form")
    wide, high = "WIDE" in ins.mods, "HI" in ins.mods
    signed = "U32" not in ins.mods
    ra, rb = source(values[0]), source(values[1])
    pair_c = high and values[2].kind in ("reg", "ureg") and values[2].number is not None
    rc, c_one = adder_term(values[2], 64 if wide or pair_c else 32)
    carries = _carry_ins(tail) if "X" in ins.mods else []
    write = dest(dst, 64 if wide else 32)
    carry_writers = [pred_dest(op) for op in outs]
    if wide and not carries and not carry_writers and not c_one and dst.kind == "reg" and dst.number is not None:
        c = values[2]
        pair = c.number if c.kind == "reg" and c.number is not None and not (c.negate or c.invert or c.absolute) \
            else None
        return Step(ins, lambda st, g: _wide_sum(st, g, ra(st, g), rb(st, g), signed, pair, rc, dst.number))

    def run(st, g):
        a, b, c = ra(st, g), rb(st, g), rc(st, g)
        extra = [c_one] + [read(st, g) for read in carries]
        if pair_c or wide:
            terms, width = [bits.multiply_wide(a, b, signed), c] + extra, U64
        else:
            terms, width = [bits.multiply_high(a, b, signed) if high else bits.multiply_low(a, b), c] + extra, U32
        if carry_writers:
            final, carry = bits.add_with_carry(terms, width)
        else:
            final, carry = bits.wrapping_sum(terms, width), None
        if pair_c:
            final = final >> U64(32)
        write(st, g, final)
        _write_carries(carry_writers, st, g, carry)
    return Step(ins, run)


def _wide_sum(st, g, a, b, signed: bool, pair, rc, row: int) -> None:
    """IMAD.WIDE's a * b + c into {R[row+1]:R[row]} (no carries): the exact product, widened once, takes
    c in place (a register pair a word at a time) and its words are stored by truncation, the bits of
    multiply_wide, the adder's wrapping sum and dest's split with two temporaries where those made
    eleven (every kernel indexes its arrays so; saxpy's two over 65,536 lanes: 1.6 -> 0.6 ms)."""
    a, b = np.asarray(a), np.asarray(b)
    work = np.int64 if signed else np.uint64
    if signed:
        a, b = bits.as_signed(a), bits.as_signed(b)
    wide_a, wide_b = a.astype(work), b.astype(work)
    if wide_a.ndim:
        wide_a *= wide_b
        total = wide_a
    elif wide_b.ndim:
        wide_b *= wide_a
        total = wide_b
    else:
        total = np.full(g.n, wide_a * wide_b, dtype=work)
    total = total.view(U64)
    if pair is not None:                            # both words read before either is written
        np.add(total, st.R[pair][g.sel], out=total)
        high = st.R[pair + 1][g.sel].astype(U64)
        high <<= U64(32)
        total += high
    else:
        c = np.asarray(rc(st, g), dtype=U64)
        if c.ndim or c:
            total += c
    st.R[row][g.sel] = total                       # (truncated: the low word)
    total >>= U64(32)
    st.R[row + 1][g.sel] = total


# ------------------------------------------------------------------ LEA

@semantics("LEA", "ULEA", family="integer", pipe=("alu", "uniform"), mods=("HI", "X", "SX32"),
           doc="(a << s) + b; .HI: high word of ({c:a} << s) + b (.SX32: c is a's sign); .X adds a carry-in")
def lea(ins):
    dst, outs, values, tail = split_operands(ins)
    high = "HI" in ins.mods
    sx32 = "SX32" in ins.mods
    if not values or values[-1].kind != "imm":
        raise Unsupported("shift amount not an immediate")
    shift = int(values[-1].value) & 31
    if high:
        need = 3 if sx32 else 4
        if len(values) != need:
            raise Unsupported("operand form")
    elif len(values) != 3:
        raise Unsupported("operand form")
    ra, a_one = adder_term(values[0])
    rb = source(values[1])
    rc = None if (not high or sx32) else source(values[2])
    carries = _carry_ins(tail) if "X" in ins.mods else []
    write, carry_writers = dest(dst), [pred_dest(op) for op in outs]

    # -a (not .HI) enters the adder as ~(a << s) + 1, as IADD3's -a does: the same sum as (-a) << s, but
    # the carry-out of b - (a << s), which ptxas's 64-bit subtractions chain (ULEA UR6, UP0, -UR4, UR18, 0x1e)
    low_ones = U32((1 << shift) - 1) if a_one and not high else U32(0)

    def run(st, g):
        if high:
            a = np.asarray(bits.wrapping_sum([ra(st, g), a_one], U32))
            c = np.where(a >> U32(31), U32(0xFFFFFFFF), U32(0)) if sx32 else rc(st, g)
            terms = [funnel_shift(a, c, shift, left=True) >> U64(32)]
        else:
            terms = [bits.shift_left(np.asarray(ra(st, g), dtype=U32), shift) | low_ones, U32(a_one)]
        terms += [rb(st, g)] + [read(st, g) for read in carries]
        if not carry_writers:
            write(st, g, bits.wrapping_sum(terms, U32))
            return
        total, carry = bits.add_with_carry(terms, U32)
        write(st, g, total)
        _write_carries(carry_writers, st, g, carry)
    return Step(ins, run)


# ------------------------------------------------------------------ logic

@semantics("LOP3", "ULOP3", family="integer", pipe=("alu", "uniform"), mods=("LUT",),
           doc="any bitwise function of a, b, c given as an 8-bit truth table; optional P = result != 0")
def lop3(ins):
    dst, outs, values, tail = split_operands(ins)
    if len(values) != 4 or values[3].kind != "imm":
        raise Unsupported("operand form")
    if tail and not (tail[0].name in ("PT", "UPT") and tail[0].invert):
        raise Unsupported("predicate input other than !PT")
    lut = int(values[3].value) & 0xFF
    reads = [source(op) for op in values[:3]]
    write = dest(dst)
    flags = [pred_dest(op) for op in outs]

    def run(st, g):
        a, b, c = (np.asarray(r(st, g), dtype=U32) for r in reads)
        result = lut3(lut, a, b, c)
        write(st, g, result)
        for flag in flags:
            flag(st, g, result != 0)
    return Step(ins, run)


@semantics("SHF", "USHF", family="integer", pipe=("alu", "uniform"), mods=("L", "R", "W", "HI") + INT_TYPES,
           doc="funnel shift of {c:a} by b: .L/.R, .HI high word, .W wrapping amount, type = sign and clamp")
def shf(ins):
    dst, a, b, c = ins.operands[:4]
    left = "L" in ins.mods
    high = "HI" in ins.mods
    wrap = "W" in ins.mods
    kind = next((m for m in ins.mods if m in INT_TYPES), "U32")
    signed = kind.startswith("S")
    limit = 64 if kind.endswith("64") else 32
    ra, rb, rc = source(a), source(b), source(c)

    def fn(x, s, y):
        shifted = funnel_shift(x, y, bits.shift_amount(s, wrap, limit), left, signed)
        return (shifted >> U64(32) if high else shifted) & M32
    return Step(ins, alu([dest(dst)], [ra, rb, rc], fn))


@semantics("SHL", "USHL", family="integer", pipe=("alu", "uniform"),
           mods=("W",), doc="a << b (clamped at 32 unless .W)")
def shl(ins):
    dst, a, b = ins.operands[:3]
    wrap = "W" in ins.mods

    def fn(x, s):
        return bits.shift_left(np.asarray(x, dtype=U32), bits.shift_amount(s, wrap))
    return Step(ins, alu([dest(dst)], [source(a), source(b)], fn))


@semantics("SHR", "USHR", family="integer", pipe=("alu", "uniform"), mods=("U32", "S32", "W"),
           doc="a >> b, arithmetic for .S32 (clamped at 32 unless .W)")
def shr(ins):
    dst, a, b = ins.operands[:3]
    signed, wrap = "S32" in ins.mods, "W" in ins.mods

    def fn(x, s):
        x = np.asarray(x, dtype=U32)
        return bits.as_unsigned(bits.shift_right(bits.as_signed(x) if signed else x, bits.shift_amount(s, wrap)))
    return Step(ins, alu([dest(dst)], [source(a), source(b)], fn))


@semantics("PRMT", "UPRMT", family="integer", pipe=("alu", "uniform"), mods=(),
           doc="byte permute of {b:a}: each selector nibble picks a byte (bit 3: replicate its sign)")
def prmt(ins):
    dst, a, sel, b = ins.operands[:4]

    return Step(ins, alu([dest(dst)], [source(a), source(sel), source(b)],
                          lambda x, s, y: permute_bytes(x, y, s)))


@semantics("IABS", "UIABS", family="integer", pipe=("alu", "uniform"),
           mods=(), doc="|a| of a signed 32-bit value (wraps at -2**31)")
def iabs(ins):
    dst, a = ins.operands[:2]
    return Step(ins, alu([dest(dst)], [source(a)], lambda x: bits.absolute(np.asarray(x, dtype=U32))))


def _min_max(ins, values_at, pred_at):
    reads = [source(ins.operands[k]) for k in values_at]
    choose_min = predicate(ins.operands[pred_at])
    signed, relu = "U32" not in ins.mods, "RELU" in ins.mods

    def fn(*values):
        return bits.min_max(values[:-1], values[-1], signed, relu)
    return Step(ins, alu([dest(ins.operands[0])], reads + [choose_min], fn))


@semantics("IMNMX", "UIMNMX", "VIMNMX", "UVIMNMX", family="integer", pipe=("alu", "uniform", "alu", "uniform"),
           mods=("U32", "S32", "RELU", "U16x2", "S16x2"),
           doc="min (predicate true) or max (false) of a and b, signed unless .U32; .RELU: at least 0; "
               ".U16x2/.S16x2: of each 16-bit lane pair")
def imnmx(ins):
    if len(ins.operands) != 4:
        raise Unsupported("operand form")
    packed = {"U16x2", "S16x2"} & set(ins.mods)
    if packed:
        signed, relu = "S16x2" in packed, "RELU" in ins.mods
        reads = [source(ins.operands[1]), source(ins.operands[2]), predicate(ins.operands[3])]
        return Step(ins, alu([dest(ins.operands[0])], reads,
                             lambda a, b, take_min: bits.packed_min_max(a, b, take_min, 16, signed, relu)))
    return _min_max(ins, (1, 2), 3)


@semantics("VABSDIFF", family="integer", pipe="alu", mods=("U32", "S32"),
           doc="c + abs(a - b) (sad), the difference exact, signed unless .U32")
def vabsdiff(ins):
    if len(ins.operands) != 4:
        raise Unsupported("operand form")
    signed = "U32" not in ins.mods
    return Step(ins, alu([dest(ins.operands[0])], [source(op) for op in ins.operands[1:]],
                         lambda a, b, c: bits.absolute_difference_sum(a, b, c, signed)))


@semantics("VABSDIFF4", family="integer", pipe="alu", mods=("U8", "S8", "ACC"),
           doc="abs(a - b) of each byte pair, signed unless .U8, packed; .ACC: c + their sum (vabsdiff4[.add])")
def vabsdiff4(ins):
    if len(ins.operands) != 4:
        raise Unsupported("operand form")
    signed, accumulate = "U8" not in ins.mods, "ACC" in ins.mods

    def fn(a, b, c):
        differences = bits.lane_absolute_differences(a, b, 8, signed, signed)
        return bits.accumulate_lanes(c, differences) if accumulate else bits.pack_lanes(differences, 8)
    return Step(ins, alu([dest(ins.operands[0])], [source(op) for op in ins.operands[1:]], fn))


@semantics("IDP", family="integer", pipe="fma", mods=("4A", "2A", "LO", "HI", "S8", "U8", "S16", "U16"),
           doc="c + the dot product of a's four bytes (.4A) or two halves (.2A) with b's bytes (.2A: bytes "
               "0-1 .LO, 2-3 .HI); the types a's then b's (dp4a, dp2a)")
def idp(ins):
    if len(ins.operands) != 4:
        raise Unsupported("operand form")
    types = [m for m in ins.mods if m in ("S8", "U8", "S16", "U16")]
    halves = "2A" in ins.mods
    if len(types) != 2 or halves == ("4A" in ins.mods) or (halves and len({"LO", "HI"} & set(ins.mods)) != 1):
        raise Unsupported("modifiers " + ".".join(ins.mods))

    def fn(a, b, c):
        return bits.dot_accumulate(a, b, c, 16 if halves else 8, types[0][0] == "S", types[1][0] == "S",
                                   "HI" in ins.mods)
    return Step(ins, alu([dest(ins.operands[0])], [source(op) for op in ins.operands[1:]], fn))


@semantics("VIMNMX3", "UVIMNMX3", family="integer", pipe=("alu", "uniform"),
           mods=("U32", "S32", "RELU", "U16x2", "S16x2"),
           doc="min (predicate true) or max (false) of a, b and c, signed unless .U32; .RELU: at least 0; "
               ".U16x2/.S16x2: of each 16-bit lane (__vimax3_s16x2 and the like)")
def imnmx3(ins):
    if len(ins.operands) != 5:
        raise Unsupported("operand form")
    packed = {"U16x2", "S16x2"} & set(ins.mods)
    if packed:
        signed, relu = "S16x2" in packed, "RELU" in ins.mods
        reads = [source(op) for op in ins.operands[1:4]] + [predicate(ins.operands[4])]

        def fn(a, b, c, take_min):
            pair = bits.packed_min_max(a, b, take_min, 16, signed)
            return bits.packed_min_max(pair, c, take_min, 16, signed, relu)
        return Step(ins, alu([dest(ins.operands[0])], reads, fn))
    return _min_max(ins, (1, 2, 3), 4)


@semantics("POPC", "UPOPC", family="integer", pipe=("mufu", "uniform"), mods=(), doc="number of set bits")
def popc(ins):
    dst, a = ins.operands[:2]
    return Step(ins, alu([dest(dst)], [source(a)], bits.popcount))


@semantics("FLO", "UFLO", family="integer", pipe=("mufu", "uniform"), mods=("U32", "S32", "SH"),
           doc="bit position of the highest set bit (-1 if none); .S32 the highest bit differing from the "
               "sign; .SH: 31 minus it (a shift amount)")
def flo(ins):
    dst, a = ins.operands[0], ins.operands[-1]
    signed, shift = "U32" not in ins.mods, "SH" in ins.mods
    return Step(ins, alu([dest(dst)], [source(a)], lambda x: bits.find_leading_bit(x, signed, shift)))


@semantics("BREV", "UBREV", family="integer", pipe=("mufu", "uniform"), mods=(), doc="bit reverse")
def brev(ins):
    dst, a = ins.operands[:2]
    return Step(ins, alu([dest(dst)], [source(a)], bits.reverse_bits))


@semantics("BMSK", "UBMSK", family="integer", pipe=("alu", "uniform"),
           mods=("W",), doc="mask of b ones starting at bit a (clamped, or mod 32 under .W)")
def bmsk(ins):
    dst, a, b = ins.operands[:3]
    clamp = "W" not in ins.mods
    return Step(ins, alu([dest(dst)], [source(a), source(b)], lambda x, y: bits.bit_mask(x, y, clamp)))


@semantics("SGXT", "USGXT", family="integer", pipe=("alu", "uniform"), mods=("U32", "W"),
           doc="sign-extend (zero-extend for .U32) the low b bits of a (b clamped at 32, or mod 32 under .W)")
def sgxt(ins):
    dst, a, b = ins.operands[:3]
    signed, clamp = "U32" not in ins.mods, "W" not in ins.mods
    return Step(ins, alu([dest(dst)], [source(a), source(b)],
                         lambda x, y: bits.extend_low_bits(x, y, signed, clamp)))


@semantics("VIADDMNMX", "UVIADDMNMX", family="integer", pipe=("alu", "uniform"),
           mods=("U32", "S32", "RELU", "U16x2", "S16x2"),
           doc="min (predicate true) or max of a + b (wrapped) and c, signed unless .U32; .RELU: at least 0; "
               ".U16x2/.S16x2: of each 16-bit lane (__viaddmax_s16x2 and the like)")
def viaddmnmx(ins):
    if len(ins.operands) != 5:
        raise Unsupported("operand form")
    dst, a, b, c, p = ins.operands
    packed = {"U16x2", "S16x2"} & set(ins.mods)
    read = packed_source if packed else source
    ra, rb, rc, choose_min = read(a), read(b), read(c), predicate(p)
    signed = "S16x2" in packed if packed else "U32" not in ins.mods
    relu = "RELU" in ins.mods

    def fn(x, y, z, smaller):
        if packed:
            return bits.packed_min_max(bits.packed_sum(x, y, 16), z, smaller, 16, signed, relu)
        return bits.min_max([bits.add_with_carry([x, y], U32)[0], z], smaller, signed, relu)
    return Step(ins, alu([dest(dst)], [ra, rb, rc, choose_min], fn))
