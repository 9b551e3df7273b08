"""Where a warp's live lanes stand, kept from round to round inside the compiled round loop.

rounds.select_groups reads a warp's 32 PCs two or three times a round: which
lanes live and wait at a BSYNC, the lowest and highest PC of the others, which
stand at the PC it issues. Inside the round loop (round_loop.py) only the lanes
of a group change their PC, to the one or two places its block's end sends them
(the branch pass knows which lane goes where), so the loop keeps, per warp, its
places: up to MAX_PLACES distinct PCs with the mask of the lanes at each. The
select then decides from the places (a BSYNC's members still come from B) and
picks lanes by mask, and the branch pass moves the issued lanes' bits. A warp
whose lanes stand at more places, and every warp at the start of a call (the
engine ran blocks in between), is read from its lanes again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..executor.program import NO_WAIT, WAIT_BSYNC

NO_PC = np.iinfo(np.int64).max
MAX_PLACES = 6
UNKNOWN = -1            # n_places of a warp whose places are to be read from its lanes
NOT_KEPT = -2           # ... of a select that keeps none (the engine's, between rounds in Python)


@njit(inline="always")
def add_lanes(place_pc, place_mask, n, p, lanes):
    """The lanes `lanes` joined to the place at PC p (a new place where there is none): the count of
    places, or UNKNOWN where that would be more than MAX_PLACES."""
    q = 0
    while q < n and place_pc[q] != p:
        q += 1
    if q == n:
        if n == MAX_PLACES:
            return UNKNOWN
        place_pc[n] = p
        place_mask[n] = 0
        n += 1
    place_mask[q] |= lanes
    return n


@njit(inline="always")
def read_places(pc, base, place_pc, place_mask):
    """The places of the warp at base, from its lanes: how many, or UNKNOWN where more than MAX_PLACES."""
    n = 0
    for k in range(32):
        p = pc[base + k]
        if p < 0:
            continue
        n = add_lanes(place_pc, place_mask, n, p, np.int64(1) << k)
        if n == UNKNOWN:
            return UNKNOWN
    return n


@njit(inline="always")
def scan_places(wait_kind, place_pc, place_mask, n):
    """(alive, at_bsync, bad, lowest, highest) from the places, as rounds.select_groups' pass over lanes."""
    alive = 0
    at_bsync = 0
    bad = 0
    lowest = NO_PC
    highest = -1
    for q in range(n):
        p, mask = place_pc[q], place_mask[q]
        kind = wait_kind[p]
        alive |= mask
        if kind == WAIT_BSYNC:
            at_bsync |= mask
        elif kind != NO_WAIT:
            bad = 1
        else:
            lowest = min(lowest, p)
            highest = max(highest, p)
    return alive, at_bsync, bad, lowest, highest


@njit(inline="always")
def bsync_places(bsync_barrier, B, base, alive, yielding, lowest, highest, wait_kind, place_pc, place_mask, n):
    """rounds._bsync_waits from the places: each BSYNC place holds its lanes until the live members of
    its barrier arrive; a lane there that is no member waits while members are there too."""
    ready = alive
    held = False
    for q in range(n):
        p = place_pc[q]
        if wait_kind[p] != WAIT_BSYNC:
            continue
        here = place_mask[q]
        barrier = bsync_barrier[p]
        members = 0
        for k in range(32):
            members |= np.int64(B[barrier, base + k]) << k
        missing = (members & alive & ~here) != 0
        stray = here & ~members if (members & here) != 0 else 0
        if missing and not yielding:
            ready &= ~here
        ready &= ~stray
        if missing or stray:
            held = True
        if ready & here:
            lowest = min(lowest, p)
            highest = max(highest, p)
    return ready, held, lowest, highest


@njit(inline="always")
def after_places(place_pc, place_mask, n, ready, last):
    """The lowest PC after `last` where ready lanes stand (a rotating warp's next path), or NO_PC."""
    after = NO_PC
    for q in range(n):
        if place_mask[q] & ready and place_pc[q] > last:
            after = min(after, place_pc[q])
    return after


@njit(inline="always")
def mask_at(place_pc, place_mask, n, p):
    """The lanes at PC p."""
    for q in range(n):
        if place_pc[q] == p:
            return place_mask[q]
    return 0


@njit(inline="always")
def move_lanes(place_pc, place_mask, n, moved, source, jumped, jump, fell, fall):
    """The places after the lanes `moved` left `source`, `jumped` of them to jump and `fell` to fall (a
    negative PC: exited); their count, or UNKNOWN where they would be more than MAX_PLACES."""
    q = 0
    while q < n:                                    # the issued lanes leave their place
        if place_pc[q] == source:
            place_mask[q] &= ~moved
            if place_mask[q] == 0:
                n -= 1
                place_pc[q] = place_pc[n]
                place_mask[q] = place_mask[n]
            break
        q += 1
    for target, mask in ((jump, jumped), (fall, fell)):
        if mask == 0 or target < 0:
            continue
        n = add_lanes(place_pc, place_mask, n, target, mask)
        if n == UNKNOWN:
            return UNKNOWN
    return n
