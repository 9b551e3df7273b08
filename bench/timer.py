"""The timer the benchmarks share: the best of several runs, the least disturbed by other work."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 3, clock=time.perf_counter) -> float:
    """Seconds of the fastest of `repeat` calls of fn(), by `clock` (the wall clock; pass
    time.process_time for this process's CPU time, which other jobs inflate less)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)
