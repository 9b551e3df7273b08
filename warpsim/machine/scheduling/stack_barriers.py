"""CTA barriers under the reconvergence stack: a warp arrives as a whole."""

from __future__ import annotations

import numpy as np

from ...errors import DeadlockError
from ...ptx.ir import Imm
from ...ptx.types import TYPES
from .base import NO_PC
from .warp_sync import lane_flags


def count_held_lanes_at_barriers(ctx, warp_pc, chosen, held):
    """A warp arrives at a CTA barrier as a whole: its held-back lanes count as arrived.

    Pre-Volta barriers count warps, so a warp whose issuing entry reaches
    `bar.sync` passes it with the lanes its stack holds elsewhere (the
    divergent barrier synccheck reports). The engine counts threads, so those
    lanes are added to the barrier's arrivals (as bar.arrive would) when the
    warp issues it; a guarded barrier is left to count its own threads.
    """
    program = ctx.program
    for pc in np.unique(warp_pc[warp_pc != NO_PC]):
        block = program.blocks[int(pc)]
        ins = block.instructions[0]
        if block.kind != "barrier" or "arrive" in ins.mods or ins.guard is not None:
            continue
        warps = np.flatnonzero((warp_pc == pc) & (held != 0))
        if not len(warps):
            continue
        barrier = ins.srcs[0]
        if isinstance(barrier, Imm):
            ids = np.full(len(warps), barrier.value, dtype=np.int64)
        else:
            first = warps * 32 + chosen[warps].argmax(axis=1)
            bits = TYPES[block.function.regs[barrier.name]].bits
            ids = ctx.reg(f"{block.function.name}::{barrier.name}", bits)[first].astype(np.int64)
        held_lanes = lane_flags(held[warps])
        slots = (warps[:, None] * 32 + np.arange(32))[held_lanes]
        ctx.barrier_id[slots] = np.repeat(ids, held_lanes.sum(axis=1))
        ctx.barrier_arrivals(slots)


def held_at_barriers(ctx, stacks, exited) -> DeadlockError:
    """No warp can issue: each waits at a barrier that the lanes it holds back cannot fill."""
    lines = []
    for warp in np.flatnonzero(stacks.top >= 0)[:8]:
        where = ctx.where(int(warp) * 32)
        for pc, active_mask, _ in reversed(stacks.entries(int(warp))):
            active_mask &= ~int(exited[warp]) & 0xFFFFFFFF
            if not active_mask:
                continue
            ins = ctx.program.blocks[pc].instructions[0] if pc >= 0 else None
            place = f"PTX line {ins.line}: {ins}" if ins is not None else "the exit"
            lines.append(f"  block {where['block']} warp {int(ctx.warp_in_cta[warp * 32])} lanes "
                         f"0x{active_mask:08x} at {place}")
    return DeadlockError(
        "deadlock: every warp's issuing stack entry waits at a CTA barrier that cannot fill "
        "(lanes held back by the pre-Volta reconvergence stack count for their warp only at the "
        "barrier their warp reaches); the stacks, top entry first:\n" + "\n".join(lines),
        kernel=ctx.kernel)
