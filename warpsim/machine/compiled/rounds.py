"""The scheduling round's select phase as machine code, for the models that keep no stack.

`its` and `lowest-pc` pick, per warp, the runnable lanes at one block; in
NumPy that is a dozen passes over every slot of the batch each round, more
than the blocks themselves cost once those are compiled. Here it is one pass
per warp that also groups the issuing warps by block (ascending block id,
warps ascending within a block, lanes ascending: the order the NumPy engine
runs them in), so the engine only calls the blocks. The rules are those of
scheduling/its.py and scheduling/lowest_pc.py, state included (starved,
rotating, last_pc); tests/machine/test_tiers*.py compare rounds and counters.

The pieces (scan_warp, choose, group_by_block) are also what the compiled
round loop (loop.py) runs between blocks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .borrowed import borrowed

NO_PC = np.iinfo(np.int64).max
RUNNING = 0


@njit(cache=True, nogil=True, inline="always")
def scan_warp(pc, status, base):
    """(lowest block id of the warp's runnable lanes or NO_PC, whether they are at several)."""
    lowest = NO_PC
    highest = -1
    for lane in range(32):
        s = base + lane
        if status[s] == RUNNING:
            p = pc[s]
            if p < lowest:
                lowest = p
            if p > highest:
                highest = p
    return lowest, lowest != NO_PC and highest != lowest


@njit(cache=True, nogil=True, inline="always")
def choose(w, lowest, divergent, pc, status, starved, rotating, last_pc, patience, independent):
    """The block warp w issues this round, updating its its-state (lowest-pc keeps none)."""
    if not independent:
        return lowest
    starved[w] = starved[w] + 1 if divergent else 0
    rotating[w] = (rotating[w] and divergent) or starved[w] > patience
    if rotating[w]:
        after = NO_PC
        base = w * 32
        for lane in range(32):
            s = base + lane
            if status[s] == RUNNING and pc[s] > last_pc[w] and pc[s] < after:
                after = pc[s]
        if after != NO_PC:
            lowest = after
    last_pc[w] = lowest
    return lowest


@njit(cache=True, nogil=True)
def group_by_block(pc, status, warp_pc, ran, first_slot):
    """(group block ids, lane slots by group, their bounds, warps by group, their bounds) of the
    warps that have not `ran` this round, lanes from first_slot on (the loop's rest of a round)."""
    n_warps = warp_pc.shape[0]
    blocks = np.unique(warp_pc[~ran])
    if blocks.shape[0] and blocks[-1] == NO_PC:
        blocks = blocks[:-1]
    lanes = np.empty(pc.shape[0], dtype=np.int64)
    warps = np.empty(n_warps, dtype=np.int64)
    lane_bounds = np.zeros(blocks.shape[0] + 1, dtype=np.int64)
    warp_bounds = np.zeros(blocks.shape[0] + 1, dtype=np.int64)
    n_lanes = 0
    n_group_warps = 0
    for g in range(blocks.shape[0]):
        gid = blocks[g]
        for w in range(n_warps):
            if warp_pc[w] != gid or ran[w] or w * 32 + 31 < first_slot:
                continue
            warps[n_group_warps] = w
            n_group_warps += 1
            for lane in range(32):
                s = w * 32 + lane
                if status[s] == RUNNING and pc[s] == gid and s >= first_slot:
                    lanes[n_lanes] = s
                    n_lanes += 1
        lane_bounds[g + 1] = n_lanes
        warp_bounds[g + 1] = n_group_warps
    return blocks, lanes, lane_bounds, warps, warp_bounds


@njit(cache=True, nogil=True)
def select_groups(pc, status, starved, rotating, last_pc, patience, independent):
    """One round's select: per warp the block it issues, then the groups by block. scan_warp and choose,
    inlined, take their arrays once a warp: borrowed (borrowed.py), they count no references."""
    pc, status, starved, rotating, last_pc = (borrowed(pc), borrowed(status), borrowed(starved), borrowed(rotating),
                                              borrowed(last_pc))
    n_warps = pc.shape[0] // 32
    warp_pc = np.empty(n_warps, dtype=np.int64)
    for w in range(n_warps):
        lowest, divergent = scan_warp(pc, status, w * 32)
        warp_pc[w] = choose(w, lowest, divergent, pc, status, starved, rotating, last_pc,
                            patience, independent)
    return group_by_block(pc, status, warp_pc, np.zeros(n_warps, dtype=np.bool_), 0)
