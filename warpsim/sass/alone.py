"""Running a profiled launch on the SASS executor alone: one execution, the launch's results.

With verification off (settings `sass_verify=False`, $WARPSIM_SASS_VERIFY=0), a
profile that wants SASS-level counts does not run the PTX and then the SASS on a
copy of memory (replay.py): when the SASS executor covers the launch, a
SassAloneRun runs the SASS on the device's own memory in place of the PTX run
(machine.events.LaunchRunner), with the profile's SASS observers watching. Its
memory writes are the launch's, its counters the profile's.

Covered means: the module has SASS from ptxas, the executor runs every opcode of
the kernel (load_program), the launch runs under the `its` model (the executor's
issue order), it is neither cooperative nor a CTA shard, and no session but the
profiler watches it (a sanitizer needs the PTX run's events). Where any of these
fails the PTX run stays, and the profile's note says why; where the reason is an
observer of the PTX run's events passed to the launch, the SASS still runs beside
the PTX run on a copy of memory, as with verification on (the `beside` run replay.py
gives it). A SASS run that stops
before its first batch (a constant bank it cannot fill) falls back to the PTX run
too; one that stops later has written memory, so its error is the launch's
(a fault, a deadlock or a spent round budget, as a plain run's would be). The
executor does not tell a livelock (a spin-wait on a flag nobody sets) as the
PTX machine does, so a batch that runs QUIET_ROUNDS rounds without storing to
device memory hands the launch, memory untouched, to the PTX run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..errors import (
    BudgetExceeded,
    DeadlockError,
    IllegalInstruction,
    MemoryFault,
    TrapError,
    WarpsimError,
)
from ..machine.events import LaunchObserver, LaunchRunner, observers_of, watches_ptx_run
from .run_outcome import ReplayOutcome, scheduling_model

WATCHERS_THAT_NEED_NO_PTX = ("warpsim_profilers", "warpsim_sass_replays")


def why_not_alone(loaded) -> str:
    """'' when the SASS executor can run a launch of the loaded module alone; else why the PTX run
    must stay (known before the launch starts: Triton's launcher asks so)."""
    from ..sessions import watching_sessions
    if getattr(loaded, "sass_only", False):
        return "a SASS-only module has no PTX run to replace"
    others = [name for name in watching_sessions() if name not in WATCHERS_THAT_NEED_NO_PTX]
    if others:
        return f"{', '.join(others)} watch the PTX run's events"
    model = scheduling_model(loaded)
    if model != "its":
        return f"the SASS run models only the 'its' scheduling, and this launch ran under '{model}'"
    return ""


class SassAloneRun(LaunchObserver, LaunchRunner):
    """Runs one launch's SASS in place of its PTX run (see the module docstring).

    observers: the SASS observers (the profile's counters, the timing sample); `stand_for`
    names the PTX observers this run replaces, so that any other observer keeps the PTX run.
    """

    kept_because = ""           # why the PTX run stayed, when it must (another observer watches it)

    def __init__(self, launch, observers=(), beside=None):
        self.launch = launch
        self.make_beside = beside           # SassReplay (replay.py): the SASS run beside a PTX run that stays
        self.observers = list(observers)
        self._requested = list(observers)   # the sessions' SASS observers, before the profiler adds its own
        self.beside = None                  # the SassReplay run beside the PTX run, when that run must stay
        self.replaced: set = set()
        self.started = False
        self._outcome = None
        self._batch = None                  # the batch running, and what the launch stored so far:
        self._earlier_writes = 0            # store steps of the batches before it,
        self._private_writes = 0            # stores to shared or local memory (the batch's own),
        self._device_written = False        # a store or atomic that reached device memory

    def stand_for(self, *observers) -> None:
        self.replaced.update(id(o) for o in observers)

    def sass_batch_started(self, st) -> None:
        self.started = True
        if self._batch is not None:
            self._earlier_writes += self._batch.writes
        self._batch = st

    def sass_memory_access(self, st, ins, space, kind, idx, addrs, size) -> None:
        if kind != "ld":
            if space in ("shared", "local"):
                self._private_writes += 1
            else:
                self._device_written = True

    def sass_block_issued(self, st, block, g, pred_on, next_pc) -> None:
        if st.rounds > QUIET_ROUNDS and not self._device_written and \
                self._earlier_writes + st.writes <= self._private_writes:
            raise HandBack(f"the SASS run spent {QUIET_ROUNDS:,} rounds without writing device memory (a "
                           "spin-wait? the PTX machine tells a livelock), so the PTX run took the launch")

    def sass_compiled_rounds(self, st, record) -> None:
        self.sass_block_issued(st, None, None, None, None)     # the loop's blocks write no memory

    @property
    def ran_alone(self) -> bool:
        """Whether the SASS run took the launch (else the PTX run did, with or without one beside it)."""
        return self.beside is None and self._outcome is not None and self._outcome.covered

    def outcome(self) -> ReplayOutcome:
        if self.beside is not None:
            return self.beside.outcome()
        return self._outcome or ReplayOutcome("ptx", "the launch did not run")

    # While the PTX run stays (run_instead declined), the SASS runs beside it as under verification.
    def batch_started(self, ctx) -> None:
        if self.beside is not None:
            self.beside.batch_started(ctx)

    def launch_failed(self, ctx, error) -> None:
        if self.beside is not None:
            self.beside.launch_failed(ctx, error)

    def launch_finished(self, result) -> None:
        if self.beside is not None:
            self.beside.launch_finished(result)

    def run_instead(self, launch, settings, others, cluster_dims):
        from ..machine.device import LaunchResult
        from . import sass_of
        from .executor import SassExecutionError, load_program, run_launch
        from .executor.launch import cubin_params
        watching = sorted({type(o).__name__ for o in others if id(o) not in self.replaced and watches_ptx_run(o)})
        if watching:                        # the PTX run stays, and the SASS runs beside it (replay.py)
            self.kept_because = f"the PTX run stayed: {', '.join(watching)} watch its events"
            if self.make_beside is None:
                self._outcome = ReplayOutcome("ptx", self.kept_because)
                return None
            self.beside = self.make_beside(launch, self._requested)
            self.beside.kept_because = self.kept_because
            return None
        loaded = launch.loaded_module
        start = time.perf_counter()
        try:
            module = sass_of(loaded)
            program, image = load_program(module, launch.kernel)
        except SassExecutionError as exc:
            self._outcome = ReplayOutcome("ptx", f"SASS not run: {exc}",
                                          unsupported=list(getattr(exc, "unsupported", ())))
            return None
        except (WarpsimError, ValueError) as exc:
            self._outcome = ReplayOutcome("ptx", f"no SASS for this kernel: {exc}")
            return None
        memory = loaded.device.memory
        addresses = getattr(getattr(loaded, "program", None), "global_addresses", {})
        constants = {name: memory.read_bytes(addresses[name], length).tobytes()
                     for name, (_, _, length) in image.constant_symbols.items() if name in addresses}
        try:
            stats = run_launch(program, image, memory=memory, grid=launch.grid, block=launch.block,
                               params=cubin_params(image, launch.params),
                               shared_bytes=image.static_shared + launch.dynamic_shared,
                               constants=constants, addresses=addresses, observers=[self, *self.observers],
                               batch_threads=settings.batch_threads, max_rounds=settings.max_rounds,
                               cluster_dims=cluster_dims)
        except HandBack as exc:             # device memory untouched: the PTX run takes the launch
            self._outcome = ReplayOutcome("ptx", str(exc))
            return None
        except SassExecutionError as exc:
            if not self.started:            # nothing written yet: the PTX run takes the launch
                self._outcome = ReplayOutcome("ptx", f"SASS not run: {exc}")
                return None
            error = launch_error(exc, launch.kernel)
            for observer in observers_of(others, "launch_failed"):
                observer.launch_failed(FailedLaunch(launch.kernel, launch.grid, launch.block), error)
            raise error from None
        result = LaunchResult(launch.kernel, launch.grid, launch.block, launch.dynamic_shared)
        result.rounds = stats["rounds"]
        result.seconds = time.perf_counter() - start
        self._outcome = ReplayOutcome("sass", f"SASS run alone (ptxas {module.ptxas_version}); "
                                              "no PTX run (settings sass_verify=False)",
                                      self.observers, seconds=result.seconds, rounds=stats["rounds"])
        return result


QUIET_ROUNDS = 20_000     # rounds of one batch with no store to device memory before the PTX run takes over


class HandBack(Exception):
    """The SASS run stops, device memory untouched, and leaves the launch to the PTX machine."""


@dataclass(frozen=True)
class FailedLaunch:
    """What `launch_failed` observers are told of a launch the SASS run alone stopped (no PTX state)."""
    kernel: str
    grid: tuple
    block: tuple


def launch_error(exc, kernel: str) -> WarpsimError:
    """The error a SASS run that stopped partway gives the launch (its memory is partly written)."""
    from .executor import SassDeadlock, SassFault, SassTrap
    from .executor.errors import SassIllegalInstruction
    placed = ((SassFault, MemoryFault), (SassIllegalInstruction, IllegalInstruction), (SassTrap, TrapError))
    for sass_error, error in placed:
        if isinstance(exc, sass_error):
            return error(f"{exc} (found by the SASS executor, which ran the launch in place of the PTX machine)",
                         kernel=kernel, block=exc.block, thread=exc.thread, instruction=exc.instruction,
                         source_line=exc.source_line)
    if isinstance(exc, SassDeadlock):
        return DeadlockError(str(exc), kernel=kernel)
    if "ran past" in str(exc):
        return BudgetExceeded(str(exc), kernel=kernel)
    return WarpsimError(f"the SASS run of '{kernel}' stopped partway, after writing memory: {exc}; "
                        "profile with settings(sass_verify=True) to run the PTX beside it")
