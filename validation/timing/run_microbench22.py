"""Twenty-second batch of H200 microbenchmarks (microbench22.cu): warps walking HBM one dependent line
an iteration, 4 to 64 warps an SM, all starting at once or spread over a thousand cycles, and with
a store of each line read to a region L2 keeps or to HBM; clock64 cycles an iteration.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench22.cubin microbench22.cu`):

    python3 run_microbench22.py --collect OUTDIR     # OUTDIR/microbench22.json
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, median_launch

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, ITERS = 132, 200
BUFFER_WORDS = 1 << 29                # 2 GB of int zeros: each launch walks a part no recent one did
CONFIGS = ([dict(warps_per_sm=w, spread=s, store="none") for w in (4, 8, 16, 32, 48, 64) for s in (0, 37)]
           + [dict(warps_per_sm=w, spread=0, store=where) for where in ("l2", "hbm") for w in (16, 32, 48, 64)])
L2_WINDOW_WORDS = 1 << 22             # 16 MB: the stored lines stay in L2


def run(reps=3):
    import cupy as cp
    f = cp.RawModule(path=os.path.join(HERE, "microbench22.cubin")).get_function("mb22_step")
    data = cp.zeros(BUFFER_WORDS, dtype=cp.int32)
    out = cp.zeros(BUFFER_WORDS, dtype=cp.int32)
    region = ITERS * 32 + 32
    results = []
    offset = 0
    for config in CONFIGS:
        w = config["warps_per_sm"]
        ctas = 1 if w <= 32 else 2
        warps = SMS * w
        cycles = cp.zeros(warps, dtype=cp.int64)

        def launch():
            nonlocal offset
            if offset + warps * region >= BUFFER_WORDS:
                offset = 0
            where = config["store"]
            f((SMS * ctas,), (32 * w // ctas,), (data[offset:], np.int64(region), np.int32(ITERS),
                                                 np.int32(config["spread"]), np.int32(SMS), cycles,
                                                 out if where != "none" else np.uint64(0),
                                                 np.int64(L2_WINDOW_WORDS - 1 if where == "l2" else -1)))
            offset += warps * region

        def read(seconds):
            c = cp.asnumpy(cycles) / ITERS
            return dict(cycles_per_iter=float(np.median(c)), cycles_per_iter_min=float(c.min()),
                        cycles_per_iter_max=float(c.max()), event_us=seconds * 1e6,
                        line_gbps=warps * ITERS * 128 / seconds / 1e9)
        best = median_launch(cp, launch, reps, read, "cycles_per_iter")
        results.append(dict(config, iters=ITERS, **best))
        print(f"{w:2d} warps an SM, spread {config['spread']:2d}, stores {config['store']:4s}: {best['cycles_per_iter']:7.1f} cycles an iteration "
              f"(warps {best['cycles_per_iter_min']:.1f}-{best['cycles_per_iter_max']:.1f}), {best['event_us']:8.1f} us, "
              f"{best['line_gbps']:7.1f} GB/s of lines", flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench22.json")
