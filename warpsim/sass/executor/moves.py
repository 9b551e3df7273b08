"""Moves and special registers: MOV, UMOV, R2UR, S2R, S2UR, CS2R.

Special registers as sm_90 exposes them (cluster.py adds SR_CgaCtaId, the
CTA's rank in its cluster, which ptxas puts in bits 24 and up of every shared
address: (SR_CgaCtaId << 24) + 0x400 is shared byte 0); SR_SWINHI
/ SR_LWINHI are the high words of the generic shared and local windows (the
same windows warpsim's PTX machine uses, machine/memory.py). SR_CLOCKLO/HI read
the SM cycles of the blocks run so far (SassFunction.block_clock_cycles, semantics/clock.sass_clock);
SR_GLOBALTIMER* read the same.
"""

from __future__ import annotations

import numpy as np

from ...semantics.addresses import LOCAL_WINDOW, SHARED_WINDOW
from ...semantics.clock import sass_clock
from ...semantics.warp import LANE_MASKS, lane_mask
from .operands import U32, U64, alu, dest, pred_dest, predicate, source
from .table import Step, Unsupported, semantics


def _cycles(st) -> int:
    return sass_clock(st.clock, st.grid, st.block)


def _clock(st, g):
    return np.full(g.n, _cycles(st) & 0xFFFFFFFF, dtype=U32)


SPECIALS = {
    "SR_TID.X": lambda st, g: st.tid[0][g.sel],
    "SR_TID.Y": lambda st, g: st.tid[1][g.sel],
    "SR_TID.Z": lambda st, g: st.tid[2][g.sel],
    "SR_CTAID.X": lambda st, g: st.ctaid[0][g.sel],
    "SR_CTAID.Y": lambda st, g: st.ctaid[1][g.sel],
    "SR_CTAID.Z": lambda st, g: st.ctaid[2][g.sel],
    "SR_LANEID": lambda st, g: st.lane[g.sel],
    "SR_SWINHI": lambda st, g: U32(SHARED_WINDOW >> 32),
    "SR_LWINHI": lambda st, g: U32(LOCAL_WINDOW >> 32),
    **{f"SR_{kind.upper()}MASK": (lambda st, g, kind=kind: lane_mask(kind, st.lane[g.sel]))
       for kind in LANE_MASKS},
    "SR_CLOCKLO": _clock,
    "SR_CLOCKHI": lambda st, g: np.full(g.n, (_cycles(st) >> 32) & 0xFFFFFFFF, dtype=U32),
    "SR_GLOBALTIMERLO": _clock,
    "SR_GLOBALTIMERHI": lambda st, g: U32(0),
    "SR_VIRTUALSMID": lambda st, g: U32(0),
    "SR_SMID": lambda st, g: U32(0),
    "SR_NSMID": lambda st, g: U32(1),
    "SR_WARPID": lambda st, g: ((st.lane[g.sel] * 0) + ((g.idx >> 5) % st.warps_per_cta)).astype(U32),
    "SR_VIRTID": lambda st, g: ((g.idx >> 5) % st.warps_per_cta).astype(U32),
}


def special(op):
    if op.kind != "special" or op.name not in SPECIALS:
        raise Unsupported(f"special register {op.text}")
    return SPECIALS[op.name]


@semantics("S2R", "S2UR", family="moves", pipe="special",
           mods=(), doc="read a special register (thread, CTA and lane ids, clock)")
def s2r(ins):
    dst, sr = ins.operands[:2]
    return Step(ins, alu([dest(dst)], [special(sr)], lambda v: v))


@semantics("CS2R", family="moves", pipe="alu", mods=("32",),
           doc="read a special register fast: SRZ (zero) into a register pair, or SR_CLOCKLO")
def cs2r(ins):
    dst, sr = ins.operands[:2]
    width = 32 if "32" in ins.mods else 64
    if sr.name == "SRZ":
        return Step(ins, alu([dest(dst, width)], [], lambda: U64(0) if width == 64 else U32(0)))
    if sr.name in ("SR_CLOCKLO", "SR_GLOBALTIMERLO"):
        return Step(ins, _clock_step(dest(dst, width), width))
    raise Unsupported(f"special register {sr.text}")


def _clock_step(write, width):
    def run(st, g):
        cycles = _cycles(st)
        value = np.full(g.n, cycles if width == 64 else cycles & 0xFFFFFFFF, dtype=U64 if width == 64 else U32)
        write(st, g, value)
    return run


@semantics("MOV", "UMOV", family="moves", pipe=("alu", "uniform"),
           mods=("64",), doc="copy a register, uniform register, constant or immediate")
def mov(ins):
    ops = ins.operands
    if len(ops) == 3 and not (ops[2].kind == "imm" and int(ops[2].value) & 0xF == 0xF):
        raise Unsupported("MOV with a lane mask")
    width = 64 if "64" in ins.mods else 32
    return Step(ins, alu([dest(ops[0], width)], [source(ops[1], width)], lambda v: v))


@semantics("R2UR", family="moves", pipe="uniform", mods=("64", "OR"),
           doc="a register into a uniform register: the value of the warp's first issuing lane; `R2UR Pd, "
               "URd, Rs` also sets Pd in the lanes whose value differs from it (the lanes a waterfall loop "
               "over a non-uniform value has left), `R2UR.OR` ORs that into Pd (a value of several registers)")
def r2ur(ins):
    ops = [op for op in ins.operands if op.kind not in ("pred", "upred")]
    if len(ops) != 2 or ops[0].kind != "ureg":
        raise Unsupported("operand form")
    width = 64 if "64" in ins.mods else 32
    if ins.operands[0].kind != "pred":
        return Step(ins, alu([dest(ops[0], width)], [source(ops[1], width)], lambda v: v))
    write, write_left, read = dest(ops[0], width), pred_dest(ins.operands[0]), source(ops[1], width)
    left_before = predicate(ins.operands[0]) if "OR" in ins.mods else None

    def run(st, g):
        value = np.asarray(read(st, g))
        before = left_before(st, g) if left_before is not None else False
        write(st, g, value)
        first = g.warp_runs()[1]
        taken = value[first][np.searchsorted(first, np.arange(g.n), side="right") - 1]
        write_left(st, g, (value != taken) | before)
    return Step(ins, run)


@semantics("NOP", "DEPBAR", "MEMBAR", "CCTL", "ERRBAR", "FENCE", "YIELD", "NANOSLEEP",
           family="moves", pipe="branch", doc="no result: ordering, cache control and scheduling hints")
def no_result(ins):
    return Step(ins, lambda st, g: None)


@semantics("ACQBULK", "PREEXIT", family="moves", pipe="branch",
           doc="griddepcontrol.wait (ACQBULK) and .launch_dependents (PREEXIT): no result, a stream's grids "
               "running one after another")
def grid_dependency(ins):
    return Step(ins, lambda st, g: None)
