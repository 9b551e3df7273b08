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

from ..machine.scheduling.base import warp_any
from .compiled.rounds import two_targets
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


class Departures:
    """Where the lanes of an issued group go after its block (next_pc): the lowest and highest next PC
    and, per warp of the group, whether a lane goes to each, worked out once for what the counters
    ask (a uniform branch, the warps a branch splits, the BSYNCs reached): as machine code where the
    batch's rounds are (`st.select`), else with NumPy, one pass per question."""

    __slots__ = ("group", "next_pc", "low", "high", "has_low", "has_high", "only_two")

    def __init__(self, st, g, next_pc: np.ndarray):
        self.group, self.next_pc = g, next_pc
        if g.branched is not None:                  # the engine's branch pass knows (Select.branch)
            self._of_branch(g, *g.branched)
            return
        _, starts, lanes = g.warp_runs()
        if st.select is not None:
            self.has_low, self.has_high = np.empty(len(starts), dtype=bool), np.empty(len(starts), dtype=bool)
            self.low, self.high, self.only_two = two_targets(next_pc, starts, lanes, self.has_low, self.has_high)
            return
        self.low, self.high = next_pc.min(), next_pc.max()
        to_low, to_high = next_pc == self.low, next_pc == self.high
        self.only_two = bool((to_low | to_high).all())
        whole_warps = g.n == 32 * len(starts)
        self.has_low, self.has_high = (warp_any(to) if whole_warps else np.logical_or.reduceat(to, starts)
                                       for to in (to_low, to_high))

    def _of_branch(self, g, jump: int, fall: int, taken: int, to_jump: np.ndarray, to_fall: np.ndarray):
        """From a branch's pass: its lanes went to jump (to_jump per warp) and to fall (to_fall)."""
        self.only_two = True
        if taken == 0 or taken == g.n or jump == fall:
            self.low = self.high = jump if taken else fall
            self.has_low = self.has_high = to_jump | to_fall
        elif jump < fall:
            self.low, self.high, self.has_low, self.has_high = jump, fall, to_jump, to_fall
        else:
            self.low, self.high, self.has_low, self.has_high = fall, jump, to_fall, to_jump

    @property
    def uniform(self) -> bool:
        """Every lane goes to one place."""
        return self.low == self.high

    def split_warps(self) -> int:
        """Warps of the group with lanes at both the lowest and the highest next PC (a branch's two
        targets: the warps it splits)."""
        return int(np.count_nonzero(self.has_low)) + int(np.count_nonzero(self.has_high)) - len(self.has_low)

    def bsync_arrivals(self, program) -> list:
        """bsync_arrivals of the group, from the flags where its lanes go to at most two places."""
        g = self.group
        warps = g.warp_runs()[0]
        if not self.only_two:
            return bsync_arrivals(program, g.idx, self.next_pc, warps)
        bsync = bsync_starts(program)
        places = ((self.low, self.has_low),) if self.uniform else ((self.low, self.has_low), (self.high, self.has_high))
        return [(int(target), warps[there]) for target, there in places if bsync[target]]


def brx_targets(idx: np.ndarray, next_pc: np.ndarray) -> tuple:
    """(warp slots, targets per warp k, lanes per (warp, target) pair, each warp's first pair) of a
    BRX executed by lanes `idx`: the hardware issues it k times per warp."""
    pairs, sizes = np.unique(((idx >> 5) << 32) | (next_pc + 1), return_counts=True)
    warps, first = np.unique(pairs >> 32, return_index=True)
    k = np.diff(np.append(first, len(pairs)))
    return warps, k, sizes, first
