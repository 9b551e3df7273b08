"""Moves (mov), special registers, address conversion (cvta) and space tests (isspacep).

The engine emits these itself rather than through the value table: mov packs
and unpacks vectors and reads symbols and special registers, and
cvta/isspacep depend on where the shared and local windows sit in the generic
address space.

Special registers (%tid, %laneid, %clock64, ...) are read per thread. Values
that PTX leaves to the implementation are chosen to be stable and plausible:
%smid spreads CTAs round-robin over the simulated GPU's SMs, %clock counts
scheduling rounds, %globaltimer is the host's nanosecond clock.
"""

from __future__ import annotations

import time

import numpy as np

from ...errors import UnsupportedInstruction
from ...ptx.ir import Vec
from ...ptx.types import TYPES
from ...semantics.clock import SMS, sm_clock
from ...semantics.warp import lane_mask
from ..access import space_of
from ..cooperative import envreg
from ..memory import LOCAL_WINDOW, SHARED_WINDOW
from .table import SPECIAL, emitted


def check_mov(ins):
    if ins.type in ("b128",):
        return ".b128 moves are not supported"
    return None


@emitted("mov", family="moves", kind=SPECIAL, pipe="alu", check=check_mov)
def emit_mov(c, ins):
    t = ins.type
    dst, src = ins.dsts[0], ins.srcs[0]
    if isinstance(dst, Vec):                      # unpack: mov.b64 {lo, hi}, %rd
        whole = c.typed(src, t)
        part_bits = TYPES[t].bits // len(dst.items)
        part_type = f"b{part_bits}"
        for k, item in enumerate(dst.items):
            c.write(item, part_type, f"(({whole}.astype(np.uint64) >> np.uint64({k * part_bits})) "
                                     f"& np.uint64({(1 << part_bits) - 1}))")
        return False
    if isinstance(src, Vec):                      # pack: mov.b64 %rd, {lo, hi}
        part_bits = TYPES[t].bits // len(src.items)
        terms = [f"({c.typed(item, f'b{part_bits}')}.astype(np.uint64) << np.uint64({k * part_bits}))"
                 for k, item in enumerate(src.items)]
        c.write(dst, "b64" if TYPES[t].bits == 64 else t, " | ".join(terms))
        return False
    c.write(dst, t, c.typed(src, t), per_thread=c.is_per_thread(src))
    return False


@emitted("cvta", family="moves", kind=SPECIAL, pipe="alu")
def emit_cvta(c, ins):
    """Generic <-> state-space addresses: shared and local live in their windows."""
    t = ins.type
    to = "to" in ins.mods
    space = space_of(ins)
    window = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
    if not window:                           # global: the same address (a copy, the register's own)
        if c.is_per_thread(ins.srcs[0]):     # (n values of the type already: copy() costs less than astype)
            c.write(ins.dsts[0], t, f"{c.typed(ins.srcs[0], t)}.copy()", per_thread=True)
        else:
            c.write(ins.dsts[0], t, f"{c.typed(ins.srcs[0], t)}.astype({c.dtype(TYPES[t])})")
        return False
    op = "-" if to else "+"
    value = f"({c.typed(ins.srcs[0], t)}.astype(np.uint64) {op} np.uint64({window}))"
    c.write(ins.dsts[0], t, f"{value}.astype({c.dtype(TYPES[t])})", per_thread=c.is_per_thread(ins.srcs[0]))
    return False


@emitted("isspacep", family="moves", kind=SPECIAL, pipe="alu")
def emit_isspacep(c, ins):
    space = space_of(ins)
    code = {"global": 0, "const": 0, "shared": 1, "local": 2}.get(space)
    if code is None:
        raise UnsupportedInstruction(ins, f"isspacep.{space}")
    c.write(ins.dsts[0], "pred", f"(access.generic_space({c.typed(ins.srcs[0], 'u64')}) == {code})")
    return False


# ------------------------------------------------------------ special registers

AXES = {"x": 0, "y": 1, "z": 2}
NUM_SMS = SMS


def _clock(ctx) -> int:
    """%clock64: the SM cycles the batch's issues before this round stand for (semantics/clock.py).
    Every warp of a round reads one value, so the compiled round loop, which runs a round's warps in
    another order than the engine's blocks, reads the same (compiled/block.py's special)."""
    return sm_clock(ctx.round_clocked, ctx.n_warps, ctx.grid, ctx.block)


def _axis(name):
    return AXES[name.split(".")[1]]


SPECIAL_REGISTERS = {
    "%tid": lambda ctx, idx, name: ctx.tid[_axis(name), idx],
    "%ntid": lambda ctx, idx, name: np.full(len(idx), ctx.block[_axis(name)], dtype=np.uint32),
    "%ctaid": lambda ctx, idx, name: ctx.ctaid[_axis(name), idx],
    "%nctaid": lambda ctx, idx, name: np.full(len(idx), ctx.grid[_axis(name)], dtype=np.uint32),
    "%laneid": lambda ctx, idx, name: ctx.lane[idx],
    "%warpid": lambda ctx, idx, name: ctx.warp_in_cta[idx],
    "%nwarpid": lambda ctx, idx, name: np.full(len(idx), 64, dtype=np.uint32),
    "%smid": lambda ctx, idx, name: (ctx.cta_ids[ctx.cta[idx]] % NUM_SMS).astype(np.uint32),
    "%nsmid": lambda ctx, idx, name: np.full(len(idx), NUM_SMS, dtype=np.uint32),
    "%gridid": lambda ctx, idx, name: np.full(len(idx), 1, dtype=np.uint64),
    "%lanemask_eq": lambda ctx, idx, name: lane_mask("eq", ctx.lane[idx]),
    "%lanemask_lt": lambda ctx, idx, name: lane_mask("lt", ctx.lane[idx]),
    "%lanemask_le": lambda ctx, idx, name: lane_mask("le", ctx.lane[idx]),
    "%lanemask_gt": lambda ctx, idx, name: lane_mask("gt", ctx.lane[idx]),
    "%lanemask_ge": lambda ctx, idx, name: lane_mask("ge", ctx.lane[idx]),
    "%clock": lambda ctx, idx, name: np.full(len(idx), _clock(ctx) & 0xFFFFFFFF, dtype=np.uint32),
    "%clock_hi": lambda ctx, idx, name: np.full(len(idx), (_clock(ctx) >> 32) & 0xFFFFFFFF, dtype=np.uint32),
    "%clock64": lambda ctx, idx, name: np.full(len(idx), _clock(ctx), dtype=np.uint64),
    "%globaltimer": lambda ctx, idx, name: np.full(len(idx), time.time_ns(), dtype=np.uint64),
    "%globaltimer_lo": lambda ctx, idx, name: np.full(len(idx), time.time_ns() & 0xFFFFFFFF, dtype=np.uint32),
    "%globaltimer_hi": lambda ctx, idx, name: np.full(len(idx), time.time_ns() >> 32, dtype=np.uint32),
    "%dynamic_smem_size": lambda ctx, idx, name: np.full(len(idx), ctx.dynamic_shared, dtype=np.uint32),
    "%total_smem_size": lambda ctx, idx, name: np.full(len(idx), ctx.shared_used, dtype=np.uint32),
    "%aggr_smem_size": lambda ctx, idx, name: np.full(len(idx), ctx.shared_used, dtype=np.uint32),
    "%is_explicit_cluster": lambda ctx, idx, name: np.zeros(len(idx), dtype=bool),
    "%clusterid": lambda ctx, idx, name: ctx.ctaid[_axis(name), idx],
    "%nclusterid": lambda ctx, idx, name: np.full(len(idx), ctx.grid[_axis(name)], dtype=np.uint32),
    "%cluster_ctaid": lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32),
    "%cluster_nctaid": lambda ctx, idx, name: np.ones(len(idx), dtype=np.uint32),
    "%cluster_ctarank": lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32),
    "%cluster_nctarank": lambda ctx, idx, name: np.ones(len(idx), dtype=np.uint32),
}
for _k in range(32):
    SPECIAL_REGISTERS[f"%envreg{_k}"] = lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32)
SPECIAL_REGISTERS["%envreg1"] = SPECIAL_REGISTERS["%envreg2"] = envreg   # the grid workspace (cooperative.py)
for _k in range(8):
    SPECIAL_REGISTERS[f"%pm{_k}"] = lambda ctx, idx, name: np.zeros(len(idx), dtype=np.uint32)


def read_special(ctx, idx, name: str) -> np.ndarray:
    axis = PER_THREAD_AXES.get(name)         # the most read ones: a row of the batch's coordinates
    if axis is not None:
        return getattr(ctx, axis[0])[axis[1]][idx]
    return SPECIAL_REGISTERS[name.split(".")[0]](ctx, idx, name)


# %tid.x ... %ctaid.z: (the LaunchState array, its row), read as SPECIAL_REGISTERS reads them.
PER_THREAD_AXES = {f"{register}.{axis}": (register[1:], row)
                   for register in ("%tid", "%ctaid") for axis, row in AXES.items()}
