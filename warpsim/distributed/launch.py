"""One launch split by CTA ranges over Dask workers, with the result one process would give.

`warpsim.settings(workers=N)` (or `scheduler=` a Client or an address) makes
every RawKernel/RawModule call come here. The launch is cut at CTA-batch
boundaries into shards (SHARDS_PER_WORKER per worker, so a slow part of the
grid does not leave a worker idle); the heap image is scattered to every
worker once; each worker runs its shards (warpsim.distributed.shard); the
driver checks and merges their writes (warpsim.distributed.merge) and their
counters, so an active `warpsim.profile()` sees one launch.

It stays in one process, silently, when sharding cannot help or cannot be
exact: one batch of CTAs, a cooperative launch (grid-wide sync), or an active
session other than the profiler (the sanitizer's tools watch every access
and must see the whole grid). After the shards ran, a dependency between them
(merge.py lists them) makes it rerun in one process, with a ShardingWarning
that says why.
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
from . import cluster, memory_image, merge
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


def launch(loaded, kernel, grid, block, params, shared_mem, cooperative) -> LaunchResult:
    """RawKernel's launcher (installed with api.raw.launch_through): sharded when settings ask."""
    settings = current_settings()
    if (settings.workers <= 1 and settings.scheduler is None) or cooperative:
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem, cooperative=cooperative)
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
    if len(ranges) < 2:
        return loaded.launch(kernel, grid, block, params, shared_mem=shared_mem)
    return run_sharded(client, loaded, kernel, grid3, block3, params, shared_mem, ranges, observers,
                       settings, workers)


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
                settings, workers) -> LaunchResult:
    started = time.perf_counter()
    memory = loaded.device.memory
    image = memory_image.capture(memory)
    report = ShardReport(shards=len(ranges), workers=workers)
    shard_settings = {f.name: getattr(settings, f.name) for f in fields(settings)
                      if f.name not in ("workers", "scheduler", "progress")}
    job = job_of(loaded, kernel, grid, block, params, shared_mem, shard_settings,
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
    _finish_observers(observers, shards, result)
    del image_future
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
