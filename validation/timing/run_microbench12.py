"""Twelfth batch of H200 microbenchmarks (microbench12.cu): one line's atomics when each warp request
carries 1-32 active lanes, each on its own address, as RED and as ATOM, and with 8-byte words.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench12.cubin microbench12.cu`):

    python3 validation/timing/run_microbench12.py --collect OUTDIR

writes microbench12.json: per (active lanes, RED or ATOM) the median of 5 event-timed launches after
an untimed one, and the SM cycles (1980 MHz, as the second batch counts them) per warp request.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, main

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK_HZ = 1980e6
SMS, THREADS, ITERS = 132, 256, 64


def run(reps=5):
    import cupy as cp
    f = cp.RawModule(path=os.path.join(HERE, "microbench12.cubin")).get_function("mb12_line")
    line = cp.zeros(32, dtype=cp.int32)
    sink = cp.zeros(1, dtype=cp.int32)
    grid = SMS * 8
    requests = grid * THREADS // 32 * ITERS
    results = []
    for keep in (0, 1):
        for active in (32, 16, 8, 4, 2, 1):
            args = (line, np.int32(active), np.int32(ITERS), np.int32(keep), sink)
            times = event_seconds(cp, lambda: f((grid,), (THREADS,), args), reps)
            if not reps:
                continue
            seconds = float(np.median(times))
            results.append({"op": "ATOM" if keep else "RED", "active_lanes": active, "requests": requests,
                            "event_us": seconds * 1e6, "cycles_per_request": seconds * CLOCK_HZ / requests})
            print(results[-1], flush=True)
    wide = cp.RawModule(path=os.path.join(HERE, "microbench12.cubin")).get_function("mb12_line64")
    line64 = cp.zeros(32, dtype=cp.uint64)
    for active in (32, 16, 8, 4):
        args = (line64, np.int32(active), np.int32(ITERS))
        times = event_seconds(cp, lambda: wide((grid,), (THREADS,), args), reps)
        if not reps:
            continue
        seconds = float(np.median(times))
        results.append({"op": "RED.64", "active_lanes": active, "requests": requests,
                        "event_us": seconds * 1e6, "cycles_per_request": seconds * CLOCK_HZ / requests})
        print(results[-1], flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench12.json")
