"""Seventeenth batch of H200 microbenchmarks (microbench17.cu): a warpgroup's wgmma beside FFMA or MUFU
work of the other warpgroup in the same sub-partitions.

On the device (after `nvcc -arch=sm_90a -cubin -o microbench17.cubin microbench17.cu`):

    python3 run_microbench17.py --collect OUTDIR     # OUTDIR/microbench17.json (clock64 of each loop)
    ncu ... python3 run_microbench17.py --once        # each configuration once, CONFIGS' order

Per configuration, the median over the 132 CTAs of each warpgroup's loop cycles (its slowest warp).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
GROUPS, ROUNDS, MIX_ROUNDS = 2000, 32000, 16000
CONFIGS = [("ss", GROUPS, 0, 0), ("rs", GROUPS, 0, 0), ("ss", 0, ROUNDS, 0), ("ss", 0, MIX_ROUNDS, 1),
           ("ss", GROUPS, ROUNDS, 0), ("rs", GROUPS, ROUNDS, 0), ("ss", GROUPS, MIX_ROUNDS, 1),
           ("rs", GROUPS, MIX_ROUNDS, 1)]


def run(reps=3):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench17.cubin"))
    rng = np.random.default_rng(17)
    tile = cp.asarray(rng.uniform(-1, 1, 6144).astype(np.float16).view(np.uint32))
    stamps = cp.zeros(16 * SMS, dtype=cp.int64)
    sink = cp.zeros(SMS, dtype=cp.float32)
    results = []
    for a, groups, rounds, mufu in CONFIGS:
        f = mod.get_function("mb17_beside_" + a)
        for _ in range(max(1, reps)):
            f((SMS,), (256,), (tile, stamps, sink, np.int32(groups), np.int32(rounds), np.int32(mufu)))
        cp.cuda.runtime.deviceSynchronize()
        if not reps:
            print(a, groups, rounds, mufu, flush=True)
            continue
        s = stamps.get().reshape(SMS, 8, 2)
        loop = (s[:, :, 1] - s[:, :, 0]).astype(np.float64)
        rec = {"a_operand": a, "groups": groups, "rounds": rounds, "mufu": mufu,
               "wgmma_cycles": float(np.median(loop[:, :4].max(axis=1))),
               "other_cycles": float(np.median(loop[:, 4:].max(axis=1)))}
        results.append(rec)
        print(rec, flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench17.json")
