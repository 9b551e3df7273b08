"""Fifth batch of H200 microbenchmarks (microbench5.cu): L2-resident reads by how much of each 128-byte
line a warp request takes, through ld.global.cg and through cp.async.cg (LDGSTS).

On the device, one `run` call:

    python3 validation/timing/run_microbench5.py --collect OUTDIR

writes microbench5.json: per (kernel, k, row bytes), the median of 5 timed launches (CUDA events, after
a warm-up that leaves the 8 MB buffer in L2), and from it the bytes, sectors and lines per SM clock
(1980 MHz) the chip's L2 delivered. k float4 per row: 8 whole lines, 4 half lines, 2 quarter lines,
1 half sectors.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, CLOCK = 132, 1.98e9
BUF_BYTES = 8 << 20


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench5.cubin"))
    buf = cp.asarray(np.random.default_rng(5).random(BUF_BYTES // 4, dtype=np.float32))
    out = cp.zeros(1, dtype=cp.float32)
    results = []
    for kernel in ("mb5_l2_read", "mb5_l2_cpasync"):
        f = mod.get_function(kernel)
        for row_bytes in (256, 2048):
            for k in (8, 4, 2, 1):
                if 16 * k > row_bytes:
                    continue
                rows = BUF_BYTES // row_bytes
                passes = 40 if row_bytes == 256 else 320
                args = (out, buf, np.int32(k), np.int32(row_bytes // 16), np.int32(rows), np.int32(passes))
                grid, block = (SMS * 8,), (256,)
                times = event_seconds(cp, lambda: f(grid, block, args), reps)
                if not times:
                    continue
                t = float(np.median(times))
                useful = rows * 16 * k * passes
                per_req_rows = 32 // k
                lines = rows * passes                 # each row's bytes lie in one line
                sectors = rows * passes * max(1, (16 * k) // 32)
                cycles = t * CLOCK
                r = {"kernel": kernel, "k": k, "row_bytes": row_bytes, "rows": rows, "passes": passes,
                     "seconds": t, "times": times, "useful_gbps": useful / t / 1e9,
                     "lines_per_clk": lines / cycles, "sectors_per_clk": sectors / cycles,
                     "requests_per_clk": rows / per_req_rows * passes / cycles}
                results.append(r)
                print(f"{kernel:16s} k={k} row={row_bytes:5d}: {t * 1e6:8.1f} us  {r['useful_gbps']:7.0f} GB/s  "
                      f"lines/clk {r['lines_per_clk']:6.2f}  sectors/clk {r['sectors_per_clk']:6.2f}", flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench5.json")
