"""What a launch reports: the one interface profilers, sanitizer tools, charts
and timing models observe both executors through.

An observer subclasses LaunchObserver and overrides the events it wants; an
executor calls only the overridden ones (`observers_of` picks them once per
launch), so an observer of blocks costs nothing per memory access. The PTX
machine (its NumPy and Numba blocks and the compiled round loop) raises the
first set of events, the SASS executor the `sass_*` set: an observer of one
executor implements one set. Observers
are registered once, when the launch starts: the ones the caller passes to
`LoadedModule.launch(observers=...)`, plus those of every session that is on
(`warpsim.sessions.launch_observers`). The machine never imports who listens.

Arguments the events carry:
  ctx       the batch's LaunchState (read it; never change it)
  block     the ProgramBlock that ran; idx: thread slots that ran it (sorted by
            warp); warps: their warp slots (unique), so one warp instruction
            per warp and per instruction of the block was issued
  site      the instruction a memory access or barrier belongs to (site.ins)
  space     'global', 'shared', 'local', 'param' or 'const'; kind 'load', 'store', 'atomic'
  addrs     one address per thread of idx; size bytes each; count per thread
  members   thread slots a CTA barrier released; keys: their (CTA, barrier) keys
  record    the compiled round loop's LoopRecord (machine/compiled/loop.py): per
            warp and block, the issues and active lanes of the rounds it ran
SASS executor (st is the batch's SassState, read it only):
  block     the SASS block that issued; group: its lanes (group.idx, thread slots
            sorted by warp); pred_on: per instruction, lanes whose guard held;
            next_pc: each lane's next instruction index (-1: exited)
  ins       the SassInstruction of a memory access; space 'global', 'shared',
            'local'; kind 'ld', 'st', 'atom' or 'red'; addrs per lane of idx
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Launch:
    """What a session needs to decide which observers a launch gets."""
    loaded_module: object          # the LoadedModule the kernel belongs to
    kernel: str
    grid: tuple
    block: tuple
    shared_bytes: int              # static + dynamic shared memory per CTA
    dynamic_shared: int
    params: bytes = b""            # the kernel's parameter buffer, as the launch packed it


class LaunchObserver:
    """The events of one launch, in the order they happen. Override what you need."""

    def batch_started(self, ctx) -> None:
        """A batch of CTAs is about to run (its LaunchState is ctx)."""

    def block_executed(self, ctx, block, idx, warps) -> None:
        """Threads idx of warps issued one basic block: its instructions, with these lanes active."""

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count) -> None:
        """Threads idx accessed memory at addrs (a load, store or atomic of one instruction)."""

    def barrier_released(self, ctx, members, keys) -> None:
        """A CTA barrier (bar.sync/barrier.sync, any id) let the threads `members` go."""

    def cluster_barrier_released(self, ctx, ctas) -> None:
        """A thread-block cluster's barrier (barrier.cluster) completed a phase: every thread of
        the CTA slots `ctas` had arrived."""

    def warp_sync_met(self, ctx, block, idx) -> None:
        """The lanes idx met at a warp-synchronous instruction (shfl.sync, vote.sync, ...)."""

    def batch_finished(self, ctx) -> None:
        """Every thread of the batch has exited."""

    def launch_failed(self, ctx, error) -> None:
        """The launch stopped with a LaunchError (a fault, deadlock, trap); it propagates next."""

    def launch_finished(self, result) -> None:
        """The whole grid ran; result is the LaunchResult."""

    # ---- the compiled round loop (machine/compiled/): it runs a batch's scheduling rounds in
    # machine code only when every block observer overrides compiled_rounds (the others need every
    # block execution: the loop falls back); the warps logged_warps names share one log, each
    # observer reading its own rows (machine/compiled/shared_log.py)

    def logged_warps(self, ctx):
        """Before the loop runs: batch warp -> row of the log of its issues (-1: not logged)."""
        return None

    def compiled_rounds(self, ctx, record) -> None:
        """The loop ran rounds of the batch: their block counts (and the logged warps' issues)."""

    # ---- the SASS executor (sass/executor/)

    def sass_batch_started(self, st) -> None:
        """A batch of CTAs is about to run on the SASS executor."""

    def sass_block_issued(self, st, block, group, pred_on, next_pc) -> None:
        """The lanes of group issued one SASS block (one warp instruction per warp and instruction)."""

    def sass_memory_access(self, st, ins, space, kind, idx, addrs, size) -> None:
        """Lanes idx accessed memory at addrs, size bytes each (a load, store or atomic)."""

    # the SASS executor's compiled round loop (sass/compiled/round_loop.py) runs rounds in machine code
    # only when every block observer overrides sass_compiled_rounds; the warps sass_logged_warps names share
    # one log, each observer reading its own rows

    def sass_logged_warps(self, st):
        """Before the loop runs: batch warp -> row of the log of its issues (-1: not logged), or None."""
        return None

    def sass_compiled_rounds(self, st, record) -> None:
        """The loop ran rounds of the batch: what they issued per block (a RoundRecord)."""


class LaunchRunner:
    """An observer that may run the whole launch itself, in place of the PTX machine (the SASS
    executor, when a profile wants only the counts of the code the GPU issues): the machine asks
    it before running any batch. `others` are the launch's other observers, so a runner can
    decline when one of them needs the PTX run's events."""

    def run_instead(self, launch, settings, others, cluster_dims):
        """The LaunchResult of running the launch itself, or None to let the PTX machine run it."""
        return None


EVENTS = tuple(name for name in vars(LaunchObserver) if not name.startswith("_"))


def observers_of(observers, event: str) -> list:
    """The observers that override `event` (the others would do nothing)."""
    if not observers:                   # the usual launch, watched by nobody
        return []
    default = getattr(LaunchObserver, event)
    return [o for o in observers
            if getattr(type(o), event, None) is not default and callable(getattr(o, event, None))]


PTX_RUN_EVENTS = tuple(e for e in EVENTS if not e.startswith("sass_") and e not in ("launch_failed", "launch_finished"))


def watches_ptx_run(observer) -> bool:
    """Whether `observer` listens to events only the PTX run gives (a LaunchRunner that runs the
    launch elsewhere must leave the launch to the PTX machine when one does)."""
    return any(observers_of((observer,), event) for event in PTX_RUN_EVENTS)
