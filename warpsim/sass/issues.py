"""Warp-level issues of the hardware that one issue per warp per executed block does not show.

The SASS engine runs a group of lanes through a block and so counts one issue per warp. Where
the lanes of a warp arrive apart or leave apart, the H200 issues more (Nsight Compute's
smsp__inst_executed): a BSYNC once per group of lanes that arrives at it (lanes that get there at
different times are separate executions), and a BRX whose lanes go to k targets k times (one
target per issue). The counters (metrics/counters.py) and the timing model's recorder
(timing/execution.py) both count issues this way, from these two functions.
"""

from __future__ import annotations

import numpy as np

from .executor.program import WAIT_BSYNC


def bsync_starts(program) -> np.ndarray:
    """Per instruction index (and a last entry for EXIT's -1): whether lanes wait there at a BSYNC."""
    found = getattr(program, "_bsync_starts", None)
    if found is None:
        found = program._bsync_starts = np.append(program.wait_kind[:-1] == WAIT_BSYNC, False)
    return found


def bsync_arrivals(program, idx: np.ndarray, next_pc: np.ndarray, warps: np.ndarray) -> list:
    """[(BSYNC instruction index, warp slots)]: the groups of lanes `idx` (ascending; of the warps
    `warps`, each once) sends to a BSYNC when they go on at `next_pc`: one per warp and BSYNC reached."""
    bsync = bsync_starts(program)
    first = int(next_pc[0])
    if len(idx) == 1 or bool((next_pc == first).all()):
        return [(first, warps)] if bsync[first] else []
    at = bsync[next_pc]
    if not at.any():
        return []
    out = []
    for target in np.flatnonzero(np.bincount(next_pc[at])):        # the few BSYNCs reached
        warps = idx[next_pc == target] >> 5                         # ascending, as idx
        out.append((int(target), warps[np.concatenate(([True], warps[1:] != warps[:-1]))]))
    return out


def brx_targets(idx: np.ndarray, next_pc: np.ndarray) -> tuple:
    """(warp slots, targets per warp k, lanes per (warp, target) pair, each warp's first pair) of a
    BRX executed by lanes `idx`: the hardware issues it k times per warp."""
    pairs, sizes = np.unique(((idx >> 5) << 32) | (next_pc + 1), return_counts=True)
    warps, first = np.unique(pairs >> 32, return_index=True)
    k = np.diff(np.append(first, len(pairs)))
    return warps, k, sizes, first
