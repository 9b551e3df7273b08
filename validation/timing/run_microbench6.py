"""Sixth batch of H200 microbenchmarks (microbench6.cu): CTA slot turnover.

On the device, one `run` call:

    python3 validation/timing/run_microbench6.py --collect OUTDIR

    ncu --metrics ... python3 validation/timing/run_microbench6.py --once   # each configuration once

writes microbench6.json: per (kernel, threads per CTA, CTAs per SM allowed by dynamic shared
memory), the median of 7 timed launches (CUDA events) of a grid of 132 x 400 CTAs, and from it
the time one slot holds one CTA (seconds * slots / CTAs per SM) in SM clocks (1980 MHz).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, CLOCK = 132, 1.98e9
PER_SM = 400
SHARED_PER_SM = 228 * 1024
# dynamic shared memory per CTA that leaves room for `slots` CTAs (1 KB of each CTA's share is reserved)
SLOTS = (1, 2, 4, 8, 16, 32)


def shared_for(slots):
    return min(200 * 1024, SHARED_PER_SM // slots - 1024 - 64)


def run(reps=7):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench6.cubin"))
    results = []
    grid = SMS * PER_SM
    for threads in (64, 256, 1024):
        n = grid * threads
        src = cp.asarray(np.random.default_rng(6).random(n, dtype=np.float32))
        dst = cp.zeros(n, dtype=cp.float32)
        for kernel in ("mb6_empty", "mb6_store", "mb6_copy", "mb6_read"):
            f = mod.get_function(kernel)
            f.max_dynamic_shared_size_bytes = 200 * 1024
            args = (dst,) if kernel in ("mb6_empty", "mb6_store") else (dst, src)
            for slots in SLOTS:
                if slots * threads > 2048:
                    continue
                smem = shared_for(slots)
                times = event_seconds(cp, lambda: f((grid,), (threads,), args, shared_mem=smem), reps)
                if not times:
                    continue
                t = float(np.median(times))
                per_slot = t * CLOCK * slots / PER_SM
                r = {"kernel": kernel, "threads": threads, "slots": slots, "shared_bytes": smem, "ctas": grid,
                     "seconds": t, "times": times, "slot_cycles_per_cta": per_slot}
                results.append(r)
                print(f"{kernel:10s} t={threads:5d} slots={slots:3d}: {t * 1e6:8.1f} us  "
                      f"{per_slot:8.1f} cycles per CTA per slot", flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench6.json")
