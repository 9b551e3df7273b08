"""Moves in the compiled tier: MOV and UMOV (32 and 64 bits), CS2R of SRZ (a zeroed pair)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .lanes import out32, out_pair, put32, put64, read32, read64, source
from .layout import Unencodable, encodes, family

FAMILY = family("moves")
MOVE32, MOVE64, ZERO64 = range(3)


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
    row.op(MOVE64 if wide else MOVE32).dest(ops[0])
    row.source(ops[1], 64 if wide else 32)


@encodes("CS2R", family_number=FAMILY)
def cs2r(ins, row):
    dst, sr = ins.operands[:2]
    if ins.mods or sr.name != "SRZ":
        raise Unencodable("CS2R of a clock")
    row.op(ZERO64).dest(dst)


@njit(cache=True, nogil=True)
def run(c, R, P, UR, UP, values, lanes, m, scratch, scratch_p):
    op = c[1]
    s0 = source(c, 0)
    if op == MOVE32:
        o0 = out32(c, 0, R, UR, scratch)
        for j in range(m):
            put32(o0, lanes[j], read32(s0, R, UR, values, lanes[j]))
        return
    low, high = out_pair(c, 0, R, UR, scratch)
    for j in range(m):
        put64(low, high, lanes[j], read64(s0, R, UR, values, lanes[j]) if op == MOVE64 else np.uint64(0))
