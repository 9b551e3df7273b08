"""The ready and select phases of a SASS round as machine code (sass/executor/engine.py's rules).

`select_groups` does, in one pass per warp, what engine.ready_lanes and
its.issue_with_rotation do with NumPy passes over every lane: lanes at a BSYNC
wait until the live members of its convergence barrier that are not there yet
arrive (unless their warp is rotating past a YIELD), a lane that is no member
waits while members stand there too; each warp issues its ready lanes at the
lowest PC, or, while rotating, the next PC after the last one it issued; then
the chosen lanes are grouped by PC, lowest first, lanes ascending in each
group, as the engine's stable sort groups them. Rounds where a live lane
stands at a WARPSYNC, BAR or polled wait go to the NumPy phases (the answer
is None): those waits need their instruction's operands.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..executor.program import NO_WAIT, WAIT_BSYNC
from .machine_code import forget_if_stale

NO_PC = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def select_groups(pc, wait_kind, bsync_barrier, B, starved, rotating, last_pc, yields, patience,
                  chosen, group_pc, bounds, picked, warp_pc, first_chosen):
    """Fills chosen (lanes, grouped by PC), group_pc and bounds; returns (groups, live lanes),
    groups = -1 where a live lane waits at a WARPSYNC, BAR or polled wait. picked, warp_pc and
    first_chosen are room for the chosen lanes in warp order, each warp's PC and its first."""
    n = pc.shape[0]
    n_warps = n // 32
    n_yields = yields.shape[0]
    live = 0
    for lane in range(n):
        p = pc[lane]
        if p >= 0:
            live += 1
            kind = wait_kind[p]
            if kind != NO_WAIT and kind != WAIT_BSYNC:
                return -1, live
    count = 0
    for w in range(n_warps):
        base = w * 32
        may_switch = yields[min(last_pc[w], n_yields - 1)]
        yielding = rotating[w] and may_switch
        alive = 0                                 # bit k: lane k of the warp is alive
        at_bsync = 0                              # ... stands at a BSYNC
        for k in range(32):
            p = pc[base + k]
            live_bit = np.int64(p >= 0)
            alive |= live_bit << k
            at_bsync |= (live_bit & np.int64(wait_kind[max(p, 0)] == WAIT_BSYNC)) << k
        ready = alive
        held = False
        waiting = at_bsync
        while waiting:                            # each BSYNC lanes of the warp stand at (one, mostly)
            first = 0
            while not (waiting >> first) & 1:
                first += 1
            p = pc[base + first]
            barrier = bsync_barrier[p]
            here = 0
            members = 0
            for k in range(32):
                here |= np.int64(pc[base + k] == p) << k
                members |= np.int64(B[barrier, base + k]) << k
            missing = (members & alive & ~here) != 0
            stray = here & ~members if (members & here) != 0 else 0     # arrived at an outer instance
            if missing and not yielding:
                ready &= ~here
            ready &= ~stray
            if missing or stray:
                held = True
            waiting &= ~here
        lowest = NO_PC
        for k in range(32):
            p = pc[base + k]
            lowest = min(lowest, p if (ready >> k) & 1 else NO_PC)
        at_lowest = 0
        for k in range(32):
            at_lowest |= np.int64(pc[base + k] == lowest) << k
        divergent = held or (ready & ~at_lowest) != 0
        starved[w] = starved[w] + 1 if divergent else 0
        rotating[w] = (rotating[w] and divergent) or starved[w] > patience
        if rotating[w] and may_switch:
            after = NO_PC
            for k in range(32):
                p = pc[base + k]
                after = min(after, p if (ready >> k) & 1 and p > last_pc[w] else NO_PC)
            if after != NO_PC:
                lowest = after
                at_lowest = 0
                for k in range(32):
                    at_lowest |= np.int64(pc[base + k] == lowest) << k
        last_pc[w] = lowest
        warp_pc[w] = lowest
        first_chosen[w] = count
        issuing = ready & at_lowest
        for k in range(32):
            picked[count] = base + k
            count += (issuing >> k) & 1
    first_chosen[n_warps] = count
    # group the chosen lanes by PC, lowest first, warps (and so lanes) ascending in each group
    order = np.argsort(warp_pc, kind="mergesort")
    groups = 0
    at = 0
    for i in range(n_warps):
        w = order[i]
        if warp_pc[w] == NO_PC:
            break
        if groups == 0 or warp_pc[w] != group_pc[groups - 1]:
            group_pc[groups] = warp_pc[w]
            bounds[groups] = at
            groups += 1
        for j in range(first_chosen[w], first_chosen[w + 1]):
            chosen[at] = picked[j]
            at += 1
    bounds[groups] = at
    return groups, live


forget_if_stale(select_groups)


class Select:
    """select_groups for one batch: its buffers, and the program's per-PC tables."""

    def __init__(self, st):
        program = st.program
        self.bsync_barrier = np.zeros(len(program.wait_kind), dtype=np.int64)
        for k, step in program.steps.items():
            if step.wait is not None and step.wait[0] == "bsync":
                self.bsync_barrier[k] = step.wait[1]
        self.buffers = (np.empty(st.n, dtype=np.int64), np.empty(st.n + 1, dtype=np.int64),
                        np.empty(st.n + 1, dtype=np.int64), np.empty(st.n, dtype=np.int64),
                        np.empty(st.n_warps, dtype=np.int64), np.empty(st.n_warps + 1, dtype=np.int64))

    def __call__(self, st, patience: int):
        """([(pc, lanes)] the round issues, lowest PC first, live lanes); None where the NumPy phases
        must decide. No group while lanes live is a deadlock."""
        groups, live = select_groups(st.pc, st.program.wait_kind, self.bsync_barrier, st.B, st.starved, st.rotating,
                                     st.last_pc, st.program.yields, patience, *self.buffers)
        if groups < 0:
            return None
        chosen, group_pc, bounds = self.buffers[:3]
        return [(int(group_pc[g]), chosen[bounds[g]:bounds[g + 1]].copy()) for g in range(groups)], live
