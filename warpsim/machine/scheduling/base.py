"""The scheduling-model interface: which lanes of each warp issue next.

The engine (warpsim/machine/engine.py) knows a model only through this class.
Each round it asks `select` for one group of lanes per warp, runs the groups,
and hands every warp-synchronous block to `meet` before running it. A model
keeps whatever per-warp state it needs on the launch state (`start` creates it),
so two launches never share scheduling state.
"""

from __future__ import annotations

import numpy as np

NO_PC = np.iinfo(np.int64).max     # a warp that issues nothing this round


def warp_any(flags: np.ndarray) -> np.ndarray:
    """Per warp, whether `flags` (a bool per thread slot, or (warps, 32)) holds for some lane: a
    warp's 32 one-byte flags read as four 64-bit words, OR-ed (NumPy's any(axis=1) over rows
    of 32 is a slow reduction: about ten times this)."""
    words = np.ascontiguousarray(flags).view(np.uint64).reshape(-1, 4)
    return (words[:, 0] | words[:, 1] | words[:, 2] | words[:, 3]) != 0


class SchedulingModel:
    """One way for a warp to choose its issuing lanes; subclass and register it.

    `name` is what `warpsim.settings(scheduling=NAME)` selects.
    `independent_progress` says whether lanes of a warp that diverged are
    guaranteed to make progress (Volta's promise): when they are not, a
    livelock report explains the pre-Volta hang.
    """

    name: str = ""
    independent_progress: bool = False

    def start(self, ctx) -> None:
        """Create the model's per-warp state for one batch, before its first round.

        The state belongs on `ctx` (by convention `ctx.scheduling_state`):
        a model object is shared by every launch and holds nothing itself.
        """
        raise NotImplementedError

    def select(self, ctx, runnable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lanes each warp issues this round.

        runnable: per thread slot, True where the thread is RUNNING.
        Returns (warp_pc, chosen): warp_pc per warp is the global block id the
        warp issues (NO_PC: nothing), chosen is a (warps, 32) bool array of the
        issuing lanes, every one of them RUNNING with ctx.pc equal to warp_pc.
        """
        raise NotImplementedError

    def select_converged_start(self, ctx) -> bool:
        """Whether the batch's first round issues every living lane at the kernel's entry block,
        one group per warp (what select gives when every thread starts there); a model that
        says True has updated its state as that select would. The engine then skips select for
        the first round, most of a one-block launch's scheduling. False: the engine asks select.
        """
        return False

    def select_converged(self, ctx, gid: int) -> bool:
        """Whether, when every warp has runnable lanes and all of them are at block `gid`, each
        warp issues all its runnable lanes there (what select would give); a model that says
        True has updated its state as that select would. False: the engine asks select.
        """
        return False

    def fingerprint(self, ctx) -> bytes:
        """The model's per-warp state as bytes, for the livelock check.

        Two rounds with the same thread state and the same fingerprint are the
        same state: a model whose state decides what runs next (a stack, a
        round-robin position) returns it here.
        """
        return b""

    def meet(self, ctx, block, idx: np.ndarray):
        """Before a warp-synchronous block runs for threads idx: who takes part.

        Returns the threads that run the block now (idx itself when nothing
        changes, possibly with lanes that had been waiting for them), or None
        when none do yet. Lanes that must wait are marked AT_WARP_SYNC; misuse
        the model cannot run is a LaunchError naming the lane and the line.
        """
        raise NotImplementedError
