"""`its`: independent thread scheduling, Volta and later."""

from __future__ import annotations

import numpy as np

from ..state import AT_WARP_SYNC
from .base import NO_PC, SchedulingModel
from .warp_sync import NamedLaneMeeting


class IndependentThreadScheduling(NamedLaneMeeting, SchedulingModel):
    """Volta and later: each thread has its own PC; the scheduler guarantees progress.

    Groups still issue earliest-block-first, so convergent code issues full
    warps and divergent paths cost what they cost on the hardware. But a warp
    whose issuing group has kept its other groups waiting for `patience`
    rounds switches to round-robin among its groups until it has reconverged,
    so a lane spinning on a flag that another lane of its warp will set does
    not starve that lane. A group that reaches a `.sync` instruction before the
    lanes its mask names waits there while the warp's other groups run.

    Its per-warp state (ctx.starved, ctx.rotating, ctx.last_pc) lives on the
    launch state itself, where the engine's livelock fingerprint reads it.
    """

    name = "its"
    independent_progress = True
    patience = 2048

    def start(self, ctx):
        ctx.scheduling_state = None

    def fingerprint(self, ctx) -> bytes:
        return ctx.rotating.tobytes() + ctx.last_pc.tobytes()

    def select(self, ctx, runnable):
        key = np.where(runnable, ctx.pc, NO_PC).reshape(-1, 32)
        warp_pc = key.min(axis=1)
        others = (key != warp_pc[:, None]) & (key != NO_PC)
        divergent = others.any(axis=1)
        ctx.starved = np.where(divergent, ctx.starved + 1, 0)
        ctx.rotating &= divergent
        ctx.rotating |= ctx.starved > self.patience
        if ctx.rotating.any():
            warp_pc = warp_pc.copy()
            w = np.flatnonzero(ctx.rotating)
            after = np.where(key[w] > ctx.last_pc[w, None], key[w], NO_PC).min(axis=1)
            warp_pc[w] = np.where(after != NO_PC, after, warp_pc[w])
        ctx.last_pc = warp_pc
        return warp_pc, key == warp_pc[:, None]

    def not_converged(self, ctx, block, idx, masks, ready):
        """The groups wait at the instruction while the warp's other lanes run."""
        ctx.status[idx[~ready]] = AT_WARP_SYNC
