"""Whether sharding a launch pays: its time in one process against its time on W workers.

    T(W) = k * T1 * f / W + S * c_shard + bytes / r

T1 is the launch's time in one process: the kernel's last measured time per
thread times this launch's threads, or, for a kernel not yet timed in this
process, its PTX instruction count per thread at the compiled tier's rate (a
loop counts once, so a first estimate is low, and a long-running kernel is
sharded a launch later rather than a small one sharded at a loss). k: two
simulations side by side on one machine's cores each run slower (they share
memory bandwidth and caches; 1 for one worker): CONTENTION until the kernel
has been timed both ways, then the ratio of its shards' time per thread to
its one-process time per thread. A kernel whose shards were timed but never
one process is timed there once (`calibrate`), so a kernel whose shards
contend more than CONTENTION says stops being sharded at a loss. f: 1 for shards by arrays (they run on the
compiled tier, as one process does); WATCHED_SLOWDOWN for shards that watch
every access (an observer of memory keeps blocks on the NumPy tier), unless
one process is watched anyway (a profile). S shards cost c_shard each (Dask's
round trip, mapping the image), and the bytes the driver writes into the
image, the shards send back and the driver merges move at r. Workers that
have not run the module yet add WARM_UP_SECONDS (they load it, and its blocks'
machine code from Numba's disk cache).

The constants were measured on the 2-core machine docs/scaleout.md names;
bench/scaleout_histogram.py prints the estimate beside the measured gain.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTENTION = 1.25          # k: a simulation's slowdown with another beside it (2 cores, shared caches)
WATCHED_SLOWDOWN = 3.0     # f of shards that watch every access (NumPy tier) against the compiled tier
SHARD_SECONDS = 0.03       # c_shard
BYTES_PER_SECOND = 1.0e9   # r: written into the image, returned, merged
STATIC_RATE = 3.0e8        # thread-instructions/s of the compiled tier, for a kernel never timed
WARM_UP_SECONDS = 1.0      # a worker's first shard of a module: loading it and its machine code
MIN_GAIN = 1.1             # shard when the estimate is at least this (the rest is noise)


@dataclass
class Estimate:
    one_process: float       # seconds, T1
    sharded: float           # seconds, T(W)
    measured: bool           # T1 from this kernel's earlier launches (else from its instruction count)
    contention: float        # k used: measured for this kernel, or CONTENTION
    calibrate: bool = False  # its shards were timed but never one process: time it there once

    @property
    def gain(self) -> float:
        return self.one_process / self.sharded if self.sharded > 0 else 0.0


def estimate(program, kernel: str, threads: int, workers: int, shards: int, moved_bytes: int,
             slowdown: float = 1.0, cold: bool = False) -> Estimate:
    """T1 and T(W) for this launch, from what earlier launches of the kernel measured."""
    times = _times(program).get(kernel, {})
    one_per_thread, shard_per_thread = times.get("one"), times.get("shards")
    side_by_side = CONTENTION if workers > 1 else 1.0
    if one_per_thread is not None and shard_per_thread is not None and workers > 1:
        side_by_side = max(1.0, shard_per_thread / one_per_thread)
    if one_per_thread is None and shard_per_thread is not None:
        one_per_thread = shard_per_thread / side_by_side
    measured = one_per_thread is not None
    if not measured:
        one_per_thread = len(program.module.functions[kernel].body) / STATIC_RATE
    one = one_per_thread * threads
    sharded = side_by_side * one * slowdown / max(1, workers) + shards * SHARD_SECONDS \
        + moved_bytes / BYTES_PER_SECOND + (WARM_UP_SECONDS if cold else 0.0)
    calibrate = "shards" in times and "one" not in times
    return Estimate(one, sharded, measured, side_by_side, calibrate)


def record_one_process(program, kernel: str, threads: int, seconds: float) -> None:
    """A launch of `kernel` ran in one process in `seconds`: its time per thread from now on."""
    if threads > 0 and seconds > 0:
        _times(program).setdefault(kernel, {})["one"] = seconds / threads


def record_shards(program, kernel: str, threads: int, shard_seconds: list, slowdown: float) -> None:
    """The shards' own simulation times (side by side, so k is in them), per thread; a shard that
    watched every access counted as one that did not."""
    if threads > 0 and sum(shard_seconds) > 0:
        _times(program).setdefault(kernel, {})["shards"] = sum(shard_seconds) / (slowdown * threads)


def _times(program) -> dict:
    """kernel -> {'one': seconds per thread in one process, 'shards': the same summed over shards}."""
    return program.__dict__.setdefault("_shard_seconds_per_thread", {})
