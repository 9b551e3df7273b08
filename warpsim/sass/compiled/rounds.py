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
from ..executor.state import PT_ROW, Group
from ...machine.compiled.borrowed import borrowed
from .machine_code import forget_if_stale
from .places import MAX_PLACES, NOT_KEPT, UNKNOWN, after_places, bsync_places, mask_at, read_places, scan_places

NO_PC = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def select_groups(pc, wait_kind, bsync_barrier, B, starved, rotating, last_pc, yields, patience, exited,
                  chosen, group_pc, bounds, picked, warp_pc, first_chosen, run_warp, run_start, run_lanes, group_runs,
                  place_pc, place_mask, n_places):
    """Fills chosen (lanes, grouped by PC; picked holds them where there is one group), group_pc and
    bounds; returns (groups, live lanes), groups = -1 where a live lane waits at a WARPSYNC, BAR or
    polled wait (then nothing is changed but `exited`, which marks the warps whose lanes have all
    exited: they are skipped from then on).
    picked, warp_pc and first_chosen are room for the chosen lanes in warp order, each warp's PC
    and its first. A warp's lanes are read in two passes, most often: one for which are alive,
    wait at a BSYNC, and the lowest and highest PC among the others (two PCs: the warp is divergent),
    one that picks those at the PC it issues; lanes at a BSYNC are read once more, with the members
    of its barrier. Its starvation count, rotation and last PC are written after every warp is known
    to need no operands. Where the round loop keeps a warp's places (n_places[w] >= 0, places.py), they
    stand for its lanes' PCs; UNKNOWN ones are read from the lanes first; NOT_KEPT: none are kept.
    The arrays the inlined helpers take once a warp (a warp's places several times) are borrowed
    (borrowed.py: no reference counts)."""
    place_pc, place_mask, B, pc, wait_kind, bsync_barrier = (borrowed(place_pc), borrowed(place_mask), borrowed(B),
                                                             borrowed(pc), borrowed(wait_kind), borrowed(bsync_barrier))
    n_warps = pc.shape[0] // 32
    n_yields = yields.shape[0]
    live = 0
    count = 0
    for w in range(n_warps):
        group_pc[w] = count                       # where its chosen lanes start in picked
        warp_pc[w] = NO_PC                        # the warp's new state, kept in the grouping's room
        first_chosen[w] = 0                       # until every warp is known (an exited warp's: none
        bounds[w] = 0                             # issues, no starvation, no rotation)
        if exited[w]:
            continue
        base = w * 32
        may_switch = yields[min(last_pc[w], n_yields - 1)]
        yielding = rotating[w] and may_switch
        n = n_places[w]
        if n == UNKNOWN:
            n = n_places[w] = read_places(pc, base, place_pc[w], place_mask[w])
        if n >= 0:                                # the places the round loop keeps: no pass over lanes
            alive, at_bsync, bad, lowest, highest = scan_places(wait_kind, place_pc[w], place_mask[w], n)
            if bad:
                return -1, live
            if not alive:
                exited[w] = True
                continue
            live += _popcount(alive)
            ready, held, lowest, highest = bsync_places(bsync_barrier, B, base, alive, yielding, lowest, highest,
                                                        wait_kind, place_pc[w], place_mask[w], n)
            starving, rotate = _rotation(held, lowest, highest, starved[w], rotating[w], patience)
            if rotate and may_switch:
                after = after_places(place_pc[w], place_mask[w], n, ready, last_pc[w])
                if after != NO_PC:
                    lowest = after
            warp_pc[w] = lowest
            first_chosen[w] = starving
            bounds[w] = np.int64(rotate)
            issuing = ready & mask_at(place_pc[w], place_mask[w], n, lowest)
            for k in range(32):
                picked[count] = base + k
                count += (issuing >> k) & 1
            continue
        alive = 0                                 # bit k: lane k of the warp is alive
        at_bsync = 0                              # ... stands at a BSYNC
        bad = 0                                   # ... waits at a WARPSYNC, BAR or polled wait
        lowest = NO_PC                            # the lowest PC of a live lane not at a BSYNC
        highest = -1                              # ... and the highest
        for k in range(32):                       # (no branch, no state carried but the bits: vectorized)
            p = pc[base + k]
            live_bit = np.int64(p >= 0)
            kind = wait_kind[max(p, 0)]
            bsync_bit = live_bit & np.int64(kind == WAIT_BSYNC)
            alive |= live_bit << k
            at_bsync |= bsync_bit << k
            bad |= live_bit & np.int64(kind != NO_WAIT and kind != WAIT_BSYNC)
            lowest = min(lowest, p if live_bit & ~bsync_bit else NO_PC)
            highest = max(highest, p if live_bit & ~bsync_bit else -1)
        if bad:
            return -1, live
        if not alive:
            exited[w] = True
            continue
        live += _popcount(alive)
        ready, held, lowest, highest = _bsync_waits(pc, bsync_barrier, B, base, alive, at_bsync, yielding,
                                                    lowest, highest)
        starving, rotate = _rotation(held, lowest, highest, starved[w], rotating[w], patience)
        if rotate and may_switch:
            after = NO_PC
            for k in range(32):
                p = pc[base + k]
                after = min(after, p if (ready >> k) & 1 and p > last_pc[w] else NO_PC)
            if after != NO_PC:
                lowest = after
        warp_pc[w] = lowest
        first_chosen[w] = starving
        bounds[w] = np.int64(rotate)
        for k in range(32):
            picked[count] = base + k
            count += (ready >> k) & np.int64(pc[base + k] == lowest)
    for w in range(n_warps):                      # no lane waits for operands: the round is taken
        starved[w] = first_chosen[w]
        rotating[w] = bounds[w] != 0
        last_pc[w] = warp_pc[w]
        first_chosen[w] = group_pc[w]
    first_chosen[n_warps] = count
    groups = _group_by_pc(wait_kind.shape[0], n_warps, warp_pc, first_chosen, picked, count,
                          chosen, group_pc, bounds, run_warp, run_start, run_lanes, group_runs)
    return groups, live


@njit(inline="always")
def _rotation(held, lowest, highest, starved, rotating, patience):
    """(starvation count, whether the warp rotates) of a warp whose ready lanes stand at PCs lowest to
    highest (some held at a BSYNC: `held`): a divergent warp's count grows, and it rotates where it
    rotated before or has starved past `patience`."""
    divergent = held or (lowest != NO_PC and highest != lowest)     # ready lanes at two PCs
    starving = starved + 1 if divergent else 0
    return starving, (rotating and divergent) or starving > patience


@njit(inline="always")
def _bsync_waits(pc, bsync_barrier, B, base, alive, at_bsync, yielding, lowest, highest):
    """(ready lanes, whether some wait at a BSYNC, the lowest and highest PC of a ready lane) of the
    warp at base, given `lowest` and `highest` over its live lanes not at a BSYNC: each BSYNC its lanes
    stand at (one, mostly) holds them until the live members of its barrier arrive."""
    ready = alive
    held = False
    waiting = at_bsync
    while waiting:
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
        if ready & here:                          # some lanes here may issue
            lowest = min(lowest, p)
            highest = max(highest, p)
        waiting &= ~here
    return ready, held, lowest, highest


@njit(inline="always")
def _group_by_pc(n_pcs, n_warps, warp_pc, first_chosen, picked, count, chosen, group_pc, bounds,
                 run_warp, run_start, run_lanes, group_runs):
    """Groups the chosen lanes by PC, lowest first, warps (and so lanes) ascending in each group: a
    counting sort of the warps by PC (PCs are instruction indices, fewer than the lanes); each warp's
    run of lanes is listed too (run_warp, run_start, run_lanes; group g's runs from group_runs[g]).
    One group (the common round) is picked as it stands, in warp order, and is not copied to chosen."""
    lanes_at = np.zeros(n_pcs + 1, dtype=np.int64)
    warps_at = np.zeros(n_pcs + 1, dtype=np.int64)
    for w in range(n_warps):
        if warp_pc[w] != NO_PC:
            lanes_at[warp_pc[w] + 1] += first_chosen[w + 1] - first_chosen[w]
            warps_at[warp_pc[w] + 1] += 1
    groups = 0
    for p in range(n_pcs):
        if lanes_at[p + 1]:
            group_pc[groups] = p
            groups += 1
        lanes_at[p + 1] += lanes_at[p]
        warps_at[p + 1] += warps_at[p]
    for g in range(groups):
        bounds[g] = lanes_at[group_pc[g]]
        group_runs[g] = warps_at[group_pc[g]]
    group_runs[groups] = warps_at[n_pcs]
    for w in range(n_warps):
        p = warp_pc[w]
        if p != NO_PC:
            at = lanes_at[p]
            run = warps_at[p]
            run_warp[run] = w
            run_start[run] = at
            run_lanes[run] = first_chosen[w + 1] - first_chosen[w]
            warps_at[p] += 1
            if groups == 1:                       # picked is the one group already: no copy
                at += first_chosen[w + 1] - first_chosen[w]
            else:
                for j in range(first_chosen[w], first_chosen[w + 1]):
                    chosen[at] = picked[j]
                    at += 1
            lanes_at[p] = at
    bounds[groups] = count
    return groups


@njit(inline="always")
def _popcount(bits):
    """Set bits of a 32-bit mask held in an int64."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


forget_if_stale(select_groups)


@njit(cache=True, nogil=True)
def two_targets(next_pc, starts, lanes, has_low, has_high):
    """Where an issued group goes (next_pc, its warps' runs of lanes from starts): (its lowest next PC,
    its highest, whether every lane goes to one of the two); has_low and has_high get, per warp, whether
    a lane of it goes to the lowest, to the highest. What the observers of an issued block ask of a
    branch (sass/issues.py, Departures), in one pass rather than one NumPy pass per question."""
    low = next_pc[0]
    high = next_pc[0]
    for j in range(next_pc.shape[0]):
        low = min(low, next_pc[j])
        high = max(high, next_pc[j])
    elsewhere = False
    for w in range(starts.shape[0]):
        to_low = False
        to_high = False
        for j in range(starts[w], starts[w] + lanes[w]):
            p = next_pc[j]
            to_low |= p == low
            to_high |= p == high
            elsewhere |= p != low and p != high
        has_low[w] = to_low
        has_high[w] = to_high
    return low, high, not elsewhere


forget_if_stale(two_targets)


@njit(cache=True, nogil=True)
def branch_lanes(guard, invert, idx, jump, fall, pc, next_pc, starts, lanes, to_jump, to_fall):
    """A guarded branch to one index for the lanes idx (uint64: no test for a negative index), its warps'
    runs of lanes from starts: each lane's next PC, jump where its guard (guard[lane] != invert) holds,
    else fall, into next_pc and pc; to_jump and to_fall get, per warp, whether a lane of it goes there.
    Returns how many branch. What execute_block does with a gather of the guard, a subset of the group,
    np.where and a scatter to pc, and what two_targets then works out for the counters, in one pass."""
    taken = 0
    for w in range(starts.shape[0]):
        jumped = 0
        for j in range(starts[w], starts[w] + lanes[w]):
            lane = idx[j]
            on = guard[lane] != invert
            target = jump if on else fall
            next_pc[j] = target
            pc[lane] = target
            jumped += on
        to_jump[w] = jumped > 0
        to_fall[w] = jumped < lanes[w]
        taken += jumped
    return taken


forget_if_stale(branch_lanes)


class Select:
    """select_groups for one batch: its buffers, and the program's per-PC tables."""

    def __init__(self, st):
        program = st.program
        self.bsync_barrier = np.zeros(len(program.wait_kind), dtype=np.int64)
        for k, step in program.steps.items():
            if step.wait is not None and step.wait[0] == "bsync":
                self.bsync_barrier[k] = step.wait[1]
        self.exited = np.zeros(st.n_warps, dtype=np.bool_)      # warps whose lanes have all exited
        self.places = (np.empty((st.n_warps, MAX_PLACES), dtype=np.int64),
                       np.empty((st.n_warps, MAX_PLACES), dtype=np.int64), np.empty(st.n_warps, dtype=np.int64))
        self.not_kept = np.full(st.n_warps, NOT_KEPT, dtype=np.int64)   # the engine's rounds keep no places
        n, warps = st.n, st.n_warps
        self.buffers = (np.empty(n, dtype=np.int64), np.empty(n + 1, dtype=np.int64), np.empty(n + 1, dtype=np.int64),
                        np.empty(n, dtype=np.int64), np.empty(warps, dtype=np.int64),
                        np.empty(warps + 1, dtype=np.int64), np.empty(warps, dtype=np.int64),
                        np.empty(warps, dtype=np.int64), np.empty(warps, dtype=np.int64), np.empty(n + 1, dtype=np.int64))

    def branch(self, st, g, guard, jump: int, fall: int, next_pc: np.ndarray) -> int:
        """`@guard BRA` to instruction `jump` for the lanes of g (an index array), the others to `fall`:
        next_pc and st.pc written (branch_lanes), and per warp whether lanes went to each kept as
        g.branched for the counters (issues.Departures); the lanes whose guard held."""
        rows = st.P if guard.kind == "pred" else st.UP
        row = rows[PT_ROW if guard.number is None else guard.number]
        _, starts, lanes = g.warp_runs()
        to_jump, to_fall = np.empty(len(starts), dtype=np.bool_), np.empty(len(starts), dtype=np.bool_)
        taken = int(branch_lanes(row, bool(guard.invert), g.idx.view(np.uint64), jump, fall, st.pc, next_pc,
                                 starts, lanes, to_jump, to_fall))
        g.branched = (jump, fall, taken, to_jump, to_fall)
        return taken

    def __call__(self, st, patience: int):
        """([(pc, Group)] the round issues, lowest PC first, live lanes); None where the NumPy phases
        must decide. No group while lanes live is a deadlock. Each Group comes with its warps' runs
        of lanes (Group.warp_runs), which the select knows."""
        groups, live = select_groups(st.pc, st.program.wait_kind, self.bsync_barrier, st.B, st.starved, st.rotating,
                                     st.last_pc, st.program.yields, patience, self.exited, *self.buffers,
                                     *self.places[:2], self.not_kept)
        if groups < 0:
            return None
        return self.groups(groups), live

    def groups(self, groups: int, first: int = 0) -> list:
        """[(pc, Group)] of the round select_groups chose last, from its buffers (from group `first` on)."""
        chosen, group_pc, bounds = self.buffers[:3]
        if groups == 1:
            chosen = self.buffers[3]              # picked: one group, not copied (_group_by_pc)
        run_warp, run_start, run_lanes, group_runs = self.buffers[6:]
        out = []
        for g in range(first, groups):
            lo, hi = bounds[g], bounds[g + 1]
            first, last = group_runs[g], group_runs[g + 1]
            runs = (run_warp[first:last].copy(), run_start[first:last] - lo, run_lanes[first:last].copy())
            out.append((int(group_pc[g]), Group(chosen[lo:hi].copy(), runs)))
        return out
