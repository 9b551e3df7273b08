"""`stack`: the pre-Volta SIMT reconvergence stack, one per warp.

Each warp has one PC, held as a stack of entries (pc, active mask,
reconvergence pc). The warp issues the top entry's lanes at the top's pc.
After they have run a block:

- all at one block: the top's pc moves there; if that is the top's
  reconvergence pc, the entry is popped and the entry below (where the lanes
  wait to reconverge) continues;
- at several blocks (a divergent branch): the top becomes the reconvergence
  entry, at the branch block's immediate post-dominator with the same lanes,
  and one entry per target is pushed above it with that reconvergence pc.
  Lanes that went straight to the post-dominator wait in the reconvergence
  entry instead of getting one of their own. When the post-dominator is the
  top's own reconvergence pc, the paths replace the top instead (no entry that
  would pop at once).

Paths are pushed so that the one at the lowest block id runs first. NVVM lays
out the fall-through side of a forward branch first, so that is GPGPU-Sim's
fall-through-last push order for if/else, and it is the order the `lowest-pc`
rule follows, so on structured code both issue the same instructions with the
same masks. Override `paths_in_run_order` for another policy.

A lane that exits leaves every entry: masks are read only on top, with the
exited lanes taken out, and an entry left with no lanes is popped.

Calls and returns: a call is never predicated, so a whole entry enters the
callee and the callee's branches push entries as in the kernel. A branch
whose immediate post-dominator is the function's exit (ipdom None, e.g. two
`ret` blocks), or after which some lanes have returned (`@p ret`),
reconverges where the function returns to: the caller's return block at the
caller's call depth (the lanes of one entry share their call stack), or, in
the kernel itself, when the lanes have exited. A reconvergence pc carries the
call depth at which it counts, so recursion does not pop an entry early.

Barriers and `.sync` instructions: lanes of the top entry waiting at a CTA
barrier keep the warp waiting (the engine releases them and moves them on);
the stack looks at them again once they run. A `.sync` instruction counts as
met only by the issuing entry's lanes: lanes of another entry at the same
block are not converged with it, even when they sit at the same PC.

Only warps whose top entry just diverged, reached its reconvergence pc or
lost all its lanes take Python work; the rest move in whole-array steps.
"""

from __future__ import annotations

import numpy as np

from ...errors import DeadlockError
from ...ptx.ir import Imm
from ...ptx.types import TYPES
from ..state import AT_BARRIER, AT_WARP_SYNC, EXITED
from .base import NO_PC, SchedulingModel
from .warp_sync import NamedLaneMeeting, lane_bits, lane_flags

EXIT = -1        # reconvergence pc of a kernel's exit: reached by exiting


class WarpStacks:
    """Every warp's reconvergence stack, as (warps, depth) arrays; top[w] < 0: empty."""

    def __init__(self, n_warps: int, entry_pc: int, lanes: np.ndarray):
        capacity = 4
        self.pc = np.zeros((n_warps, capacity), dtype=np.int64)
        self.active_mask = np.zeros((n_warps, capacity), dtype=np.uint32)
        self.reconvergence_pc = np.full((n_warps, capacity), EXIT, dtype=np.int64)
        self.reconvergence_depth = np.zeros((n_warps, capacity), dtype=np.int32)
        self.pc[:, 0] = entry_pc
        self.active_mask[:, 0] = lanes
        self.top = np.where(lanes != 0, 0, -1).astype(np.int64)
        self.pending = np.zeros(n_warps, dtype=bool)   # issued; not yet looked at since

    def push(self, warp: int, pc: int, active_mask: int, reconvergence: tuple):
        slot = int(self.top[warp]) + 1
        if slot == self.pc.shape[1]:
            self._grow()
        self.pc[warp, slot] = pc
        self.active_mask[warp, slot] = active_mask
        self.reconvergence_pc[warp, slot], self.reconvergence_depth[warp, slot] = reconvergence
        self.top[warp] = slot

    def entry(self, warp: int, slot: int) -> tuple:
        """(pc, active mask, (reconvergence pc, its call depth)) of one entry."""
        return (int(self.pc[warp, slot]), int(self.active_mask[warp, slot]),
                (int(self.reconvergence_pc[warp, slot]), int(self.reconvergence_depth[warp, slot])))

    def entries(self, warp: int) -> list:
        """The warp's stack, bottom first (for tests and debugging)."""
        return [self.entry(warp, s) for s in range(int(self.top[warp]) + 1)]

    def _grow(self):
        for name in ("pc", "active_mask", "reconvergence_pc", "reconvergence_depth"):
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.zeros_like(old)], axis=1))


class ReconvergenceStack(NamedLaneMeeting, SchedulingModel):
    """Pre-Volta: one PC per warp; divergent paths serialized until their post-dominator."""

    name = "stack"

    def start(self, ctx):
        program = ctx.program
        lanes = lane_bits(ctx.exists.reshape(-1, 32))
        ctx.scheduling_state = WarpStacks(ctx.n_warps, program.entry_block(ctx.kernel), lanes)

    def select(self, ctx, runnable):
        stacks = ctx.scheduling_state
        exited = lane_bits(ctx.status.reshape(-1, 32) == EXITED)
        waiting = self.settle(ctx, stacks, np.flatnonzero(stacks.pending), exited)
        warps = np.arange(ctx.n_warps)
        alive = stacks.top >= 0
        top = np.maximum(stacks.top, 0)
        top_pc = np.where(alive, stacks.pc[warps, top], NO_PC)
        active = np.where(alive, stacks.active_mask[warps, top] & ~exited, 0).astype(np.uint32)
        chosen = (lane_flags(active) & runnable.reshape(-1, 32)
                  & (ctx.pc.reshape(-1, 32) == top_pc[:, None]))
        issuing = chosen.any(axis=1)
        if not issuing.any() and runnable.any():
            raise held_at_barriers(ctx, stacks, exited)
        stacks.pending = issuing.copy()
        stacks.pending[waiting] = True
        warp_pc = np.where(issuing, top_pc, NO_PC)
        count_held_lanes_at_barriers(ctx, warp_pc, chosen, ~exited & ~active)
        return warp_pc, chosen

    # ------------------------------------------------------------ after a block ran

    def settle(self, ctx, stacks, warps, exited) -> np.ndarray:
        """Update the stacks of warps that issued: returns those still waiting at a barrier."""
        if not len(warps):
            return warps
        top = stacks.top[warps]
        active = lane_flags(stacks.active_mask[warps, top] & ~exited[warps])
        status = ctx.status.reshape(-1, 32)[warps]
        waiting = (active & ((status == AT_BARRIER) | (status == AT_WARP_SYNC))).any(axis=1)
        pcs = ctx.pc.reshape(-1, 32)[warps]
        depths = ctx.call_depth.reshape(-1, 32)[warps]
        low, high = np.where(active, pcs, NO_PC).min(axis=1), np.where(active, pcs, -1).max(axis=1)
        shallow = np.where(active, depths, np.iinfo(np.int32).max).min(axis=1)
        deep = np.where(active, depths, -1).max(axis=1)
        together = (low == high) & (shallow == deep)
        reconverged = ((low == stacks.reconvergence_pc[warps, top])
                       & (deep == stacks.reconvergence_depth[warps, top]))
        moved = ~waiting & together & ~reconverged
        stacks.pc[warps[moved], top[moved]] = low[moved]
        for w in warps[~waiting & ~moved]:
            self.settle_warp(ctx, stacks, int(w), int(exited[w]))
        return warps[waiting]

    def settle_warp(self, ctx, stacks, warp: int, exited: int):
        """Pop, move or split the top entries of one warp until its top can issue."""
        just_ran = True
        while stacks.top[warp] >= 0:
            slot = int(stacks.top[warp])
            pc, active_mask, reconvergence = stacks.entry(warp, slot)
            active_mask &= ~exited & 0xFFFFFFFF
            if not active_mask:
                stacks.top[warp] -= 1
                just_ran = False
                continue
            lanes = warp * 32 + np.flatnonzero(lane_flags(np.array([active_mask]))[0])
            paths = self.paths_of(ctx, lanes)
            if len(paths) == 1:
                if next(iter(paths)) == reconvergence:
                    stacks.top[warp] -= 1
                    just_ran = False
                    continue
                stacks.pc[warp, slot] = next(iter(paths))[0]
                stacks.active_mask[warp, slot] = active_mask
                return
            block = ctx.program.blocks[pc]
            join = self.reconvergence_point(ctx, block, lanes) if just_ran else reconvergence
            self.split(ctx, stacks, warp, block, active_mask, paths, join)
            just_ran = False

    @staticmethod
    def paths_of(ctx, lanes) -> dict:
        """(block, call depth) -> mask of the lanes there, for the lanes of one warp."""
        paths: dict = {}
        for lane, pc, depth in zip((lanes & 31).tolist(), ctx.pc[lanes].tolist(),
                                   ctx.call_depth[lanes].tolist()):
            paths[(pc, depth)] = paths.get((pc, depth), 0) | (1 << lane)
        return paths

    def reconvergence_point(self, ctx, block, lanes) -> tuple:
        """(block, call depth) where the lanes that just ran `block` and diverged meet again."""
        depths = ctx.call_depth[lanes]
        depth = int(depths.max())
        ipdom = block.cfg_block.ipdom
        if ipdom is not None and (depths == depth).all():
            return ctx.program.block_gid(block.function, ipdom), depth
        if depth == 0:
            return EXIT, 0
        caller = lanes[depths == depth][0]
        return int(ctx.call_stack[depth - 1, caller]), depth - 1

    def split(self, ctx, stacks, warp, block, active_mask, paths, join):
        """Replace the top entry by one entry per path, reconverging at `join`."""
        slot = int(stacks.top[warp])
        _, _, outer = stacks.entry(warp, slot)
        at_outer = paths.pop(outer, 0)          # these lanes wait in the entry below
        if join != outer:
            stacks.pc[warp, slot] = join[0]
            stacks.active_mask[warp, slot] = active_mask & ~at_outer
            paths.pop(join, None)                # these wait in the reconvergence entry
        else:
            stacks.top[warp] -= 1
        ordered = self.paths_in_run_order(ctx, block, list(paths))
        for target in reversed(ordered):
            stacks.push(warp, target[0], paths[target], join)

    def paths_in_run_order(self, ctx, block, targets: list) -> list:
        """The divergent paths of `block`, (block id, call depth) each, first to run first.

        Lowest block id first: the fall-through side of a forward branch, as
        NVVM lays it out, and the order `lowest-pc` gives structured code.
        """
        return sorted(targets)

    # ------------------------------------------------------------ .sync instructions

    def lanes_here(self, ctx, block, idx, slots):
        """Only the issuing entry's lanes are converged, whatever other lanes sit at the block."""
        issuing = np.zeros(ctx.n, dtype=bool)
        issuing[idx] = True
        return issuing[slots]


# ------------------------------------------------------------ CTA barriers

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
