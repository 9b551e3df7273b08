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
the stack looks at them again once they run. Pre-Volta barriers count warps,
so the lanes the stack holds back count as arrived when their warp issues the
barrier (see count_held_lanes_at_barriers). A `.sync` instruction counts as
met only by the issuing entry's lanes: lanes of another entry at the same
block are not converged with it, even when they sit at the same PC.

Only warps whose top entry just diverged, reached its reconvergence pc or
lost all its lanes take Python work; the rest move in whole-array steps.
"""

from __future__ import annotations

import numpy as np

from ..state import AT_BARRIER, AT_WARP_SYNC, EXITED
from .base import NO_PC, SchedulingModel
from .stack_barriers import count_held_lanes_at_barriers, held_at_barriers
from .warp_stacks import EXIT, WarpStacks
from .warp_sync import NamedLaneMeeting, lane_bits, lane_flags

ALL_LANES = np.uint32(0xFFFFFFFF)


class ReconvergenceStack(NamedLaneMeeting, SchedulingModel):
    """Pre-Volta: one PC per warp; divergent paths serialized until their post-dominator."""

    stops_unnamed_lanes = False       # no WARPSYNC before Volta: a mask leaving a lane out is reported

    name = "stack"

    def start(self, ctx):
        program = ctx.program
        lanes = lane_bits(ctx.exists.reshape(-1, 32))
        ctx.scheduling_state = WarpStacks(ctx.n_warps, program.entry_block(ctx.kernel), lanes)

    def fingerprint(self, ctx) -> bytes:
        return ctx.scheduling_state.tobytes()

    def select(self, ctx, runnable):
        stacks = ctx.scheduling_state
        exited = lane_bits(ctx.status.reshape(-1, 32) == EXITED)
        waiting = self.settle(ctx, stacks, np.flatnonzero(stacks.pending), exited)
        warps = np.arange(ctx.n_warps)
        alive = stacks.top >= 0
        top = np.maximum(stacks.top, 0)
        top_pc = np.where(alive, stacks.pc[warps, top], NO_PC)
        active = np.where(alive, stacks.active_mask[warps, top] & ~exited, 0).astype(np.uint32)
        chosen = runnable.reshape(-1, 32) & (ctx.pc.reshape(-1, 32) == top_pc[:, None])
        diverged = np.flatnonzero((active | exited) != ALL_LANES)    # lanes held in lower entries
        if len(diverged):
            chosen[diverged] &= lane_flags(active[diverged])
        issuing = chosen.any(axis=1)
        if not issuing.any() and runnable.any():
            raise held_at_barriers(ctx, stacks, exited)
        stacks.pending = issuing.copy()
        stacks.pending[waiting] = True
        warp_pc = np.where(issuing, top_pc, NO_PC)
        if len(diverged):
            count_held_lanes_at_barriers(ctx, warp_pc, chosen, ~exited & ~active)
        return warp_pc, chosen

    # ------------------------------------------------------------ after a block ran

    def settle(self, ctx, stacks, warps, exited) -> np.ndarray:
        """Update the stacks of warps that issued: returns those still waiting at a barrier.

        The common outcomes are whole-array steps over the warps they concern:
        the top's lanes all at one block (the top moves there), all at its
        reconvergence pc (pop), or at two blocks of the same function (split).
        Anything else (lanes returned or exited mid-branch, more targets, a
        custom path order) takes `settle_warp`, one warp at a time.
        """
        if not len(warps):
            return warps
        top = stacks.top[warps]
        active = stacks.active_mask[warps, top] & ~exited[warps]
        every = len(warps) == ctx.n_warps
        rows = (lambda a: a.reshape(-1, 32)) if every else (lambda a: a.reshape(-1, 32)[warps])
        pcs = rows(ctx.pc)
        first = warps * 32 + lowest_lane(active)
        target, target_depth = ctx.pc[first], ctx.call_depth[first]
        at_target = lane_bits(pcs == target[:, None]) & active
        same_depth = np.ones(len(warps), dtype=bool)
        if ctx.call_stack.shape[0]:                       # a call was made: depths may differ
            same_depth = (lane_bits(rows(ctx.call_depth) == target_depth[:, None]) & active) == active
        waiting = np.zeros(len(warps), dtype=bool)
        if ctx.status.max() >= min(AT_BARRIER, AT_WARP_SYNC):
            status = rows(ctx.status)
            waiting = (lane_bits((status == AT_BARRIER) | (status == AT_WARP_SYNC)) & active) != 0
        live = ~waiting & (active != 0)
        together = live & same_depth & (at_target == active)
        reconverged = together & ((target == stacks.reconvergence_pc[warps, top])
                                  & (target_depth == stacks.reconvergence_depth[warps, top]))
        moved = together & ~reconverged
        stacks.pc[warps[moved], top[moved]] = target[moved]
        stacks.top[warps[reconverged]] -= 1
        came_back = np.concatenate([warps[~waiting & (active == 0)],
                                    self.check_tops(ctx, stacks, warps[reconverged], exited)])
        diverged = np.flatnonzero(live & ~together)
        split_here = diverged[:0]
        if len(diverged):
            split_here = self.split_two_ways(ctx, stacks, warps[diverged], top[diverged],
                                             active[diverged], at_target[diverged], target[diverged],
                                             target_depth[diverged], same_depth[diverged])
        for w in came_back:
            self.settle_warp(ctx, stacks, int(w), int(exited[w]), just_ran=False)
        for w in split_here:
            self.settle_warp(ctx, stacks, int(w), int(exited[w]), just_ran=True)
        return warps[waiting]

    def check_tops(self, ctx, stacks, warps, exited) -> np.ndarray:
        """Warps whose new top (after a pop) is not ready to issue as it stands."""
        if not len(warps):
            return warps
        alive = stacks.top[warps] >= 0
        warps = warps[alive]
        top = stacks.top[warps]
        active = stacks.active_mask[warps, top] & ~exited[warps]
        here = lane_bits(ctx.pc.reshape(-1, 32)[warps] == stacks.pc[warps, top][:, None])
        return warps[(active == 0) | ((here & active) != active)]

    def split_two_ways(self, ctx, stacks, warps, top, active, at_first, first_pc, depth,
                       same_depth) -> np.ndarray:
        """Split the top of each warp whose lanes went two ways within one function.

        Returns the warps this cannot do (more targets, lanes at other depths,
        a branch reconverging at the function's exit, a custom path order).
        """
        rest = active & ~at_first
        second_pc = ctx.pc[warps * 32 + lowest_lane(rest)]
        at_second = lane_bits(ctx.pc.reshape(-1, 32)[warps] == second_pc[:, None]) & rest
        branch_pc = stacks.pc[warps, top]
        join = self.join_of(ctx)[branch_pc]
        simple = (same_depth & ((at_first | at_second) == active) & (join >= 0)
                  & (type(self).paths_in_run_order is ReconvergenceStack.paths_in_run_order))
        w, top, active, depth, join = warps[simple], top[simple], active[simple], depth[simple], join[simple]
        paths = [(first_pc[simple], at_first[simple]), (second_pc[simple], at_second[simple])]
        outer_pc = stacks.reconvergence_pc[w, top]
        outer_depth = stacks.reconvergence_depth[w, top]
        at_outer = np.zeros(len(w), dtype=np.uint32)
        keep = []
        for pc, lanes in paths:                 # lanes already at the outer join wait below
            waits = (pc == outer_pc) & (depth == outer_depth)
            at_outer |= np.where(waits, lanes, 0).astype(np.uint32)
            keep.append(~waits)
        new_join = (join != outer_pc) | (depth != outer_depth)
        stacks.pc[w[new_join], top[new_join]] = join[new_join]
        stacks.active_mask[w[new_join], top[new_join]] = (active & ~at_outer)[new_join]
        stacks.top[w[~new_join]] -= 1
        for k, (pc, _) in enumerate(paths):     # lanes at the new join wait in its entry
            keep[k] &= ~(new_join & (pc == join))
        low_first = paths[0][0] < paths[1][0]
        later, sooner = np.where(low_first, 1, 0), np.where(low_first, 0, 1)
        for order in (later, sooner):           # the path at the lowest block ends on top
            pc = np.where(order == 0, paths[0][0], paths[1][0])
            lanes = np.where(order == 0, paths[0][1], paths[1][1])
            kept = np.where(order == 0, keep[0], keep[1])
            stacks.push(w[kept], pc[kept], lanes[kept], join[kept], depth[kept])
        return warps[~simple]

    @staticmethod
    def join_of(ctx) -> np.ndarray:
        """Per block id, the global id of its immediate post-dominator (-1: the function's exit)."""
        joins = getattr(ctx.scheduling_state, "joins", None)
        if joins is None:
            program = ctx.program
            joins = np.array([-1 if b.cfg_block.ipdom is None else
                              program.block_gid(b.function, b.cfg_block.ipdom) for b in program.blocks],
                             dtype=np.int64)
            ctx.scheduling_state.joins = joins
        return joins

    def settle_warp(self, ctx, stacks, warp: int, exited: int, just_ran: bool = True):
        """Pop, move or split the top entries of one warp until its top can issue.

        just_ran: the top's lanes have just run its block (a split reconverges
        at that block's post-dominator); else they came there another way.
        """
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
            stacks.push(np.array([warp]), target[0], paths[target], *join)

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


def lowest_lane(masks: np.ndarray) -> np.ndarray:
    """Per 32-bit lane mask, the index of its lowest lane (31 for an empty mask)."""
    return np.minimum(np.bitwise_count((masks & (~masks + np.uint32(1))) - np.uint32(1)), 31)
