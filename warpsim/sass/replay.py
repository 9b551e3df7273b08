"""Running a launch's SASS beside its PTX run, on a copy of device memory, and checking both agree.

This is the verification mode (settings sass_verify=True; the test suite's
default): without it a profiled launch the executor covers runs its SASS
alone, in place of the PTX run (alone.py; `ptx_run_kept` below decides).

A ReplayRequest on the REPLAYS session stack (the profiler pushes one when it
wants SASS-level counts) makes every launch get a SassReplay observer: when
the launch starts it copies the device heap (and the registered host ranges'
bytes, at the same addresses); when the launch has finished it
runs the kernel's SASS on that copy with the same grid, block, parameters and
shared size, with the request's observers (counters) watching, and compares
the two heaps and host ranges. Equal bytes everywhere means the SASS run wrote what the PTX
run wrote and nothing else. An opcode the executor lacks, a fault, a deadlock
or a difference gives an outcome of level 'ptx' with a note saying why; the
PTX run's results stand either way. The executor issues as the `its` model
does (lowest address first), so a launch under settings(scheduling='stack' or
'lowest-pc') is not replayed: its outcome is 'ptx', saying why. With no
request on, launches pay one context-variable read.
"""

from __future__ import annotations

import copy
import time

import numpy as np

from ..errors import WarpsimError
from ..machine.events import LaunchObserver
from ..machine.memory import GLOBAL_BASE
from ..sessions import SessionStack, observer_source
from .run_outcome import ReplayOutcome, scheduling_model

REPLAYS = SessionStack("warpsim_sass_replays")


class ReplayRequest:
    """A session that wants SASS runs: `observers(launch)` gives each run its watchers."""

    def __init__(self, observers=None, alone=None, wants=None, all_threads: bool = False):
        self.make_observers = observers or (lambda launch: [])
        self.wants = wants or (lambda launch: True)    # wants(launch): whether this session wants its SASS run
        # alone() -> '' when the SASS run may take the launch alone with verification off (alone.py),
        # else why the session needs the PTX run too
        self.alone = alone or (lambda: "a session wants the SASS run checked against the PTX run")
        self._replays: dict = {}
        self.all_threads = all_threads
        self._token = None

    def __enter__(self):
        self._token = REPLAYS.push(self, self.all_threads)
        return self

    def __exit__(self, *exc):
        REPLAYS.pop(self._token)
        self._token = None

    def attach(self, launch, replay) -> None:
        self._replays[id(launch)] = (launch, replay)

    def replay_for(self, launch):
        """The SassReplay of `launch` (forgotten once asked for), or None."""
        found = self._replays.pop(id(launch), None)
        return None if found is None else found[1]


def snapshot(memory, right_away: bool = False):
    """A GlobalMemory with the same allocations and a copy of the bytes below the heap's top (the
    backing buffer past it holds no allocation, and may be many times larger after frees), up to the
    end of the top's mapped page where a program's memory is mapped in pages: a GPU reads past the
    last allocation there without a fault (GlobalMemory.tolerated), and so must the SASS run.
    right_away: the copy is used and dropped before the memory changes again, so a copy-on-write
    copy will do (memory.private_copies; a replay's copy outlives the PTX run and is a real copy)."""
    copied = copy.copy(memory)
    used = max(int(memory.top), 1)
    page = memory.mapped_page_bytes
    if page:
        used = min(len(memory.buffer), -(-used // page) * page)
    if right_away:
        copied.buffer, copied.initialized = memory.private_copies(used)
    else:
        copied.buffer = memory.buffer[:used].copy()
        copied.initialized = memory.initialized[:used].copy()
    copied.live = dict(memory.live)
    copied._free = list(getattr(memory, "_free", []))
    copied._index_dirty = True
    # registered host ranges: the same addresses, copied bytes (into the arrays of the last copy
    # used right away, which is no longer used)
    copied.host = memory.host.copy(memory.__dict__.setdefault("_right_away_scratch", {}) if right_away else None)
    return copied


class SassReplay(LaunchObserver):
    """Observer of one launch that runs its SASS when it has finished (see the module docstring)."""

    kept_because = ""           # why the PTX run stayed, where the SASS could have run alone (alone.py)

    def __init__(self, launch, observers=()):
        self.launch = launch
        self.observers = list(observers)
        self.memory = launch.loaded_module.device.memory
        self.failed = None
        self.cluster_dims = None               # the launch's cluster shape, read when its first batch starts
        self._outcome = None
        self._copy_seconds = 0.0
        self.copy = None
        model = scheduling_model(launch.loaded_module)
        if model != "its":      # lowest-address issue is the its model's order: other orders are not the SASS run's
            self._outcome = ReplayOutcome("ptx", f"the SASS run models only the 'its' scheduling, and this "
                                                 f"launch ran under '{model}'")
            return
        start = time.perf_counter()
        self.copy = snapshot(self.memory)
        self._copy_seconds = time.perf_counter() - start

    def batch_started(self, ctx) -> None:
        if self.cluster_dims is None:         # the shape the launch gave, else the kernel's own
            from ..machine.cluster import cluster_dims
            self.cluster_dims = ctx.launch_cluster or cluster_dims(ctx.program, ctx.kernel)

    def launch_failed(self, ctx, error) -> None:
        self.failed = error

    def launch_finished(self, result) -> None:
        self.ptx_rounds = int(getattr(result, "rounds", 0) or 0)
        self.outcome()

    def outcome(self) -> ReplayOutcome:
        if self._outcome is None:
            start = time.perf_counter()
            self._outcome = self._run()
            self._outcome.seconds = time.perf_counter() - start + self._copy_seconds
            self.copy = None
        return self._outcome

    def round_budget(self, max_rounds: int) -> int:
        """Rounds the SASS run may take: a few times the PTX run's (the same work, in blocks of another
        size), so a SASS run that cannot finish (a spin-wait its issue order starves) costs seconds,
        not the launch's whole round budget; past it the profile keeps PTX counts and says so."""
        ptx_rounds = getattr(self, "ptx_rounds", 0)
        return min(max_rounds, SASS_ROUNDS_PER_PTX_ROUND * ptx_rounds + SASS_EXTRA_ROUNDS) if ptx_rounds else max_rounds

    def _run(self) -> ReplayOutcome:
        from . import sass_of
        from .executor import SassExecutionError, load_program, run_launch
        from .executor.launch import cubin_params
        from ..settings import current
        launch = self.launch
        if self.failed is not None:
            return ReplayOutcome("ptx", "the PTX run failed, so the SASS was not run")
        loaded = launch.loaded_module
        try:
            module = sass_of(loaded)
            program, image = load_program(module, launch.kernel)
            constants = {}
            addresses = getattr(getattr(loaded, "program", None), "global_addresses", {})
            for name, (_, _, length) in image.constant_symbols.items():
                if name in addresses:
                    constants[name] = self.copy.read_bytes(addresses[name], length).tobytes()
            settings = current()
            stats = run_launch(program, image, memory=self.copy, grid=launch.grid, block=launch.block,
                               params=cubin_params(image, launch.params),
                               shared_bytes=image.static_shared + launch.dynamic_shared,
                               constants=constants,
                               addresses=addresses,
                               observers=self.observers, batch_threads=settings.batch_threads,
                               max_rounds=self.round_budget(settings.max_rounds),
                               cluster_dims=self.cluster_dims or (1, 1, 1), printf=False)
        except SassExecutionError as exc:
            budget = "" if "ran past" not in str(exc) else (
                f" ({SASS_ROUNDS_PER_PTX_ROUND}x the PTX run's {self.ptx_rounds:,} rounds + {SASS_EXTRA_ROUNDS:,})")
            return ReplayOutcome("ptx", f"SASS not run: {exc}{budget}",
                                 unsupported=list(getattr(exc, "unsupported", ())))
        except WarpsimError as exc:
            return ReplayOutcome("ptx", f"no SASS for this kernel: {exc}")
        difference = compare_heaps(self.memory, self.copy)
        if difference:
            return ReplayOutcome("ptx", f"the SASS run's memory differs from the PTX run's: {difference}",
                                 rounds=stats["rounds"])
        note = f"SASS run (ptxas {module.ptxas_version}) wrote the same memory as the PTX run"
        return ReplayOutcome("sass", note, self.observers, rounds=stats["rounds"])


SASS_ROUNDS_PER_PTX_ROUND = 4
SASS_EXTRA_ROUNDS = 10_000


def compare_heaps(ptx_memory, sass_memory) -> str:
    """'' when both heaps hold the same bytes in every allocation live before and after the launch
    (the host may free arrays while a launch runs: their bytes are poisoned, not written by it);
    otherwise where they first differ. An allocation freed while this compares (a finalizer
    run by the garbage collector, another thread) is poisoned after it leaves `live`, so a
    difference counts only where its allocation is still live once the difference is seen."""
    a, b = ptx_memory.buffer, sass_memory.buffer

    def still_live(start, size):
        return ptx_memory.live.get(start) == size

    ranges = sorted((start, size) for start, size in ptx_memory.live.copy().items()
                    if sass_memory.live.get(start) == size)
    for start, size in ranges:
        end = min(start + size, len(a), len(b))
        different = np.flatnonzero(a[start:end] != b[start:end])
        if len(different) and still_live(start, size):
            count = sum(int(np.count_nonzero(a[s:min(s + z, len(a), len(b))] != b[s:min(s + z, len(a), len(b))]))
                        for s, z in ranges if still_live(s, z))
            first = start + int(different[0])
            return (f"{count} bytes differ, the first at 0x{GLOBAL_BASE + first:x} (byte {first - start} of the "
                    f"{size}-byte allocation at 0x{GLOBAL_BASE + start:x}): PTX wrote 0x{int(a[first]):02x}, "
                    f"SASS 0x{int(b[first]):02x}")
    return compare_host_ranges(ptx_memory, sass_memory)


def compare_host_ranges(ptx_memory, sass_memory) -> str:
    """'' when every registered host range holds the same bytes after both runs; else where they
    first differ (the PTX run wrote the host memory itself, the SASS run the snapshot's copy)."""
    for base, ptx_range in sorted(ptx_memory.host.ranges.items()):
        sass_range = sass_memory.host.ranges.get(base)
        if sass_range is None or sass_range.nbytes != ptx_range.nbytes:
            continue
        different = np.flatnonzero(ptx_range.view != sass_range.view)
        if len(different):
            first = int(different[0])
            return (f"{len(different)} bytes differ, the first at 0x{base + first:x} (byte {first} of the "
                    f"{ptx_range.describe()}): PTX wrote 0x{int(ptx_range.view[first]):02x}, "
                    f"SASS 0x{int(sass_range.view[first]):02x}")
    return ""


@observer_source
def sass_replay_observers(launch) -> tuple:
    """One SassReplay per launch while some ReplayRequest is on; nothing otherwise."""
    requests = [request for request in REPLAYS.active() if request.wants(launch)]
    if not requests:
        return ()
    observers = [obs for request in requests for obs in request.make_observers(launch)]
    kept = ptx_run_kept(launch, requests)
    if not kept:
        from .alone import SassAloneRun
        replay = SassAloneRun(launch, observers, beside=SassReplay)
    else:
        replay = SassReplay(launch, observers)
        replay.kept_because = kept
    for request in requests:
        request.attach(launch, replay)
    return (replay,)


def ptx_run_kept(launch, requests) -> str:
    """'' when the launch's SASS runs alone in place of its PTX run (alone.py); else why the PTX
    run stays beside it ('verification is on' under settings sass_verify=True)."""
    from ..settings import current
    if current().sass_verify:
        return "verification is on"
    needs = next((why for why in (request.alone() for request in requests) if why), "")
    if needs:
        return needs
    from .alone import why_not_alone
    return why_not_alone(launch.loaded_module)
