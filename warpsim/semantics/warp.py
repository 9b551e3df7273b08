"""Warp-level exchange on plain arrays: ballot, vote, match, redux, elect, shuffle source lanes.

PTX's vote/match/redux/elect/shfl.sync and SASS's VOTE/MATCH/REDUX/ELECT/SHFL
compute the same things; both executors pass the thread slots taking part
(`slots`, slot = warp * 32 + lane, any order) and per-lane values, and get one
result per slot back. A `member_mask` per lane (PTX's membermask operand, or
SASS's WARPSYNC.EXCLUSIVE mask) limits what each lane sees to the lanes its
own mask names: lanes of one warp may run a collective in separate groups (two
16-lane halves, each naming only itself). `issued_masks` says which lanes a
lane's `.sync` collective runs with on sm_70 and later, as ptxas compiles it
and an H200 runs it, where masks leave out lanes or differ between them.
Without one every lane of `slots` in the warp takes part, as SASS's lanes
that issue together do.
"""

from __future__ import annotations

import numpy as np

SHUFFLE_MODES = ("idx", "up", "down", "bfly")
VOTE_MODES = ("all", "any", "uni", "ballot")
REDUCTIONS = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}


# %lanemask_* / SR_*MASK: which lanes, relative to the reading lane, the mask names.
_LANE_MASKS = {
    "eq": lambda at, upto: at,                 # the lane itself
    "lt": lambda at, upto: at - 1,             # lanes below it
    "le": lambda at, upto: upto - 1,           # lanes below it and itself
    "gt": lambda at, upto: ~(upto - 1),        # lanes above it
    "ge": lambda at, upto: ~(at - 1),          # the lane and those above
}
LANE_MASKS = tuple(_LANE_MASKS)


def lane_mask(kind: str, lane) -> np.ndarray:
    """The 32-bit lane mask `kind` ('eq', 'lt', 'le', 'gt', 'ge') of each lane number."""
    lane = np.asarray(lane).astype(np.uint64)
    at, upto = np.uint64(1) << lane, np.uint64(1) << (lane + np.uint64(1))
    return (_LANE_MASKS[kind](at, upto) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def warp_rows(slots) -> tuple:
    """(row of each lane's warp, number of rows) of a (rows, 32) grid: the warp's index itself,
    which costs a grid as large as the batch up to the last warp but no sort or scan."""
    warp = np.asarray(slots) >> 5
    return warp, int(warp.max()) + 1 if len(warp) else 0


def ballot(slots, flags) -> np.ndarray:
    """Per lane of slots: the 32-bit word of lanes of its warp (within slots) where flags holds."""
    slots = np.asarray(slots)
    row, n_rows = warp_rows(slots)
    grid = np.zeros((n_rows, 32), dtype=bool)
    grid[row, slots & 31] = np.broadcast_to(np.asarray(flags, dtype=bool), slots.shape)
    words = np.packbits(grid, axis=1, bitorder="little").view("<u4")[:, 0]
    return words.astype(np.uint32)[row]


def same_mask_lanes(slots, masks) -> np.ndarray:
    """Per lane: the lanes of its mask, among those of slots, whose mask is its own. WARPSYNC.EXCLUSIVE
    on a register mask runs each set of lanes holding one mask apart: on the H200
    `__ballot_sync(lanemask_le, p)` gives each lane its own bit alone (validation/warp_sync_masks)."""
    slots = np.asarray(slots)
    masks = np.broadcast_to(np.asarray(masks).astype(np.uint32), slots.shape)
    row, n_rows = warp_rows(slots)
    grid = np.full((n_rows, 32), -1, dtype=np.int64)
    grid[row, slots & 31] = masks
    mine = grid[row]                                   # each lane's warp, lane by lane
    same = mine == masks.astype(np.int64)[:, None]
    words = np.packbits(same, axis=1, bitorder="little").view("<u4")[:, 0]
    return masks & words.astype(np.uint32)


def issued_masks(slots, masks, constant: bool) -> np.ndarray:
    """Per lane: the lanes a `.sync` collective with these member masks runs with on sm_70 and later,
    where every lane of slots names itself or the mask is a constant (else the GPU faults:
    ptxas puts a WARPSYNC on a register mask, and WARPSYNC stops a lane its mask leaves out).

    - A constant mask that leaves out a lane issuing it: ptxas puts no WARPSYNC before a
      collective with a constant mask in converged code, so it runs for every lane issuing it
      and the mask counts for nothing (the H200: `__ballot_sync(0x55555555, p)` and
      `__ballot_sync(0, p)` by a whole warp give the whole warp's ballot).
    - A register mask: lanes whose masks differ run apart (same_mask_lanes)."""
    slots = np.asarray(slots)
    masks = np.broadcast_to(np.asarray(masks).astype(np.uint32), slots.shape)
    if not len(slots) or (masks == np.uint32(0xFFFFFFFF)).all():
        return masks
    if constant:
        named = ((masks >> (slots & 31).astype(np.uint32)) & np.uint32(1)).astype(bool)
        return masks if named.all() else ballot(slots, True)
    if (masks == masks[0]).all():
        return masks
    return same_mask_lanes(slots, masks)


def _named(slots, member_mask):
    """(lanes taking part: all of slots, their masks as uint32) for a member mask per lane."""
    masks = np.broadcast_to(np.asarray(member_mask).astype(np.uint32), np.shape(slots))
    return np.ones(np.shape(slots), dtype=bool), masks


def taking_part(slots, member_mask=None) -> np.ndarray:
    """Per lane: the lanes it meets (see the module docstring)."""
    if member_mask is None:
        return ballot(slots, True)
    named, masks = _named(slots, member_mask)
    return ballot(slots, named) & masks


def vote(mode: str, slots, pred, member_mask=None):
    """vote.{all,any,uni,ballot}: the ballot word (uint32) for 'ballot', else a bool per lane."""
    pred = np.broadcast_to(np.asarray(pred, dtype=bool), np.shape(slots))
    if member_mask is None:
        meeting, votes = ballot(slots, True), ballot(slots, pred)
    else:
        named, masks = _named(slots, member_mask)
        meeting, votes = ballot(slots, named) & masks, ballot(slots, pred & named) & masks
    if mode == "ballot":
        return votes
    if mode == "all":
        return votes == meeting
    if mode == "any":
        return votes != 0
    if mode == "uni":
        return (votes == 0) | (votes == meeting)
    raise ValueError(f"vote mode {mode!r}")


def match(mode: str, slots, values, member_mask=None):
    """match.any: per lane, the lanes it meets holding its value; match.all: (that mask where
    every lane it meets agrees, else 0; whether they agree)."""
    slots = np.asarray(slots)
    values = np.broadcast_to(np.asarray(values), slots.shape)
    lanebit = np.uint64(1) << (slots & 31).astype(np.uint64)
    named = np.ones(slots.shape, dtype=bool) if member_mask is None else _named(slots, member_mask)[0]
    row, _ = warp_rows(slots)
    order = np.lexsort((values, row))
    row_sorted, value_sorted = row[order], values[order]
    new_key = np.ones(len(slots), dtype=bool)
    new_key[1:] = (row_sorted[1:] != row_sorted[:-1]) | (value_sorted[1:] != value_sorted[:-1])
    same = np.empty(len(slots), dtype=np.uint32)
    if len(slots):                                  # lanes of one (warp, value) are adjacent now
        starts = np.flatnonzero(new_key)
        per_key = np.bitwise_or.reduceat(np.where(named[order], lanebit[order], np.uint64(0)), starts)
        same[order] = np.repeat(per_key, np.diff(np.append(starts, len(slots)))).astype(np.uint32)
    if member_mask is not None:                     # only the lanes this lane's mask names
        same &= np.broadcast_to(np.asarray(member_mask).astype(np.uint32), same.shape)
    if mode == "any":
        return same
    if mode != "all":
        raise ValueError(f"match mode {mode!r}")
    meeting = taking_part(slots, member_mask)
    agree = same == meeting
    return np.where(agree, meeting, np.uint32(0)), agree


def redux(op: str, slots, values, member_mask=None) -> np.ndarray:
    """redux.{add,min,max,and,or,xor} over the lanes each lane meets; min/max are signed when
    values are (int32), add wraps; the result has values' dtype."""
    slots = np.asarray(slots)
    values = np.asarray(values)
    dtype = values.dtype
    values = np.broadcast_to(values, slots.shape)
    identity = {"add": 0, "and": ~np.array(0, dtype=dtype), "or": 0, "xor": 0,
                "min": np.iinfo(dtype).max, "max": np.iinfo(dtype).min}[op]
    reduce = REDUCTIONS[op]
    row, n_rows = warp_rows(slots)
    grid = np.full((n_rows, 32), identity, dtype=dtype)
    if member_mask is None:
        grid[row, slots & 31] = values
        return reduce.reduce(grid, axis=1).astype(dtype)[row]
    named, masks = _named(slots, member_mask)
    grid[row, slots & 31] = np.where(named, values, identity)
    present = ballot(slots, named)
    if ((masks & present) == present).all():        # every mask names every lane present: one value per warp
        return reduce.reduce(grid, axis=1).astype(dtype)[row]
    in_mask = ((masks[:, None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1)) != 0
    rows = np.where(in_mask, grid[row], np.asarray(identity, dtype=dtype))
    return reduce.reduce(rows, axis=1).astype(dtype)


def elect(slots, member_mask=None) -> tuple:
    """elect.sync: (leader lane: the lowest lane met, is-leader) per lane."""
    meeting = taking_part(slots, member_mask).astype(np.uint64)
    lowest = meeting & (~meeting + np.uint64(1))          # isolate the lowest set bit
    leader = np.where(lowest == 0, 0, np.log2(np.maximum(lowest, 1).astype(np.float64))).astype(np.uint32)
    return leader, leader == (np.asarray(slots) & 31).astype(np.uint32)


SHUFFLE_MODES = ("up", "down", "bfly", "idx")


def shuffle_sources(lane, mode: str, b, c) -> tuple:
    """(source lane, in range) per lane for a shuffle ('up', 'down', 'bfly' or 'idx'): b is the lane
    or offset, c packs the clamp (bits 0-4) and the segment mask (bits 8-12), as PTX's shfl.sync
    and SASS's SHFL both define them; a lane whose source is out of range reads itself."""
    lane = np.asarray(lane).astype(np.int64)
    bval = np.asarray(b).astype(np.int64) & 31
    cval = np.asarray(c).astype(np.int64)
    clamp, segment = cval & 31, (cval >> 8) & 31
    max_lane = (lane & segment) | (clamp & ~segment)
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    elif mode == "idx":
        j = (lane & segment) | (bval & ~segment)
        ok = j <= max_lane
    else:
        raise ValueError(f"shuffle mode {mode!r}")
    return np.where(ok, j, lane), ok
