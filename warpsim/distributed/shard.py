"""One shard of a launch, as a Dask worker runs it: CTAs [first, stop) on a copy of the heap.

The worker loads the module's PTX once per process (a blank device, then the
driver's global-variable addresses, since the image already holds their
bytes), rebuilds the heap from the image the driver scattered, runs its CTA
range with a ShardTracker (and the profiler's counters when the driver
profiles), and returns plain data: the bytes it wrote or changed, what it
read, its atomics, its counters and warnings. Nothing here talks to Dask.
"""

from __future__ import annotations

import hashlib
import threading
import time
import warnings

import numpy as np

from ..errors import WarpsimError
from ..machine.device import Device
from ..metrics.activity import ActivityTrace
from ..metrics.counters import LaunchCounters
from ..settings import settings
from . import memory_image
from .tracking import ShardTracker

_modules: dict = {}                 # (PTX digest, name, globals) -> LoadedModule, per worker process
_one_at_a_time = threading.Lock()   # a cached module's device memory is swapped per shard


def job_of(loaded, kernel, grid, block, params, shared_mem, launch_settings, profiled: bool) -> dict:
    """What every shard of one launch needs besides the heap image (built on the driver)."""
    return {"ptx": loaded.module.text, "name": loaded.name, "globals": dict(loaded.program.global_addresses),
            "kernel": kernel, "grid": tuple(grid), "block": tuple(block), "params": bytes(params),
            "shared_mem": int(shared_mem), "settings": launch_settings, "profiled": profiled}


def module_key(ptx: str, name: str, global_addresses: dict) -> tuple:
    return hashlib.sha1(ptx.encode()).hexdigest(), name, tuple(sorted(global_addresses.items()))


def is_loaded(job: dict) -> bool:
    """Whether this worker ran the job's module before (a first shard loads it and its machine code:
    its time says little about the next launch's)."""
    return module_key(job["ptx"], job["name"], job["globals"]) in _modules


def loaded_module(ptx: str, name: str, global_addresses: dict):
    """The module loaded on this worker, its globals at the driver's addresses."""
    key = module_key(ptx, name, global_addresses)
    loaded = _modules.get(key)
    if loaded is None:
        loaded = Device().load_module(ptx, name=name)
        loaded.program.global_addresses.clear()
        loaded.program.global_addresses.update(global_addresses)
        _modules[key] = loaded
    return loaded


def run_shard(job: dict, image: dict, first: int, stop: int) -> dict:
    """Run CTAs [first, stop) of the job's launch on the image; what the driver merges."""
    with _one_at_a_time:
        return _run_shard(job, image, first, stop)


def _run_shard(job, image, first, stop) -> dict:
    started = time.perf_counter()
    warm = is_loaded(job)
    loaded = loaded_module(job["ptx"], job["name"], job["globals"])
    memory = memory_image.rebuild(image)
    loaded.device.memory = memory
    top = image["top"]
    tracker = ShardTracker(loaded.program, top)
    observers = [tracker]
    counters = activity = None
    if job["profiled"]:
        counters = LaunchCounters(loaded, job["kernel"], job["grid"], job["block"], 0, job["shared_mem"])
        activity = ActivityTrace()
        observers += [counters, activity]
    out = {"first": first, "stop": stop, "error": None, "warnings": [], "warm": warm}
    with warnings.catch_warnings(record=True) as caught, settings(**job["settings"]):
        warnings.simplefilter("always")
        try:
            result = loaded.launch(job["kernel"], job["grid"], job["block"], job["params"],
                                   shared_mem=job["shared_mem"], observers=observers,
                                   cta_range=(first, stop))
        except Exception as exc:       # the driver raises it as the one-process run would
            out["error"] = portable_error(exc)
            return out
    out["warnings"] = [(w.category, str(w.message)) for w in caught]
    changed = memory.buffer[:top] != image["buffer"]
    touched = tracker.written | tracker.atomic | changed
    out.update(
        written=memory_image.runs_of(tracker.written | (changed & ~tracker.atomic)),
        read=memory_image.runs_of(tracker.read),
        atomic=memory_image.runs_of(tracker.atomic),
        touched=memory_image.runs_of(touched), heap=top,
        data=memory_image.gather(memory.buffer, touched),
        atomics=tracker.atomic_records(),
        result={"warp_instructions": result.warp_instructions,
                "thread_instructions": result.thread_instructions, "rounds": result.rounds,
                "diagnostics": result.diagnostics, "seconds": result.seconds},
        counters=counter_totals(counters) if counters is not None else None,
        activity=activity,
        seconds=time.perf_counter() - started)
    loaded.device.memory = None            # the heap copy goes when the result is sent
    return out


def find_writers(job: dict, image: dict, first: int, stop: int, offsets) -> dict:
    """Heap offset -> (block, thread, PTX line) of the first thread of CTAs [first, stop) to store there.

    Reruns the range with an observer of those bytes only: a race between
    shards is rare, and this keeps the normal run free of per-byte owners.
    """
    from ..machine.memory import GLOBAL_BASE
    from ..machine.events import LaunchObserver

    wanted = np.asarray(sorted(offsets), dtype=np.int64)
    found: dict = {}

    class _Writers(LaunchObserver):
        def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
            if space != "global" or kind == "load":
                return
            start = addrs.astype(np.int64) - GLOBAL_BASE
            for offset in wanted:
                if offset in found:
                    continue
                hit = np.flatnonzero((start <= offset) & (offset < start + size * count))
                if len(hit):
                    where = ctx.where(int(idx[hit[0]]))
                    found[int(offset)] = (where["block"], where["thread"], site.ins.line)

    with _one_at_a_time:
        loaded = loaded_module(job["ptx"], job["name"], job["globals"])
        loaded.device.memory = memory_image.rebuild(image)
        with settings(**job["settings"]), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded.launch(job["kernel"], job["grid"], job["block"], job["params"],
                          shared_mem=job["shared_mem"], observers=[_Writers()], cta_range=(first, stop))
        loaded.device.memory = None
    return found


# ---------------------------------------------------------------- transport

def portable_error(exc: BaseException) -> tuple:
    """(class, message, attributes): errors whose __init__ takes several arguments do not unpickle."""
    attributes = {k: v for k, v in vars(exc).items() if _plain(v)}
    return type(exc) if isinstance(exc, WarpsimError) else RuntimeError, str(exc), attributes, \
        type(exc).__name__


def rebuild_error(payload: tuple) -> BaseException:
    cls, message, attributes, name = payload
    if cls is RuntimeError:
        return RuntimeError(f"{name}: {message}")
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(attributes)
    return error


def _plain(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, tuple, list))


def counter_totals(counters) -> dict:
    """A LaunchCounters' numbers, with instructions named by (block, position) instead of object ids."""
    where = {id(ins): (block.gid, position) for block in counters.program.blocks
             for position, ins in enumerate(block.instructions)}
    sites = []
    for rec in counters.sites.values():
        sites.append((where[id(rec.ins)], rec.space, rec.kind, rec.op,
                      {name: getattr(rec, name) for name in SITE_FIELDS}))
    return {"warp_execs": counters.warp_execs, "thread_execs": counters.thread_execs,
            "full_warp_execs": counters.full_warp_execs, "partial_lanes": counters.partial_lanes,
            "divergent": counters.divergent, "guard_true": dict(counters.guard_true),
            "sites": sites, "batches": counters.batches}


SITE_FIELDS = ("requests", "threads", "sectors", "lines", "ideal_sectors", "wavefronts", "ideal_wavefronts")
