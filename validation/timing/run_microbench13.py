"""Thirteenth batch of H200 microbenchmarks (microbench13.cu): reads of the same sectors by many SMs at
once (L1 bypassed, ld.global.cg and cp.async.cg), against the same bytes read at different times or
from regions of their own.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench13.cubin microbench13.cu`):

    python3 run_microbench13.py --collect OUTDIR     # event times: OUTDIR/microbench13.json
    ncu ... python3 run_microbench13.py --once        # one launch per configuration, CONFIGS' order

The grid is 8 CTAs of 256 threads a SM; each CTA reads 1 MB (256 chunks of 4 KB); `sharers` CTAs
read one region of 16 chunks (64 KB), or of 2 chunks when each CTA has its own (sharers 1), so that the
regions together (8.6 MB at most) stay in L2.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, main

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK_HZ = 1980e6
SMS, THREADS, CHUNKS = 132, 256, 256
GRID = SMS * 8
CONFIGS = [(kernel, sharers, rotate)
           for kernel in ("mb13_ldcg", "mb13_cpasync")
           for sharers in (GRID, 132, 33, 8, 1)
           for rotate in (0, 1)]


def region_chunks(sharers: int) -> int:
    return 16 if sharers > 1 else 2


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench13.cubin"))
    words = max((GRID // sharers) * region_chunks(sharers) * 256 * 4 for _, sharers, _ in CONFIGS)
    base = cp.asarray(np.random.default_rng(13).integers(0, 2**31, words, dtype=np.int32))
    sink = cp.zeros(GRID * 4, dtype=cp.int32)
    results = []
    for kernel, sharers, rotate in CONFIGS:
        f = mod.get_function(kernel)
        rc = region_chunks(sharers)
        assert (GRID // sharers) * rc * 256 * 4 <= words
        args = (base, np.int32(rc), np.int32(sharers), np.int32(rotate), np.int32(CHUNKS), sink)
        launch = lambda: f((GRID,), (THREADS,), args)
        if not reps:
            launch()
            cp.cuda.runtime.deviceSynchronize()
            print({"kernel": kernel, "sharers": sharers, "rotate": rotate}, flush=True)
            continue
        seconds = float(np.median(event_seconds(cp, launch, reps)))
        asked = GRID * CHUNKS * 4096
        results.append({"kernel": kernel, "sharers": sharers, "rotate": rotate, "region_chunks": rc,
                        "bytes_asked": asked, "event_us": seconds * 1e6,
                        "bytes_per_clk": asked / (seconds * CLOCK_HZ)})
        print(results[-1], flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench13.json")
