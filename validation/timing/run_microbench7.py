"""Seventh batch of H200 microbenchmarks (microbench7.cu): HBM traffic by the order CTAs visit rows.

On the device, one `run` call:

    python3 validation/timing/run_microbench7.py --collect OUTDIR
    ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \\
        python3 validation/timing/run_microbench7.py --once      # each configuration once, for ncu

writes microbench7.json: per (kernel, order, N), the median of 7 timed launches (CUDA events, the
L2 flushed before each by writing a 256 MB buffer) and the HBM bandwidth that is.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, main

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("mb7_write", 0), ("mb7_write", 1), ("mb7_read", 0), ("mb7_read", 1), ("mb7_copy_across", None),
         ("mb7_copy_down", None)]


def run(reps=7):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench7.cubin"))
    flush = cp.zeros(64 << 20, dtype=cp.float32)
    results = []
    for n in (2048, 4096, 8192):
        src = cp.asarray(np.random.default_rng(7).random(n * n, dtype=np.float32))
        dst = cp.zeros(n * n, dtype=cp.float32)
        for kernel, mode in CASES:
            f = mod.get_function(kernel)
            args = {"mb7_write": (dst, np.int32(n), np.int32(mode or 0)),
                    "mb7_read": (dst, src, np.int32(n), np.int32(mode or 0))}.get(kernel, (dst, src, np.int32(n)))
            grid, block = (n // 32, n // 32), (32, 8)
            times = event_seconds(cp, lambda: f(grid, block, args), reps, before=lambda: flush.fill(1.0))
            if not times:
                continue
            t = float(np.median(times))
            nbytes = n * n * 4 * (2 if kernel.startswith("mb7_copy") else 1)
            order = {0: "across", 1: "down"}.get(mode, kernel.split("_")[-1])
            results.append({"kernel": kernel, "order": order, "n": n, "seconds": t, "times": times,
                            "gbps": nbytes / t / 1e9})
            print(f"{kernel:16s} {order:7s} n={n:5d}: {t * 1e6:8.1f} us  {nbytes / t / 1e9:7.0f} GB/s", flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench7.json")
