"""Compare SASS in the compiled tier: ISETP/UISETP, FSETP, DSETP, PLOP3/UPLOP3, and FMNMX.

The same forms and rules as sass/executor/compare.py (FMNMX: executor/floating.py
and semantics.floating.min_max). A set-predicate row writes P = r op Pc and
Q = !r op Pc (destinations 0 and 1; op .AND/.OR/.XOR in the flags) from its
test r of sources 0 and 1, with Pc its third source.

A test is a truth table over the outcome of the comparison: bit 0 less, bit 1
equal, bit 2 greater, bit 3 unordered (a NaN operand): EQ is 0b0010, NEU
0b1101, NUM 0b0111, T 0b1111. `.EX` (a 64-bit compare chained through the
trailing predicate, the low words' result) is the same table with the
equal outcome read from that predicate, which gives every chained rule of the
NumPy step (EQ: eq & low, NE: ne | low, LE: lt | eq & low, ...). The truth at
equal operands is the table's bit ORed with that predicate: a chained row
clears the bit, a row without .EX has !PT there, so one loop serves both.

Floats are compared on their bits, so the rules hold for every NaN payload,
both zeros, subnormals and infinities: a non-NaN value's order key is 2**63
plus its magnitude bits, or minus them when the sign is set (the keys of +0
and -0 are equal, and the order of keys is IEEE's); .FTZ reads a subnormal's
magnitude as zero, as semantics.floatbits.flush_subnormal does.

A lane's sources are all read before its destinations are written, as the
hardware reads them: a destination may be Pc, the .EX predicate or a PLOP3
input.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .lanes import M32, M64, SIGN32, SIGN64, in_pred, out32, out_pred, put32, read32, read64, source
from .layout import Unencodable, encodes, family

FAMILY = family("compare")
INT_TEST, F32_TEST, F64_TEST, F64_PICKS, PRED_LUT, PRED_SIGN_LUT, F32_MIN_MAX = range(7)

# flags: a test's truth table in bits 0-3, then the instruction's own bits
SIGNED = 1 << 4             # ISETP: signed words (not .U32)
FTZ = 1 << 5                # FSETP, FMNMX: subnormal operands read as zero of their sign
TAKE_MIN = 1 << 6           # DSETP.MIN (else .MAX)
NAN_WINS = 1 << 7           # FMNMX.NAN: a NaN operand makes the result NaN
COMBINE_AT = 8              # set-predicate rows: the combining operation, 2 bits
AND, OR, XOR = range(3)
COMBINE = {"AND": AND, "OR": OR, "XOR": XOR}

LESS, EQUAL, GREATER, UNORDERED = 1, 2, 4, 8
TESTS = {
    "EQ": EQUAL, "NE": LESS | GREATER, "LT": LESS, "LE": LESS | EQUAL, "GT": GREATER, "GE": GREATER | EQUAL,
    "NUM": LESS | EQUAL | GREATER, "NAN": UNORDERED, "T": LESS | EQUAL | GREATER | UNORDERED, "F": 0,
}
for _name in ("EQ", "NE", "LT", "LE", "GT", "GE"):
    TESTS[_name + "U"] = TESTS[_name] | UNORDERED
INTEGER_TESTS = ("EQ", "NE", "LT", "LE", "GT", "GE")

U64_ = np.uint64
BIAS = U64_(1 << 63)
ABS32, ABS64 = M32 ^ SIGN32, M64 ^ SIGN64
INF32, INF64 = U64_(0x7F800000), U64_(0x7FF0000000000000)
MIN_NORMAL32 = U64_(0x00800000)
CANONICAL_NAN32 = U64_(0x7FFFFFFF)
ZERO, ONE, TWO, THREE, FOUR = U64_(0), U64_(1), U64_(2), U64_(3), U64_(4)
SHIFT32, SHIFT64 = U64_(31), U64_(63)         # a word's sign bit, shifted down


def _first(mods, names):
    """The first of the instruction's modifiers among `names` (the NumPy step takes the first), or None."""
    return next((m for m in mods if m in names), None)


def _set_predicate(ins, row, allowed: set):
    """The two predicate destinations and the combining operation of a set-predicate instruction;
    its sources come after."""
    ops = ins.operands
    if set(ins.mods) - allowed:
        raise Unencodable("modifier")
    combine = _first(ins.mods, COMBINE)
    if combine is None:
        raise Unencodable("no .AND/.OR/.XOR")
    if any(op.kind not in ("pred", "upred") for op in ops[:2]):
        raise Unencodable("operand form")
    row.dest(ops[0])
    row.dest(ops[1])
    return COMBINE[combine] << COMBINE_AT


@encodes("ISETP", "UISETP", family_number=FAMILY)
def isetp(ins, row):
    """Sources a, b, Pc, and the predicate ORed into the equal outcome (.EX's trailing one, or !PT)."""
    ops = ins.operands
    chained = "EX" in ins.mods
    if len(ops) != (6 if chained else 5):
        raise Unencodable("operand form")
    test = _first(ins.mods, INTEGER_TESTS)
    if test is None:
        raise Unencodable("no comparison")
    combine = _set_predicate(ins, row, set(INTEGER_TESTS) | set(COMBINE) | {"U32", "S32", "EX"})
    row.on_rows()
    row.source(ops[2])
    row.source(ops[3])
    row.predicate(ops[4])
    table = TESTS[test]
    if chained:
        row.predicate(ops[5])
        table &= ~EQUAL
    else:
        row.never()
    row.op(INT_TEST, table | combine | (0 if "U32" in ins.mods else SIGNED))


@encodes("FSETP", family_number=FAMILY)
def fsetp(ins, row):
    ops = ins.operands
    test = _first(ins.mods, TESTS)
    if test is None or len(ops) != 5:
        raise Unencodable("no comparison, or operand form")
    combine = _set_predicate(ins, row, set(TESTS) | set(COMBINE) | {"FTZ"})
    row.on_rows()
    row.source(ops[2], floating=True)
    row.source(ops[3], floating=True)
    row.predicate(ops[4])
    row.op(F32_TEST, TESTS[test] | combine | (FTZ if "FTZ" in ins.mods else 0))


@encodes("DSETP", family_number=FAMILY)
def dsetp(ins, row):
    """A test, or .MIN/.MAX's picks: P = min/max(a, b) is a (semantics.floating.min_max_picks),
    Q = both NaN; the NumPy step models those with Pc PT under .AND only."""
    ops = ins.operands
    if len(ops) != 5:
        raise Unencodable("operand form")
    pick = _first(ins.mods, ("MIN", "MAX"))
    if pick is not None:
        pc = ops[4]
        if "AND" not in ins.mods or pc.kind != "pred" or pc.number is not None or pc.invert:
            raise Unencodable(f"DSETP.{pick} with Pc {pc.text}")
        _set_predicate(ins, row, set(TESTS) | set(COMBINE) | {"MIN", "MAX"})
        row.source(ops[2], 64, floating=True)
        row.source(ops[3], 64, floating=True)
        row.op(F64_PICKS, TAKE_MIN if pick == "MIN" else 0)
        return
    test = _first(ins.mods, TESTS)
    if test is None:
        raise Unencodable("no comparison")
    combine = _set_predicate(ins, row, set(TESTS) | set(COMBINE))
    row.source(ops[2], 64, floating=True)
    row.source(ops[3], 64, floating=True)
    row.predicate(ops[4])
    row.op(F64_TEST, TESTS[test] | combine)


def _is_sign(op) -> bool:
    """PLOP3's `R0.SIGN` input: a register's sign bit (! inverts it)."""
    return op.kind in ("reg", "ureg") and op.suffixes == ("SIGN",)


@encodes("PLOP3", "UPLOP3", family_number=FAMILY)
def plop3(ins, row):
    """Sources: the three inputs as predicates; with a register's sign among them, the three
    predicates (!PT for a sign) then three words whose sign bit is ORed in (0 for a predicate)."""
    ops = ins.operands
    if len(ops) != 7 or set(ins.mods) - {"LUT"} or ops[5].kind != "imm" or ops[6].kind != "imm":
        raise Unencodable("operand form")
    if any(op.kind not in ("pred", "upred") for op in ops[:2]):
        raise Unencodable("operand form")
    row.dest(ops[0])
    row.dest(ops[1])
    inputs = ops[2:5]
    signs = [_is_sign(op) for op in inputs]
    for op, sign in zip(inputs, signs):
        if sign:
            row.never()
        else:
            row.predicate(op)
    if any(signs):
        for op, sign in zip(inputs, signs):
            if sign:
                if op.negate or op.absolute:
                    raise Unencodable(f"operand {op.text}")
                row.source(op)          # ! reads as ~: the inverted word's sign bit
            else:
                row.constant(0)
    tables = (int(ops[5].value) & 0xFF) | (int(ops[6].value) & 0xFF) << 8
    row.op(PRED_SIGN_LUT if any(signs) else PRED_LUT, tables)


@encodes("FMNMX", family_number=FAMILY)
def fmnmx(ins, row):
    """Rd = P ? min(a, b) : max(a, b) in f32: semantics.floating.min_max under .FTZ (operands) and
    .NAN (a NaN wins), a NaN result the canonical 0x7fffffff."""
    ops = ins.operands
    if set(ins.mods) - {"FTZ", "NAN"} or len(ops) != 4:
        raise Unencodable("FMNMX variant")
    row.dest(ops[0])
    row.source(ops[1], floating=True)
    row.source(ops[2], floating=True)
    row.predicate(ops[3])
    row.op(F32_MIN_MAX, (FTZ if "FTZ" in ins.mods else 0) | (NAN_WINS if "NAN" in ins.mods else 0))


@njit(inline="always")
def _combined_tables(table, how):
    """The 8-bit tables of P = r op Pc and Q = !r op Pc, indexed by outcome * 2 + Pc, built once per
    instruction so that a lane's two results are two shifts of one index."""
    first, second = ZERO, ZERO
    for outcome in range(4):
        r = (table >> U64_(outcome)) & ONE
        for other in range(2):
            c = U64_(other)
            if how == AND:
                p, q = r & c, (r ^ ONE) & c
            elif how == OR:
                p, q = r | c, (r ^ ONE) | c
            else:
                p, q = r ^ c, (r ^ ONE) ^ c
            first |= p << U64_(outcome * 2 + other)
            second |= q << U64_(outcome * 2 + other)
    return first, second


@njit(inline="always")
def _pick(condition, x, y):
    """condition (0 or 1) ? x : y, without a branch."""
    return y ^ ((x ^ y) & (ZERO - condition))


@njit(inline="always")
def _key(magnitude, sign):
    """The order key of a non-NaN float: its magnitude bits, negated when the sign (0 or 1) is set,
    plus 2**63."""
    negative = ZERO - sign
    return BIAS + ((magnitude ^ negative) - negative)


@njit(inline="always")
def _outcome(ka, kb, unordered):
    """0 less, 1 equal, 2 greater, 3 unordered (unordered: 0 or 1)."""
    return (U64_(ka > kb) * TWO + U64_(ka == kb)) | (unordered * THREE)


@njit(nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    """Each op's loop is free of branches on the lanes' data: with random operands a mispredicted
    branch per lane costs more than the comparison."""
    op, flags = c[1], c[2]
    table = U64_(flags & 15)
    how = (flags >> COMBINE_AT) & 3
    s0, s1 = source(c, 0), source(c, 1)
    q0, q1 = out_pred(c, 0, P, UP, scratch_p), out_pred(c, 1, P, UP, scratch_p)
    if op == INT_TEST:
        pc, pc_not = in_pred(source(c, 2), P, UP)
        eq, eq_not = in_pred(source(c, 3), P, UP)
        bias = SIGN32 if flags & SIGNED else ZERO        # signed order is unsigned order with the sign flipped
        first, second = _combined_tables(table | U64_(UNORDERED), how)     # outcome 3: equal, and the predicate holds
        for j in range(m):
            lane = lanes[j]
            a = read32(s0, R, UR, values, lane) ^ bias
            b = read32(s1, R, UR, values, lane) ^ bias
            k = _outcome(a, b, U64_(a == b) & U64_(eq[lane] != eq_not)) * TWO + U64_(pc[lane] != pc_not)
            q0[lane] = (first >> k) & ONE != ZERO
            q1[lane] = (second >> k) & ONE != ZERO
    elif op == F32_TEST:
        pc, pc_not = in_pred(source(c, 2), P, UP)
        first, second = _combined_tables(table, how)
        ftz = flags & FTZ != 0
        for j in range(m):
            lane = lanes[j]
            a = read32(s0, R, UR, values, lane)
            b = read32(s1, R, UR, values, lane)
            ma, mb = a & ABS32, b & ABS32
            if ftz:
                ma &= ZERO - U64_(ma >= MIN_NORMAL32)
                mb &= ZERO - U64_(mb >= MIN_NORMAL32)
            k = _outcome(_key(ma, a >> SHIFT32), _key(mb, b >> SHIFT32), U64_(ma > INF32) | U64_(mb > INF32)) * TWO + \
                U64_(pc[lane] != pc_not)
            q0[lane] = (first >> k) & ONE != ZERO
            q1[lane] = (second >> k) & ONE != ZERO
    elif op == F64_TEST:
        pc, pc_not = in_pred(source(c, 2), P, UP)
        first, second = _combined_tables(table, how)
        for j in range(m):
            lane = lanes[j]
            a = read64(s0, R, UR, values, lane)
            b = read64(s1, R, UR, values, lane)
            ma, mb = a & ABS64, b & ABS64
            k = _outcome(_key(ma, a >> SHIFT64), _key(mb, b >> SHIFT64), U64_(ma > INF64) | U64_(mb > INF64)) * TWO + \
                U64_(pc[lane] != pc_not)
            q0[lane] = (first >> k) & ONE != ZERO
            q1[lane] = (second >> k) & ONE != ZERO
    elif op == F64_PICKS:
        take_min = U64_(flags & TAKE_MIN != 0)
        for j in range(m):
            lane = lanes[j]
            a = read64(s0, R, UR, values, lane)
            b = read64(s1, R, UR, values, lane)
            ma, mb = a & ABS64, b & ABS64
            sa, sb = a >> SHIFT64, b >> SHIFT64
            a_nan, b_nan = U64_(ma > INF64), U64_(mb > INF64)
            ka, kb = _key(ma, sa), _key(mb, sb)
            ordered = _pick(take_min, U64_(ka <= kb), U64_(ka >= kb))
            zeros = _pick(take_min, sa | (sb ^ ONE), sb | (sa ^ ONE))      # -0 is less than +0
            takes_a = _pick(U64_((ma | mb) == ZERO), zeros, ordered)
            takes_a = _pick(a_nan | b_nan, a_nan ^ ONE, takes_a)
            q0[lane] = takes_a != ZERO
            q1[lane] = (a_nan & b_nan) != ZERO
    elif op == PRED_LUT:
        pa, pa_not = in_pred(s0, P, UP)
        pb, pb_not = in_pred(s1, P, UP)
        pc, pc_not = in_pred(source(c, 2), P, UP)
        first, second = U64_(flags & 255), U64_((flags >> 8) & 255)
        for j in range(m):
            lane = lanes[j]
            k = U64_(pa[lane] != pa_not) * FOUR + U64_(pb[lane] != pb_not) * TWO + U64_(pc[lane] != pc_not)
            q0[lane] = (first >> k) & ONE != ZERO
            q1[lane] = (second >> k) & ONE != ZERO
    elif op == PRED_SIGN_LUT:
        pa, pa_not = in_pred(s0, P, UP)
        pb, pb_not = in_pred(s1, P, UP)
        pc, pc_not = in_pred(source(c, 2), P, UP)
        wa, wb, wc = source(c, 3), source(c, 4), source(c, 5)
        first, second = U64_(flags & 255), U64_((flags >> 8) & 255)
        for j in range(m):
            lane = lanes[j]
            a = U64_(pa[lane] != pa_not) | (read32(wa, R, UR, values, lane) >> SHIFT32)
            b = U64_(pb[lane] != pb_not) | (read32(wb, R, UR, values, lane) >> SHIFT32)
            d = U64_(pc[lane] != pc_not) | (read32(wc, R, UR, values, lane) >> SHIFT32)
            k = a * FOUR + b * TWO + d
            q0[lane] = (first >> k) & ONE != ZERO
            q1[lane] = (second >> k) & ONE != ZERO
    elif op == F32_MIN_MAX:
        choose, choose_not = in_pred(source(c, 2), P, UP)
        o0 = out32(c, 0, R, UR, scratch)
        ftz, nan_wins = flags & FTZ != 0, U64_(flags & NAN_WINS != 0)
        for j in range(m):
            lane = lanes[j]
            a = read32(s0, R, UR, values, lane)
            b = read32(s1, R, UR, values, lane)
            if ftz:                 # a subnormal operand as zero of its sign
                a &= (ZERO - U64_((a & ABS32) >= MIN_NORMAL32)) | SIGN32
                b &= (ZERO - U64_((b & ABS32) >= MIN_NORMAL32)) | SIGN32
            ma, mb = a & ABS32, b & ABS32
            a_nan, b_nan = U64_(ma > INF32), U64_(mb > INF32)
            take_min = U64_(choose[lane] != choose_not)
            ka, kb = _key(ma, a >> SHIFT32), _key(mb, b >> SHIFT32)
            result = _pick(_pick(take_min, U64_(ka < kb), U64_(ka > kb)), a, b)
            result = _pick(U64_((ma | mb) == ZERO), _pick(take_min, a | b, a & b), result)   # -0 is less than +0
            nan_result = _pick(nan_wins | (a_nan & b_nan), CANONICAL_NAN32, _pick(a_nan, b, a))
            put32(o0, lane, _pick(a_nan | b_nan, nan_result, result))


# ------------------------------------------------------------------ per-lane forms
# One lane of a test run on rows: run_rows' loops call them, and so does the code fused.py
# generates. A test's setup (its truth tables, once per instruction: computed per lane, it made the
# loops a third slower) goes before the sources in order (values as uint64 bits, predicates as
# bools); the results are (P, Q).


@njit
def test_setup(op, flags):
    """(P's table, Q's table, the order bias: ISETP's signed words compare as unsigned with the sign
    flipped; ISETP's outcome 3 is equal with .EX's predicate holding, so its table holds there too;
    whether FSETP flushes denormals, .FTZ)."""
    table = U64_(flags & 15) | (U64_(UNORDERED) if op == INT_TEST else ZERO)
    first, second = _combined_tables(table, (flags >> COMBINE_AT) & 3)
    return first, second, SIGN32 if op == INT_TEST and flags & SIGNED else ZERO, op == F32_TEST and flags & FTZ != 0


@njit
def int_test_lane(setup, a, b, pc, eq):
    """ISETP: P = r op Pc, Q = !r op Pc of the test r of a and b (eq: .EX's predicate, ORed into the
    equal outcome)."""
    first, second, bias, _ = setup
    a, b = a ^ bias, b ^ bias
    k = _outcome(a, b, U64_(a == b) & U64_(eq)) * TWO + U64_(pc)
    return (first >> k) & ONE != ZERO, (second >> k) & ONE != ZERO


@njit
def f32_test_lane(setup, a, b, pc):
    """FSETP: P = r op Pc, Q = !r op Pc of the test r of two f32 words, on their bits."""
    first, second, _, ftz = setup
    ma, mb = a & ABS32, b & ABS32
    if ftz:
        ma &= ZERO - U64_(ma >= MIN_NORMAL32)
        mb &= ZERO - U64_(mb >= MIN_NORMAL32)
    k = _outcome(_key(ma, a >> SHIFT32), _key(mb, b >> SHIFT32), U64_(ma > INF32) | U64_(mb > INF32)) * TWO + U64_(pc)
    return (first >> k) & ONE != ZERO, (second >> k) & ONE != ZERO


# op -> (its per-lane form, its sources: v a value, p a predicate; its results likewise; its setup)
LANES = {INT_TEST: (int_test_lane, "vvpp", "pp", test_setup), F32_TEST: (f32_test_lane, "vvp", "pp", test_setup)}


@njit(nogil=True)
def run_rows(c, T, TB, O, OB, m):
    """ISETP and FSETP on gathered rows (lanes.py): a, b in T[0], T[1], Pc in TB[2], ISETP's equal
    predicate in TB[3]; P and Q into OB[0], OB[1], each lane through its per-lane form."""
    op, flags = c[1], c[2]
    t0, t1, pc, q0, q1 = T[0], T[1], TB[2], OB[0], OB[1]
    setup = test_setup(op, flags)
    if op == INT_TEST:
        eq = TB[3]
        for j in range(m):
            q0[j], q1[j] = int_test_lane(setup, t0[j], t1[j], pc[j], eq[j])
    else:
        for j in range(m):
            q0[j], q1[j] = f32_test_lane(setup, t0[j], t1[j], pc[j])
