"""`its`: independent thread scheduling, Volta and later."""

from __future__ import annotations

import numpy as np

from ..state import AT_WARP_SYNC
from .base import NO_PC, SchedulingModel, warp_any
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
    meets_across_sites = True
    patience = 2048

    def start(self, ctx):
        ctx.scheduling_state = None

    def fingerprint(self, ctx) -> bytes:
        return ctx.rotating.tobytes() + ctx.last_pc.tobytes()

    def select_converged_start(self, ctx) -> bool:
        """Every warp issues its living lanes at the entry block: none is divergent, so starved and
        rotating stay zero; the last PC issued is the entry block's."""
        last_pc = ctx.last_pc = np.empty(ctx.n_warps, dtype=np.int64)
        last_pc.fill(ctx.pc[0])             # (np.full costs a launch of one block more)
        return True

    def select_converged(self, ctx, gid: int) -> bool:
        """No warp is divergent, so none is starved or rotating (a rotating warp leaves the
        round-robin once it has reconverged) and each issues at its lowest, only, PC."""
        ctx.starved = np.zeros(ctx.n_warps, dtype=np.int64)
        ctx.rotating = np.zeros(ctx.n_warps, dtype=bool)
        ctx.last_pc = np.full(ctx.n_warps, gid, dtype=np.int64)
        return True

    def select(self, ctx, runnable):
        key = np.where(runnable, ctx.pc, NO_PC).reshape(-1, 32)
        warp_pc = issue_with_rotation(key, ctx, self.patience)
        return warp_pc, key == warp_pc[:, None]

    def not_converged(self, ctx, block, idx, masks, ready):
        """The groups wait at the instruction while the warp's other lanes run."""
        ctx.status[idx[~ready]] = AT_WARP_SYNC


def issue_with_rotation(key: np.ndarray, warps, patience: int, held=None, may_switch=None) -> np.ndarray:
    """Per warp, the PC its ready lanes issue at: the lowest, or the next after the last while rotating.

    key is (warps, 32) with each ready lane's PC and NO_PC elsewhere; held,
    where given, marks warps whose other lanes wait for the issuing ones (the
    SASS executor's lanes at a BSYNC), which keeps them waiting as much as a
    second path does; may_switch, where given, marks the warps allowed to
    leave their path this round (the SASS executor's warps that last issued a
    YIELD: elsewhere ptxas may keep one path's values in uniform registers
    another path also uses). `warps` carries the per-warp arrays starved,
    rotating and last_pc, updated here. The PTX machine and the SASS executor
    both issue this way, so a spin-wait finishes on both.
    """
    warp_pc = key.min(axis=1)
    divergent = warp_any((key != warp_pc[:, None]) & (key != NO_PC))
    if held is not None:
        divergent |= held
    warps.starved = np.where(divergent, warps.starved + 1, 0)
    warps.rotating = (warps.rotating & divergent) | (warps.starved > patience)
    switching = warps.rotating if may_switch is None else warps.rotating & may_switch
    if switching.any():
        w = np.flatnonzero(switching)
        after = np.where(key[w] > warps.last_pc[w, None], key[w], NO_PC).min(axis=1)
        warp_pc[w] = np.where(after != NO_PC, after, warp_pc[w])
    warps.last_pc = warp_pc
    return warp_pc
