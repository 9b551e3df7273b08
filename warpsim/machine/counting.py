"""Counting distinct keys of a warp-level access, the way the counters and the timing model both need.

A memory instruction's requests, sectors and lines are distinct (warp, address >> k) keys.
Lanes of a warp usually touch rising addresses, so the keys come sorted and counting
them is one pass over their differences; only scattered accesses pay for a sort.
"""

from __future__ import annotations

import numpy as np


def distinct_count(keys: np.ndarray) -> int:
    """How many distinct values `keys` holds (one pass when they are already sorted)."""
    if len(keys) > 1:
        step = np.diff(keys)
        if (step >= 0).all():
            return 1 + int(np.count_nonzero(step))
        return len(np.unique(keys))
    return len(keys)


def conflict_free_wavefronts(warps: np.ndarray, lanes: np.ndarray, addrs: np.ndarray, nbytes: int):
    """Wavefronts of a shared access of 8 or 16 aligned bytes a lane by whole warps (lanes 0-31 in
    order, one warp each) where no phase has a bank conflict, else None (count it the long way).

    Such an access runs in nbytes // 4 phases of 32 // (nbytes // 4) lanes, each lane asking for
    2 or 4 consecutive banks; a phase whose lanes ask for every group of banks once (a swizzled
    tile: a matmul's cp.async copies into shared memory) takes one wavefront. So the access takes
    one wavefront per phase, and only the groups' bits of each address need looking at."""
    n = len(lanes)
    if nbytes not in (8, 16) or n == 0 or n % 32:
        return None
    if not (lanes.reshape(-1, 32) == np.arange(32)).all():
        return None
    warp_rows = warps.reshape(-1, 32)
    if not (warp_rows == warp_rows[:, :1]).all():
        return None
    offsets = addrs.astype(np.int64)
    if (offsets & (nbytes - 1)).any():
        return None
    lanes_per_phase = 128 // nbytes                      # = groups of banks a phase can ask for
    groups = (offsets >> (nbytes.bit_length() - 1)) & (lanes_per_phase - 1)
    asked = np.bitwise_or.reduce(np.left_shift(1, groups).reshape(-1, lanes_per_phase), axis=1)
    if not (asked == (1 << lanes_per_phase) - 1).all():
        return None
    return len(asked)
