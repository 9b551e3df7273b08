"""`lowest-pc`: one group per warp, the lanes at the warp's lowest block id.

The rule warpsim used for `stack` before it had a real reconvergence stack.
NVVM lays blocks out so that a branch's immediate post-dominator follows both
of its sides, so on structured code this is what the stack does: one side runs
to the join, then the other, then the warp continues together. On unstructured
code it merges groups that meet at any block, sooner than the stack would (see
docs/scheduling.md). A group that spins waiting for lanes held at a later
block spins forever, as on pre-Volta hardware.
"""

from __future__ import annotations

import numpy as np

from .base import NO_PC, SchedulingModel
from .warp_sync import NamedLaneMeeting


class LowestPc(NamedLaneMeeting, SchedulingModel):
    """Each warp issues the runnable lanes at its lowest block id; nothing is kept between rounds."""

    name = "lowest-pc"
    stops_unnamed_lanes = False       # a pre-Volta model: a mask leaving a lane out is reported

    def start(self, ctx):
        ctx.scheduling_state = None

    def select_converged_start(self, ctx) -> bool:
        return True          # nothing is kept between rounds

    def select_converged(self, ctx, gid: int) -> bool:
        return True          # each warp's lowest block is the one its runnable lanes are at

    def select(self, ctx, runnable):
        key = np.where(runnable, ctx.pc, NO_PC).reshape(-1, 32)
        warp_pc = key.min(axis=1)
        return warp_pc, key == warp_pc[:, None]
