"""Comparisons and predicate logic: ISETP, FSETP, FSET, DSETP, HSETP2, HSET2, PLOP3, SEL/FSEL, P2R/R2P.

A set-predicate instruction `ISETP.GE.AND P0, P1, a, b, Pc` writes
P0 = (a >= b) AND Pc and P1 = (NOT (a >= b)) AND Pc; the combining operation
is .AND, .OR or .XOR. `.EX` chains a 64-bit comparison: the high words are
compared and the trailing predicate is the low words' result, so equal high
words defer to it. Float comparisons name ordered (EQ, NE, LT, ...: false on
NaN) and unordered ones (EQU, NEU, LTU, ...: true on NaN): semantics/compare.py,
which PTX's setp calls too. HSETP2 and HSET2 compare the f16 halves (bf16 with
.BF16_V2) of two words, as setp/set.f16x2 do (semantics/packed.py): HSETP2's
P takes the low halves' result and Q the high halves', each combined with Pc;
HSET2 writes each half 1.0 (.BF) or 0xffff where true.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...semantics.bits import lut3
from ...semantics.compare import FLOAT_TESTS, compare as compare_bits
from ...semantics.floatbits import F32, flush_subnormal
from ...semantics.floating import min_max_picks
from ...semantics.packed import pack_truths, packed_compare
from .floating import half_sources, half_type
from .operands import U32, U64, alu, dest, f32, f64, pred_dest, predicate, source
from .table import Step, Unsupported, semantics

INTEGER_TESTS = ("EQ", "NE", "LT", "LE", "GT", "GE")
COMBINE = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}
STRICT = {"GE": "GT", "LE": "LT", "GT": "GT", "LT": "LT"}


def _combined(ins, compare, values, chain=None):
    """Build the step of a set-predicate instruction from `compare(st, g) -> bool array`."""
    ops = ins.operands
    first, second = pred_dest(ops[0]), pred_dest(ops[1])
    combine = next((COMBINE[m] for m in ins.mods if m in COMBINE), None)
    if combine is None:
        raise Unsupported("no .AND/.OR/.XOR")
    with_pred = predicate(ops[2 + values])

    def run(st, g):
        result = np.asarray(compare(st, g), dtype=bool)
        other = np.array(with_pred(st, g), dtype=bool)     # a copy: Pc may be the first destination
        first(st, g, combine(result, other))
        second(st, g, combine(~result, other))
    return Step(ins, run)


def _integer_compare(ins, ra, rb, test, signed, chain):
    def compare(st, g):
        a, b = np.asarray(ra(st, g), dtype=U32), np.asarray(rb(st, g), dtype=U32)
        if signed:
            a, b = a.astype(np.int32), b.astype(np.int32)
        if chain is None:
            return compare_bits(test.lower(), a, b)
        low = chain(st, g)
        if test == "EQ":
            return (a == b) & low
        if test == "NE":
            return (a != b) | low
        return compare_bits(STRICT[test].lower(), a, b) | ((a == b) & low)
    return compare


@semantics("ISETP", "UISETP", family="compare", pipe=("alu", "uniform"),
           mods=INTEGER_TESTS + tuple(COMBINE) + ("U32", "S32", "EX"),
           doc="P = (a cmp b) op Pc, Q = !(a cmp b) op Pc; signed unless .U32; .EX chains 64-bit compares")
def isetp(ins):
    test = next((m for m in ins.mods if m in INTEGER_TESTS), None)
    if test is None:
        raise Unsupported("no comparison")
    ops = ins.operands
    chain = None
    if "EX" in ins.mods:
        if len(ops) != 6:
            raise Unsupported("operand form")
        chain = predicate(ops[5])
    ra, rb = source(ops[2]), source(ops[3])
    signed = "U32" not in ins.mods
    compare = _integer_compare(ins, ra, rb, test, signed, chain)
    return _combined(ins, compare, 2)


def float_test(name: str):
    """The comparison a float test modifier names (semantics/compare.py: PTX's NaN rules), or None."""
    test = name.lower()
    if test not in FLOAT_TESTS:
        return None
    return lambda a, b: compare_bits(test, a, b)


SASS_FLOAT_TESTS = tuple(t.upper() for t in FLOAT_TESTS)


@semantics("FSETP", family="compare", pipe="alu", mods=SASS_FLOAT_TESTS + tuple(COMBINE) + ("FTZ",),
           doc="float32 compare, ordered or unordered, combined with a predicate; .FTZ flushes subnormals")
def fsetp(ins):
    test = next((float_test(m) for m in ins.mods if float_test(m) is not None), None)
    if test is None:
        raise Unsupported("no comparison")
    ops = ins.operands
    ra, rb = source(ops[2], floating=True), source(ops[3], floating=True)
    ftz = "FTZ" in ins.mods

    def compare(st, g):
        a, b = f32(ra(st, g)), f32(rb(st, g))
        if ftz:
            a, b = flush_subnormal(a, F32), flush_subnormal(b, F32)
        return test(a, b)
    return _combined(ins, compare, 2)


@semantics("FSET", family="compare", pipe="fp32", mods=SASS_FLOAT_TESTS + tuple(COMBINE) + ("FTZ", "BF"),
           doc="Rd = (a cmp b) op Pc ? 1.0 (.BF) or 0xffffffff : 0, float32 (set.f32.f32)")
def fset(ins):
    test = next((float_test(m) for m in ins.mods if float_test(m) is not None), None)
    combine = next((COMBINE[m] for m in ins.mods if m in COMBINE), None)
    if test is None or combine is None:
        raise Unsupported("no comparison or no .AND/.OR/.XOR")
    ops = ins.operands
    if len(ops) != 4:
        raise Unsupported("operand form")
    ra, rb, with_pred = source(ops[1], floating=True), source(ops[2], floating=True), predicate(ops[3])
    ftz, true_bits = "FTZ" in ins.mods, U32(0x3F800000 if "BF" in ins.mods else 0xFFFFFFFF)

    def fn(a, b, c):
        a, b = f32(a), f32(b)
        if ftz:
            a, b = flush_subnormal(a, F32), flush_subnormal(b, F32)
        return np.where(combine(test(a, b), c), true_bits, U32(0))
    return Step(ins, alu([dest(ops[0])], [ra, rb, with_pred], fn))


@semantics("DSETP", family="compare", pipe="alu", mods=SASS_FLOAT_TESTS + tuple(COMBINE) + ("MIN", "MAX"),
           doc="float64 compare, ordered or unordered, combined with a predicate; .MIN/.MAX: P = min/max(a, b) "
               "is a, Q = both NaN (ptxas's min/max.f64 selects and quiets by them)")
def dsetp(ins):
    ops = ins.operands
    ra, rb = source(ops[2], 64, floating=True), source(ops[3], 64, floating=True)
    pick = next((m for m in ins.mods if m in ("MIN", "MAX")), None)
    if pick is not None:
        return _min_max_picks(ins, ra, rb, pick == "MIN")
    test = next((float_test(m) for m in ins.mods if float_test(m) is not None), None)
    if test is None:
        raise Unsupported("no comparison")

    def compare(st, g):
        return test(f64(ra(st, g)), f64(rb(st, g)))
    return _combined(ins, compare, 2)


def _min_max_picks(ins, ra, rb, take_min):
    """DSETP.MIN/MAX P, Q, a, b, PT (semantics.floating.min_max_picks); another Pc is not modelled."""
    ops = ins.operands
    if "AND" not in ins.mods or ops[4].kind != "pred" or ops[4].number is not None or ops[4].invert:
        raise Unsupported(f"DSETP.{'MIN' if take_min else 'MAX'} with Pc {ops[4].text}")
    first, second = pred_dest(ops[0]), pred_dest(ops[1])

    def run(st, g):
        a, b = (np.broadcast_to(f64(r(st, g)), (g.n,)) for r in (ra, rb))
        takes_a, both_nan = min_max_picks(np.ascontiguousarray(a), np.ascontiguousarray(b), take_min)
        first(st, g, takes_a)
        second(st, g, both_nan)
    return Step(ins, run)


def _half_compare(ins, operands):
    """compare(st, g) -> (low, high) of an HSETP2/HSET2 test on its two packed sources."""
    test = next((m.lower() for m in ins.mods if float_test(m) is not None), None)
    if test is None:
        raise Unsupported("no comparison")
    if "H_AND" in ins.mods:
        raise Unsupported(".H_AND")
    elem, ftz = half_type(ins), "FTZ" in ins.mods
    readers = half_sources(operands, elem)
    if len(readers) != 2:
        raise Unsupported("operand form")
    selects = [select for _, select in readers]

    def compare(st, g):
        a, b = (read(st, g) for read, _ in readers)
        return packed_compare(test, elem, a, b, ftz, selects)
    return compare


HALF_COMPARE_MODS = SASS_FLOAT_TESTS + tuple(COMBINE) + ("FTZ", "BF16_V2", "H_AND")


@semantics("HSETP2", family="compare", pipe="alu", mods=HALF_COMPARE_MODS,
           doc="P = (low halves cmp) op Pc, Q = (high halves cmp) op Pc; f16, or bf16 with .BF16_V2")
def hsetp2(ins):
    ops = ins.operands                  # P, Q, a, b, Pc; b may be two immediates (its halves)
    if len(ops) not in (5, 6):
        raise Unsupported("operand form")
    compare, (first, second) = _half_compare(ins, ops[2:-1]), (pred_dest(ops[0]), pred_dest(ops[1]))
    combine, with_pred = next((COMBINE[m] for m in ins.mods if m in COMBINE), None), predicate(ops[-1])
    if combine is None:
        raise Unsupported("no .AND/.OR/.XOR")

    def run(st, g):
        low, high = compare(st, g)
        other = with_pred(st, g)
        first(st, g, combine(low, other))
        second(st, g, combine(high, other))
    return Step(ins, run)


@semantics("HSET2", family="compare", pipe="alu", mods=HALF_COMPARE_MODS + ("BF",),
           doc="each half = (cmp op Pc) ? 1.0 (.BF) or 0xffff : 0; f16, or bf16 with .BF16_V2")
def hset2(ins):
    ops = ins.operands                  # Rd, a, b, Pc; b may be two immediates (its halves)
    if len(ops) not in (4, 5):
        raise Unsupported("operand form")
    compare, write, with_pred = _half_compare(ins, ops[1:-1]), dest(ops[0]), predicate(ops[-1])
    combine = next((COMBINE[m] for m in ins.mods if m in COMBINE), None)
    if combine is None:
        raise Unsupported("no .AND/.OR/.XOR")
    true_bits = ({"f16": 0x3C00, "bf16": 0x3F80}[half_type(ins)] if "BF" in ins.mods else 0xFFFF)

    def run(st, g):
        other = with_pred(st, g)
        low, high = (combine(t, other) for t in compare(st, g))
        write(st, g, np.broadcast_to(pack_truths(low, high, true_bits), (g.n,)))
    return Step(ins, run)


def _truth(op):
    """A PLOP3 input: a predicate, or a register's sign bit (`R0.SIGN`, ptxas's overflow test of
    add.sat.s32: the signs of both operands and of the wrapped sum), `!` inverting either."""
    if op.kind not in ("reg", "ureg") or op.suffixes != ("SIGN",):
        return predicate(op)
    read, top, invert = source(replace(op, invert=False, suffixes=())), U32(31), op.invert
    return lambda st, g: (np.asarray(read(st, g), dtype=U32) >> top).astype(bool) ^ invert


@semantics("PLOP3", "UPLOP3", family="compare", pipe=("alu", "uniform"), mods=("LUT",),
           doc="two truth tables over three predicates: P = lut(a, b, c), Q = lut2(a, b, c)")
def plop3(ins):
    ops = ins.operands
    if len(ops) != 7:
        raise Unsupported("operand form")
    first, second = pred_dest(ops[0]), pred_dest(ops[1])
    reads = [_truth(op) for op in ops[2:5]]
    tables = int(ops[5].value) & 0xFF, int(ops[6].value) & 0xFF

    def run(st, g):
        a, b, c = (np.array(r(st, g), dtype=bool) for r in reads)     # copies: a source may be the first destination
        first(st, g, lut3(tables[0], a, b, c))
        second(st, g, lut3(tables[1], a, b, c))
    return Step(ins, run)


@semantics("SEL", "USEL", "FSEL", family="compare", pipe=("alu", "uniform", "fp32"), mods=(), doc="P ? a : b")
def sel(ins):
    dst, a, b, p = ins.operands[:4]
    return Step(ins, alu([dest(dst)], [source(a, floating=ins.opcode == "FSEL"),
                                       source(b, floating=ins.opcode == "FSEL"), predicate(p)],
                         lambda x, y, c: np.where(c, x, y)))


@semantics("P2R", "UP2R", family="compare", pipe=("alu", "uniform"), mods=(),
           doc="Rd = (a & ~mask) | (predicate bits P0..P6 & mask), from PR")
def p2r(ins):
    ops = ins.operands
    if len(ops) != 4 or ops[1].name not in ("PR", "UPR") or ops[3].kind != "imm":
        raise Unsupported("operand form")
    write, base, mask = dest(ops[0]), source(ops[2]), int(ops[3].value) & 0x7F
    file = "UP" if ops[1].name == "UPR" else "P"

    def run(st, g):
        bits = np.zeros(g.n, dtype=U32)
        rows = getattr(st, file)
        for k in range(7):
            if mask >> k & 1:
                bits |= rows[k][g.sel].astype(U32) << U32(k)
        write(st, g, (np.asarray(base(st, g), dtype=U32) & U32(~mask & 0xFFFFFFFF)) | bits)
    return Step(ins, run)


@semantics("R2P", family="compare", pipe="alu", mods=(), doc="P_k = bit k of a, for the bits of mask")
def r2p(ins):
    ops = ins.operands
    if len(ops) != 3 or ops[0].name != "PR" or ops[2].kind != "imm":
        raise Unsupported("operand form")
    value, mask = source(ops[1]), int(ops[2].value) & 0x7F

    def run(st, g):
        bits = np.broadcast_to(np.asarray(value(st, g), dtype=U32), (g.n,))
        for k in range(7):
            if mask >> k & 1:
                st.P[k][g.sel] = (bits >> U32(k)) & U32(1) != 0
    return Step(ins, run)
