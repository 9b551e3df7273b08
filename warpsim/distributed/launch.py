"""One launch split by CTA ranges over Dask workers, with the result one process would give.

`warpsim.settings(workers=N)` (or `scheduler=` a Client or an address) makes
every RawKernel/RawModule call come here. The launch is cut at CTA-batch
boundaries into shards (SHARDS_PER_WORKER per worker, so a slow part of the
grid does not leave a worker idle), and runs on one of two paths:

- by arrays (array_shards.py), when the kernel's footprint (footprint.py) shows
  no CTA can see another's writes: shards run on the compiled tier, map the
  touched arrays from one shared file and return only what they changed;
- watched (shard.py, merge.py), otherwise and for profiles: the heap image is
  scattered to every worker, every access of a shard is observed (which keeps
  blocks on the NumPy tier), and the driver checks the shards' reads and writes
  against each other before merging them and their counters, so an active
  `warpsim.profile()` sees one launch.

The cost model (cost.py) chooses between sharding and one process: a launch
it expects no gain from runs in one process (settings(sharding='always')
overrides it), as do a launch of one batch of CTAs and atomics no order-free
merge gives; `result.sharding` (a ShardReport) says which path ran and why,
and a ShardingWarning says so once per kernel and reason. A cooperative
launch (grid-wide sync) and an active session other than the profiler (the
sanitizer's tools watch every access and must see the whole grid) stay in one
process silently. After the shards ran, a dependency between them (merge.py
lists them) makes it rerun in one process, with a ShardingWarning that says
why.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, fields

from ..errors import LaunchError
from ..machine.device import LaunchResult
from ..machine.events import Launch
from ..metrics.activity import ActivityTrace
from ..metrics.counters import LaunchCounters, SiteCounts
from ..sessions import launch_observers
from ..settings import current as current_settings
from . import array_shards, cluster, cost, memory_image, merge
from .footprint import kernel_footprint, resolve
from .shard import find_writers, job_of, rebuild_error, run_shard

SHARDS_PER_WORKER = 2


class ShardingWarning(UserWarning):
    """A sharded launch could not give the one-process result and ran in one process."""


class ShardRaceWarning(UserWarning):
    """CTAs of different shards stored to the same bytes (a race; the later CTA's bytes kept)."""


@dataclass
class ShardReport:
    """What a sharded launch cost: the figures bench/scaleout.py prints."""
    shards: int = 0
    workers: int = 0
    bytes_sent: int = 0              # heap image times the workers it went to
    bytes_returned: int = 0          # bytes the shards wrote back
    shard_seconds: list = field(default_factory=list)    # each shard's time on its worker
    seconds: float = 0.0             # the whole launch, as the driver saw it
    merge_seconds: float = 0.0
    rerun_reason: str = ""
    races: list = field(default_factory=list)
    path: str = "watched"            # 'arrays', 'watched' (every access observed) or 'one process'
    reason: str = ""                 # why not by arrays, or why in one process
    estimated_gain: float = 0.0      # the cost model's one-process time / sharded time, before it ran
    launch_seconds: list = field(default_factory=list)   # each shard's simulation alone
    warm: bool = False               # every worker had run the module before (else loading it is in the times)
    cpu_seconds: list = field(default_factory=list)   # each shard's CPU time (by arrays): its wall time
                                                      # less the time it waited for a core


def launch(loaded, kernel, grid, block, params, shared_mem, cooperative) -> LaunchResult:
    """RawKernel's launcher (installed with api.raw.launch_through): sharded when settings ask
    and the cost model (cost.py) expects a gain; else in one process, with the reason in
    `result.sharding` (and a ShardingWarning, once per kernel and reason)."""
    settings = current_settings()
    if (settings.workers <= 1 and settings.scheduler is None) or cooperative:
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem, cooperative=cooperative)
    if settings.sharding not in SHARDING:
        raise ValueError(f"unknown sharding '{settings.sharding}' (choose from {', '.join(SHARDING)})")
    host = loaded.device.memory.host
    if host:
        raise LaunchError(f"kernel {kernel}: a sharded launch (settings workers={settings.workers}"
                          f"{', scheduler' if settings.scheduler else ''}) cannot address host memory: "
                          f"worker processes do not see this process's {len(host.ranges)} registered host "
                          f"range(s) ({next(iter(host.ranges.values())).describe()}); run it with "
                          f"workers=1, or pass warpsim arrays", kernel=kernel)
    grid3, block3 = _dim3(grid), _dim3(block)
    observers = _session_observers(loaded, kernel, grid3, block3, params, shared_mem)
    if observers is None:
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem)
    client = cluster.client_for_launches(settings.scheduler, settings.workers)
    workers = cluster.worker_count(client)
    if settings.workers > 1:
        workers = min(workers, settings.workers)
    ranges = shard_ranges(grid3, block3, settings.batch_threads, workers * SHARDS_PER_WORKER)
    threads = _count(grid3) * _count(block3)
    report = ShardReport(shards=len(ranges), workers=workers)
    if len(ranges) < 2:
        return _in_one_process(loaded, kernel, grid, block, params, shared_mem, report, "small",
                               f"its {_count(grid3)} CTAs make one batch (batch_threads={settings.batch_threads})")
    plan = _plan(loaded, kernel, params, observers, workers, len(ranges), cluster.on_this_host(client))
    if plan.kind == "unmergeable":
        return _in_one_process(loaded, kernel, grid, block, params, shared_mem, report, plan.kind,
                               f"its atomics cannot be merged across shards: {plan.why}")
    report.path = "arrays" if plan.by_arrays else "watched"
    report.reason = plan.why
    slowdown = cost.WATCHED_SLOWDOWN if not plan.by_arrays and not observers else 1.0
    warm_key = (id(client), id(loaded.program))
    guess = cost.estimate(loaded.program, kernel, threads, workers, len(ranges), plan.moved, slowdown,
                          cold=warm_key not in _warm)
    report.estimated_gain = guess.gain
    if settings.sharding == "auto" and guess.calibrate:
        return _in_one_process(loaded, kernel, grid, block, params, shared_mem, report, "calibrate",
                               "timing it once in one process, to set against its shards' times")
    if settings.sharding == "auto" and guess.gain < cost.MIN_GAIN:
        because = f"not by arrays, since {plan.why}; " if plan.why else ""
        return _in_one_process(loaded, kernel, grid, block, params, shared_mem, report, "no gain",
                               f"{because}estimated gain of {workers} workers x{guess.gain:.2f} "
                               f"(one process ~{guess.one_process:.2g} s"
                               f"{'' if guess.measured else ', from its instruction count'}; side by side "
                               f"{guess.contention:.2f}x slower)")
    if plan.by_arrays:
        result = run_by_arrays(client, loaded, kernel, grid3, block3, params, shared_mem, ranges, plan.by_arrays,
                               settings, report)
    else:
        result = run_sharded(client, loaded, kernel, grid3, block3, params, shared_mem, ranges, observers,
                             settings, workers, report)
    if getattr(result, "sharding", None) is report and not report.rerun_reason:
        _warm.add(warm_key)
        if report.warm:
            cost.record_shards(loaded.program, kernel, threads, report.launch_seconds, slowdown)
    return result


@dataclass
class Plan:
    kind: str                        # '' by arrays, 'watch' or 'unmergeable' (array_shards.plan_reason)
    why: str                         # why not by arrays
    by_arrays: object = None         # the AllocationFootprint, when by arrays
    moved: int = 0                   # bytes written into the image, returned and merged (for the estimate)


def _plan(loaded, kernel, params, observers, workers: int, shards: int, one_host: bool) -> Plan:
    """Which path a launch takes if it is sharded, and the bytes that path moves: by arrays, the
    touched arrays into the image, the written ones merged, and on another host sent back too (on
    one host the shards leave their stores in a shared file)."""
    memory = loaded.device.memory
    watched = Plan("watch", "a profile watches every access", None, int(memory.top) * (workers + 2 * shards))
    if observers:
        return watched
    found, why = resolve(kernel_footprint(loaded.program, kernel), loaded.program, kernel, bytes(params), memory)
    if found is None:
        watched.why = why
        return watched
    kind, why = array_shards.plan_reason(found)
    if kind:
        watched.kind, watched.why = kind, why
        return watched
    written = sum(n for _, n in found.stores | set(found.atomics))
    return Plan("", "", found, sum(n for _, n in found.places()) + (1 if one_host else 2) * written)


SHARDING = ("auto", "always")
_said: set = set()                     # (program, kernel, kind) a ShardingWarning was given for
_warm: set = set()                     # (client, program) whose workers have run the program's shards


def _in_one_process(loaded, kernel, grid, block, params, shared_mem, report, kind, reason) -> LaunchResult:
    """Run in one process, say why once per kernel and kind, and time it for the cost model."""
    report.path, report.reason, report.shards = "one process", f"{kernel}: ran in one process: {reason}", 0
    key = (id(loaded.program), kernel, kind)
    if key not in _said:
        _said.add(key)
        warnings.warn(ShardingWarning(report.reason), stacklevel=4)
    result = loaded.launch(kernel, grid, block, params, shared_mem=shared_mem)
    cost.record_one_process(loaded.program, kernel, _count(_dim3(grid)) * _count(_dim3(block)), result.seconds)
    result.sharding = report
    return result


def _count(dims) -> int:
    return dims[0] * dims[1] * dims[2]


def shard_ranges(grid, block, batch_threads: int, wanted: int) -> list:
    """CTA ranges cut at the batch boundaries one process uses (so both run the same batches)."""
    threads = block[0] * block[1] * block[2]
    per_batch = max(1, batch_threads // (((threads + 31) // 32) * 32))
    n_ctas = grid[0] * grid[1] * grid[2]
    batches = -(-n_ctas // per_batch)
    shards = max(1, min(wanted, batches))
    cuts = [min(n_ctas, round(k * batches / shards) * per_batch) for k in range(shards + 1)]
    return [(first, stop) for first, stop in zip(cuts, cuts[1:]) if stop > first]


def run_sharded(client, loaded, kernel, grid, block, params, shared_mem, ranges, observers,
                settings, workers, report) -> LaunchResult:
    started = time.perf_counter()
    memory = loaded.device.memory
    image = memory_image.capture(memory)
    job = job_of(loaded, kernel, grid, block, params, shared_mem, _shard_settings(settings),
                 profiled=bool(observers))
    [image_future] = client.scatter([image], broadcast=True, hash=False)   # a list: a dict would scatter per key
    report.bytes_sent = memory_image.image_bytes(image) * workers
    futures = [client.submit(run_shard, job, image_future, first, stop, pure=False)
               for first, stop in ranges]
    shards = client.gather(futures)
    failed = next((shard for shard in shards if shard["error"]), None)
    if failed is not None:
        raise rebuild_error(failed["error"])
    merge_started = time.perf_counter()
    original = image["buffer"]
    outcome = merge.plan(original, shards)
    if outcome.rerun_reason:
        report.rerun_reason = outcome.rerun_reason
        warnings.warn(ShardingWarning(f"{kernel}: ran in one process, since the shards' results "
                                      f"could not be merged exactly: {outcome.rerun_reason}"),
                      stacklevel=4)
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem)
    if outcome.races:
        report.races = _name_racing_threads(client, job, image_future, ranges, outcome.races)
        _warn_races(kernel, report.races)
    merge.apply(memory, outcome, shards)
    report.merge_seconds = time.perf_counter() - merge_started
    report.bytes_returned = sum(int(shard["data"].nbytes) for shard in shards)
    report.shard_seconds = [shard["seconds"] for shard in shards]
    report.launch_seconds = [shard["result"]["seconds"] for shard in shards]
    report.warm = all(shard["warm"] for shard in shards)
    result = _combined(kernel, grid, block, shared_mem, shards, started, report)
    _finish_observers(observers, shards, result)
    del image_future
    return result


def run_by_arrays(client, loaded, kernel, grid, block, params, shared_mem, ranges, footprint,
                  settings, report) -> LaunchResult:
    """The shards of a launch whose footprint needs no watching (array_shards.py)."""
    started = time.perf_counter()
    memory = loaded.device.memory
    places = footprint.places()
    image = array_shards.write_image(memory, places, cluster.on_this_host(client))
    try:
        job = job_of(loaded, kernel, grid, block, params, shared_mem, _shard_settings(settings), profiled=False)
        job["written"] = sorted(footprint.stores | set(footprint.atomics))
        job["stored"] = [offset for offset, _ in footprint.stores]
        if "path" in image:
            report.bytes_sent = sum(n for _, n in places)
            sent = image
        else:
            report.bytes_sent = sum(n for _, n in places) * report.workers
            [sent] = client.scatter([image], broadcast=True, hash=False)
        futures = [client.submit(array_shards.run_shard, job, sent, first, stop, pure=False)
                   for first, stop in ranges]
        shards = client.gather(futures)
        array_shards.read_results(image, shards)
    finally:
        array_shards.remove_image(image)
    failed = next((shard for shard in shards if shard["error"]), None)
    if failed is not None:
        raise rebuild_error(failed["error"])
    merge_started = time.perf_counter()
    kind, reason = array_shards.merge(memory, footprint, shards)
    if kind == "race":
        report.path, report.reason = "watched", reason
        return run_sharded(client, loaded, kernel, grid, block, params, shared_mem, ranges, [], settings,
                           report.workers, report)
    if reason:
        report.rerun_reason = reason
        warnings.warn(ShardingWarning(f"{kernel}: ran in one process, since the shards' results "
                                      f"could not be merged exactly: {reason}"), stacklevel=4)
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem)
    report.merge_seconds = time.perf_counter() - merge_started
    report.bytes_returned = sum(len(change[1]) for shard in shards for change in shard["changes"].values()
                                if change is not None)
    report.shard_seconds = [shard["seconds"] for shard in shards]
    report.launch_seconds = [shard["result"]["seconds"] for shard in shards]
    report.cpu_seconds = [shard["cpu_seconds"] for shard in shards]
    report.warm = all(shard["warm"] for shard in shards)
    return _combined(kernel, grid, block, shared_mem, shards, started, report)


def _shard_settings(settings) -> dict:
    return {f.name: getattr(settings, f.name) for f in fields(settings)
            if f.name not in ("workers", "scheduler", "progress")}


def _combined(kernel, grid, block, shared_mem, shards, started, report) -> LaunchResult:
    """One LaunchResult of the shards' results (their warnings given again here, once each)."""
    result = LaunchResult(kernel, grid, block, int(shared_mem))
    for shard in shards:
        part = shard["result"]
        result.warp_instructions += part["warp_instructions"]
        result.thread_instructions += part["thread_instructions"]
        result.rounds += part["rounds"]
        result.diagnostics.extend(part["diagnostics"])
    _rewarn(shards)
    result.seconds = report.seconds = time.perf_counter() - started
    result.sharding = report
    return result


# ---------------------------------------------------------------- sessions and counters

def _session_observers(loaded, kernel, grid, block, params, shared_mem):
    """The observers the active sessions give this launch, if sharding can serve them; else None.

    The profiler's counters and activity trace are merged from the shards; any
    other observer (a sanitizer tool) needs the whole grid in one process.
    """
    program = loaded.program
    dynamic = int(shared_mem)
    shared_total = (program.dynamic_shared_base + dynamic if dynamic else
                    program.kernel_static_shared.get(kernel, 0))
    observers = launch_observers(Launch(loaded, kernel, grid, block, shared_total, dynamic, bytes(params)))
    if all(type(obs) in (LaunchCounters, ActivityTrace) for obs in observers):
        return list(observers)
    return None


def _finish_observers(observers, shards, result) -> None:
    for obs in observers:
        if isinstance(obs, LaunchCounters):
            _add_counters(obs, [shard["counters"] for shard in shards])
        elif isinstance(obs, ActivityTrace):
            _add_activity(obs, [shard["activity"] for shard in shards])
    for obs in observers:
        obs.launch_finished(result)


def _add_counters(counters: LaunchCounters, parts: list) -> None:
    at = {(block.gid, position): ins for block in counters.program.blocks
          for position, ins in enumerate(block.instructions)}
    for part in parts:
        for name in ("warp_execs", "thread_execs", "full_warp_execs", "divergent"):
            mine = getattr(counters, name)
            for k, value in enumerate(part[name]):
                mine[k] += value
        counters.partial_lanes += part["partial_lanes"]
        for key, value in part["guard_true"].items():
            counters.guard_true[key] = counters.guard_true.get(key, 0) + value
        counters.batches += part["batches"]
        for place, space, kind, op, numbers in part["sites"]:
            ins = at[place]
            rec = counters.sites.get((id(ins), space, kind))
            if rec is None:
                rec = counters.sites[(id(ins), space, kind)] = SiteCounts(ins, space, kind, op)
            for name, value in numbers.items():
                setattr(rec, name, getattr(rec, name) + value)


def _add_activity(trace: ActivityTrace, parts: list) -> None:
    """Each recorded warp ran in exactly one shard: take its rows from there."""
    for part in parts:
        if part is None or not part.seen.any():
            continue
        rows = part.seen
        trace.kernel, trace.grid, trace.block = part.kernel, part.grid, part.block
        trace.warps_per_cta, trace.total_warps = part.warps_per_cta, part.total_warps
        for name in ("active", "ptx_line", "source_line", "issued", "live_lanes"):
            getattr(trace, name)[rows] = getattr(part, name)[rows]
        trace.seen |= rows
        trace._lines.update(part._lines)


# ---------------------------------------------------------------- races and warnings

def _name_racing_threads(client, job, image_future, ranges, races) -> list:
    """[(address, (block, thread, PTX line) earlier, the same later)] for the racing bytes."""
    from ..machine.memory import GLOBAL_BASE
    wanted: dict = {}
    for offset, earlier, later in races:
        wanted.setdefault(earlier, set()).add(offset)
        wanted.setdefault(later, set()).add(offset)
    futures = {s: client.submit(find_writers, job, image_future, *ranges[s], sorted(offsets), pure=False)
               for s, offsets in wanted.items()}
    writers = {s: future.result() for s, future in futures.items()}
    return [(GLOBAL_BASE + offset, writers[earlier].get(offset), writers[later].get(offset))
            for offset, earlier, later in races]


def _warn_races(kernel: str, races: list) -> None:
    for address, first, second in races:
        def side(writer):
            if writer is None:
                return "a store"
            block, thread, line = writer
            return f"a store at PTX line {line} by block {block} thread {thread}"
        warnings.warn(ShardRaceWarning(
            f"{kernel}: race on global memory at 0x{address:x}: {side(first)} and {side(second)} "
            "(CTAs are not ordered; the later CTA's bytes were kept, as in one process)"), stacklevel=5)


def _rewarn(shards) -> None:
    """The workers' warnings (SyncWarning, ...), once each, in the driver."""
    seen = set()
    for shard in shards:
        for category, message in shard["warnings"]:
            if message not in seen:
                seen.add(message)
                warnings.warn(category(message), stacklevel=5)


def _dim3(value) -> tuple:
    value = (int(value),) if not isinstance(value, (tuple, list)) else tuple(int(v) for v in value)
    return value + (1,) * (3 - len(value))
