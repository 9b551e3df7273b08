"""Seventh batch of H200 microbenchmarks (microbench7.cu): HBM traffic by the order CTAs visit rows.

On the device, one `run` call:

    python3 validation/timing/run_microbench7.py --collect OUTDIR
    ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \\
        python3 validation/timing/run_microbench7.py --once      # each configuration once, for ncu

writes microbench7.json: per (kernel, order, N), the median of 7 timed launches (CUDA events, the
L2 flushed before each by writing a 256 MB buffer) and the HBM bandwidth that is.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("mb7_write", 0), ("mb7_write", 1), ("mb7_read", 0), ("mb7_read", 1), ("mb7_copy_across", None),
         ("mb7_copy_down", None)]


def run(outdir, reps=7):
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
            f(grid, block, args)
            cp.cuda.runtime.deviceSynchronize()
            times = []
            for _ in range(reps):
                flush.fill(1.0)
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                f(grid, block, args)
                b.record()
                b.synchronize()
                times.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
            if not times:
                continue
            t = float(np.median(times))
            nbytes = n * n * 4 * (2 if kernel.startswith("mb7_copy") else 1)
            order = {0: "across", 1: "down"}.get(mode, kernel.split("_")[-1])
            results.append({"kernel": kernel, "order": order, "n": n, "seconds": t, "times": times,
                            "gbps": nbytes / t / 1e9})
            print(f"{kernel:16s} {order:7s} n={n:5d}: {t * 1e6:8.1f} us  {nbytes / t / 1e9:7.0f} GB/s", flush=True)
    if outdir:
        with open(os.path.join(outdir, "microbench7.json"), "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--collect":
        os.makedirs(sys.argv[2], exist_ok=True)
        run(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "--once":
        run(None, reps=0)
    else:
        print(__doc__)
