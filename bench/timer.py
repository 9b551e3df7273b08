"""The timer the benchmarks share: the best of several runs, the least disturbed by other work."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 3) -> float:
    """Seconds of the fastest of `repeat` calls of fn()."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)
