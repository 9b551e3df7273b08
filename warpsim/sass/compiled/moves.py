"""Moves in the compiled tier: MOV and UMOV (32 and 64 bits), R2UR, CS2R of SRZ (a zeroed word or
pair), and the special registers S2R/S2UR read that need no more than a lane's slot.

As sass/executor/moves.py: R2UR (without its predicate form) is a move into a
uniform register, so the dispatcher runs it for the warp's first issuing lane
and gives its value to the warp. Of the special registers, the lane number and
the lane masks follow from the thread slot (slot = ... * 32 + lane), and the
windows' high words, SM numbers and the clock's high word are the fixed values
the NumPy step gives; thread, CTA and warp ids and the clock need the launch's
geometry, which run() is not given, and stay NumPy steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...semantics.addresses import LOCAL_WINDOW, SHARED_WINDOW
from .lanes import M32, out32, out_pair, put32, put64, read32, read64, source
from .layout import Unencodable, encodes, family

FAMILY = family("moves")
MOVE32, MOVE64, ZERO64, LANE_ID, LANE_MASK = range(5)
LANE_MASKS = {"SR_EQMASK": 0, "SR_LTMASK": 1, "SR_LEMASK": 2, "SR_GTMASK": 3, "SR_GEMASK": 4}   # LANE_MASK's flags
FIXED_SPECIALS = {      # the values executor/moves.py's SPECIALS gives every lane
    "SR_SWINHI": SHARED_WINDOW >> 32,
    "SR_LWINHI": LOCAL_WINDOW >> 32,
    "SR_CLOCKHI": 0,
    "SR_GLOBALTIMERHI": 0,
    "SR_VIRTUALSMID": 0,
    "SR_SMID": 0,
    "SR_NSMID": 1,
}


@encodes("MOV", "UMOV", family_number=FAMILY)
def mov(ins, row):
    ops = ins.operands
    if set(ins.mods) - {"64"}:
        raise Unencodable("modifier")
    if len(ops) == 3 and not (ops[2].kind == "imm" and int(ops[2].value) & 0xF == 0xF):
        raise Unencodable("MOV with a lane mask")
    if len(ops) not in (2, 3):
        raise Unencodable("operand form")
    wide = "64" in ins.mods
    row.op(MOVE64 if wide else MOVE32).on_rows().dest(ops[0], 64 if wide else 32)
    row.source(ops[1], 64 if wide else 32)


@encodes("R2UR", family_number=FAMILY)
def r2ur(ins, row):
    """R2UR URd, Rs (.64: a pair); the form with a predicate (the lanes whose value differs) stays
    NumPy's."""
    ops = ins.operands
    if set(ins.mods) - {"64"}:
        raise Unencodable("modifier")
    if any(op.kind in ("pred", "upred") for op in ops):
        raise Unencodable("R2UR with a predicate of the lanes left")
    if len(ops) != 2 or ops[0].kind != "ureg":
        raise Unencodable("operand form")
    wide = "64" in ins.mods
    row.op(MOVE64 if wide else MOVE32).on_rows().dest(ops[0], 64 if wide else 32)
    row.source(ops[1], 64 if wide else 32)


@encodes("CS2R", family_number=FAMILY)
def cs2r(ins, row):
    dst, sr = ins.operands[:2]
    if set(ins.mods) - {"32"} or sr.name != "SRZ":
        raise Unencodable("CS2R of a clock")
    wide = "32" not in ins.mods
    row.op(MOVE64 if wide else MOVE32).on_rows().dest(dst, 64 if wide else 32)
    row.constant(0)


@encodes("S2R", "S2UR", family_number=FAMILY)
def s2r(ins, row):
    ops = ins.operands
    if ins.mods or len(ops) != 2:
        raise Unencodable("operand form")
    dst, sr = ops
    if sr.kind != "special":
        raise Unencodable(f"special register {sr.text}")
    if sr.name == "SR_LANEID":
        row.op(LANE_ID).dest(dst)
    elif sr.name in LANE_MASKS:
        row.op(LANE_MASK, LANE_MASKS[sr.name]).dest(dst)
    elif sr.name in FIXED_SPECIALS:
        row.op(MOVE32).dest(dst)
        row.constant(FIXED_SPECIALS[sr.name])
    else:
        raise Unencodable(f"{sr.name} needs the launch's geometry")


@njit
def _lane_mask(kind, lane):
    """The lane mask `kind` (LANE_MASKS) of lane number `lane`, as semantics.warp.lane_mask."""
    at, upto = np.uint64(1) << lane, np.uint64(1) << (lane + np.uint64(1))
    if kind == 0:
        return at
    if kind == 1:
        return at - np.uint64(1)
    if kind == 2:
        return upto - np.uint64(1)
    if kind == 3:
        return (upto - np.uint64(1)) ^ M32
    return (at - np.uint64(1)) ^ M32


@njit(nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    op = c[1]
    s0 = source(c, 0)
    if op == MOVE32:
        o0 = out32(c, 0, R, UR, scratch)
        for j in range(m):
            put32(o0, lanes[j], read32(s0, R, UR, values, lanes[j]))
        return
    if op == LANE_ID:
        o0 = out32(c, 0, R, UR, scratch)
        for j in range(m):
            put32(o0, lanes[j], np.uint64(lanes[j] & 31))
        return
    if op == LANE_MASK:
        o0 = out32(c, 0, R, UR, scratch)
        kind = c[2]
        for j in range(m):
            put32(o0, lanes[j], _lane_mask(kind, np.uint64(lanes[j] & 31)))
        return
    low, high = out_pair(c, 0, R, UR, scratch)
    if op == MOVE64:
        for j in range(m):
            put64(low, high, lanes[j], read64(s0, R, UR, values, lanes[j]))
    else:
        for j in range(m):
            put64(low, high, lanes[j], np.uint64(0))


@njit
def copy_lane(op, flags, x):
    """MOV, R2UR, CS2R of SRZ, one lane: the source is the result (its width the destination's)."""
    return x


# op -> (its per-lane form, its sources: v a value; its results likewise)
LANES = {MOVE32: (copy_lane, "v", "v"), MOVE64: (copy_lane, "v", "v")}


@njit(nogil=True)
def run_rows(c, T, TB, O, OB, m):
    """MOV, R2UR and CS2R of SRZ on gathered rows: the source row is the result (its width is the
    destination's, which scatter writes)."""
    op, flags = c[1], c[2]
    t0, o0 = T[0], O[0]
    for j in range(m):
        o0[j] = copy_lane(op, flags, t0[j])
