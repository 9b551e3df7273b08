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
