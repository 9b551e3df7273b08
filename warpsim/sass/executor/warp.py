"""Warp-level SASS: SHFL, VOTE/VOTEU, MATCH, REDUX.

These read the lanes of the warp that run them together (the group's lanes of
one warp), as on the hardware after the WARPSYNC or BSYNC ptxas puts before
them. SHFL follows PTX shfl.sync: c packs the clamp lane (bits 0-4) and the
segment mask (bits 8-12); a source lane outside the segment gives the lane's
own value and a false predicate. A SHFL that reads a lane not in the group
reads whatever that lane's register holds (the hardware leaves it undefined).
Results that are one value per warp (VOTEU, REDUX into a uniform register)
go to every lane of the warp; after `WARPSYNC.EXCLUSIVE mask` (until the
region's BSYNC) a REDUX or VOTE runs, and REDUX writes, per mask, as each
mask's lanes run it alone on the hardware. What each computes is semantics/warp.py's, as
for PTX's shfl/vote/match/redux; these read operands and write results.
"""

from __future__ import annotations

import numpy as np

from ...semantics import warp as lanes
from .operands import U32, U64, dest, pred_dest, predicate, source
from .table import Step, Unsupported, semantics

SHFL_MODES = ("IDX", "UP", "DOWN", "BFLY")


def warp_bits(flags: np.ndarray) -> np.ndarray:
    """Per warp, the 32-bit mask of lanes where flags holds."""
    weights = (np.uint64(1) << np.arange(32, dtype=np.uint64))
    return (flags.reshape(-1, 32).astype(np.uint64) * weights).sum(axis=1).astype(np.uint64)


def ballot(g, flags):
    """Per lane of g: the lanes of its warp in g where flags holds."""
    return lanes.ballot(g.idx, flags)


@semantics("SHFL", family="warp", pipe="warp", mods=SHFL_MODES, warp_level=True,
           doc="read a register of another lane: IDX (lane b), UP/DOWN (lane -/+ b), BFLY (lane ^ b)")
def shfl(ins):
    mode = next((m for m in ins.mods if m in SHFL_MODES), None)
    if mode is None or len(ins.operands) != 5:
        raise Unsupported("operand form")
    flag, dst, src, b, c = ins.operands
    if src.kind != "reg":
        raise Unsupported("operand form")
    read_b, read_c = source(b), source(c)
    write, write_flag = dest(dst), pred_dest(flag)
    row = src.number

    def run(st, g):
        j, ok = lanes.shuffle_sources(g.idx & 31, mode.lower(), read_b(st, g), read_c(st, g))
        slots = (g.idx & ~31) | j
        value = np.zeros(g.n, dtype=U32) if row is None else st.R[row][slots]
        write(st, g, value)
        write_flag(st, g, ok)
    return Step(ins, run)


@semantics("VOTE", "VOTEU", family="warp", pipe="warp", mods=("ANY", "ALL", "EQ"), warp_level=True,
           doc="ballot of a predicate over the active lanes (into R / UR), and ANY / ALL / EQ of it (into P)")
def vote(ins):
    mode = next((m for m in ins.mods if m in ("ANY", "ALL", "EQ")), None)
    ops = list(ins.operands)
    mask_dst = ops.pop(0) if ops and ops[0].kind in ("reg", "ureg") else None
    if len(ops) != 2 or mode is None:
        raise Unsupported("operand form")
    write_mask = dest(mask_dst) if mask_dst is not None else None
    write_pred, read = pred_dest(ops[0]), predicate(ops[1])
    test = {"ANY": "any", "ALL": "all", "EQ": "uni"}[mode]

    def run(st, g):
        flags = read(st, g)
        masks = _exclusive_masks(st, g)
        if write_mask is not None:
            write_mask(st, g, lanes.vote("ballot", g.idx, flags, masks))
        write_pred(st, g, lanes.vote(test, g.idx, flags, masks))
    return Step(ins, run)


def _exclusive_masks(st, g):
    """Inside a WARPSYNC.EXCLUSIVE region, the lanes each lane runs with: those of its mask that hold
    the same mask (semantics.warp.same_mask_lanes); None outside one."""
    masks = st.exclusive[g.sel]
    if not masks.any():
        return None
    return lanes.same_mask_lanes(g.idx, masks.astype(np.uint32))


REDUCTIONS = {"SUM": "add", "MIN": "min", "MAX": "max", "OR": "or", "AND": "and", "XOR": "xor"}


# pipe "global": what the timing model has always charged REDUX (its name starts as RED's does);
# the GPU more likely serves it beside SHFL and VOTE ("warp"), which would change the figures.
@semantics("REDUX", family="warp", pipe="global", mods=tuple(REDUCTIONS) + ("S32", "U32"), warp_level=True,
           doc="reduce a register over the active lanes into a uniform register (SUM wraps; MIN/MAX signed "
               "under .S32; no modifier is AND)")
def redux(ins):
    op = next((m for m in ins.mods if m in REDUCTIONS), "AND")     # nvdisasm leaves the default, AND, unnamed
    if len(ins.operands) != 2:
        raise Unsupported("operand form")
    dst, src = ins.operands
    read, write = source(src), dest(dst)
    dtype = np.int32 if "S32" in ins.mods else U32

    def run(st, g):
        values = np.broadcast_to(np.asarray(read(st, g), dtype=U32), (g.n,)).view(dtype)
        masks = _exclusive_masks(st, g)
        exclusive = masks is not None
        result = lanes.redux(REDUCTIONS[op], g.idx, values, masks).view(U32)
        if exclusive and dst.kind == "ureg" and dst.number is not None:
            st.UR[dst.number][g.sel] = result      # one value per mask: each mask's lanes ran alone
        else:
            write(st, g, result)
    return Step(ins, run)


@semantics("MATCH", family="warp", pipe="warp", mods=("ANY", "ALL", "U32", "U64"), warp_level=True,
           doc="lanes of the warp holding the same value: ANY (mask per lane), ALL (mask if all agree, and P)")
def match(ins):
    mode = next((m for m in ins.mods if m in ("ANY", "ALL")), None)
    ops = list(ins.operands)
    pred = ops.pop(0) if mode == "ALL" and ops[0].kind == "pred" else None
    if mode is None or len(ops) != 2:
        raise Unsupported("operand form")
    dst, src = ops
    wide = "U64" in ins.mods
    read, write = source(src, 64 if wide else 32), dest(dst)
    write_pred = pred_dest(pred) if pred is not None else None

    def run(st, g):
        values = np.broadcast_to(np.asarray(read(st, g), dtype=U64), (g.n,))
        if mode == "ANY":
            write(st, g, lanes.match("any", g.idx, values))
            return
        mask, agree = lanes.match("all", g.idx, values)
        write(st, g, mask)
        if write_pred is not None:
            write_pred(st, g, agree)
    return Step(ins, run)
