"""Tenth batch of H200 microbenchmarks (microbench10.cu): a load's latency when other CTAs read the
same line at the same time, after an L2 flush and again with the chain in L2.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench10.cubin microbench10.cu`):

    python3 validation/timing/run_microbench10.py --collect OUTDIR

writes microbench10.json: per configuration (CTAs, the offset between their chains, cold or warm L2)
the CTAs' clock64 spans of the chase and the cycles per step (median and spread over CTAs).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
STEPS = 4096                    # lines of the chain: 512 KB, which the L2 holds
FLUSH_FLOATS = 64 << 20         # 256 MB: more than the L2


def run(reps=3):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench10.cubin"))
    chase, flush = mod.get_function("mb10_chase"), mod.get_function("mb10_flush")
    order = np.random.default_rng(10).permutation(STEPS).astype(np.uint32)
    words = np.zeros(STEPS * 32, np.uint32)
    words[order * 32] = np.roll(order, -1) * 32          # line order[i] points at line order[i + 1]
    chain = cp.asarray(words)
    spans = cp.zeros(4 * SMS, dtype=cp.int64)
    sink = cp.zeros(1, dtype=cp.uint32)
    big = cp.zeros(FLUSH_FLOATS, dtype=cp.float32)
    results = []
    for grid in (1, SMS, 2 * SMS, 4 * SMS):
        for offset in ((0,) if grid == 1 else (0, 1, 8, 1031)):
            for l2 in ("cold", "warm"):
                per_step = []
                for _ in range(max(1, reps)):
                    if l2 == "cold":
                        flush((2 * SMS,), (1024,), (big, np.int64(FLUSH_FLOATS)))
                    else:
                        chase((1,), (32,), (chain, spans, np.int32(STEPS), np.int32(0), sink))
                    cp.cuda.runtime.deviceSynchronize()
                    chase((grid,), (32,), (chain, spans, np.int32(STEPS), np.int32(offset), sink))
                    cp.cuda.runtime.deviceSynchronize()
                    per_step.append(spans[:grid].get() / STEPS)
                if reps == 0:
                    continue
                cycles = np.concatenate(per_step)
                results.append({"ctas": grid, "offset": offset, "l2": l2, "steps": STEPS,
                                "cycles_per_step_median": float(np.median(cycles)),
                                "cycles_per_step_p10": float(np.percentile(cycles, 10)),
                                "cycles_per_step_p90": float(np.percentile(cycles, 90))})
                print(results[-1], flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench10.json")
