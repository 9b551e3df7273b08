"""Eleventh batch of H200 microbenchmarks (microbench11.cu): how much of a table every CTA reads each
CTA finds in L1, by the table's size, the private data each CTA streams between its two passes over
the table, and whether CTAs follow one another on an SM (one CTA a SM, or 16 resident and 4 rounds).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench11.cubin microbench11.cu`), under ncu:

    ncu --clock-control none --csv --page raw --metrics METRICS python3 run_microbench11.py --once

(run11_device.sh), one launch per configuration, the configurations in the order CONFIGS lists them.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
KB = 256                                 # floats in a KB
GRIDS = {"one a SM": SMS, "many": SMS * 16 * 4}     # 128-thread CTAs: 16 resident a SM, 4 rounds
CONFIGS = [(table_kb, private_kb, grid)
           for table_kb in (4, 16, 64, 160)
           for private_kb in (0, 16, 64)
           for grid in GRIDS]


def run(reps=0):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench11.cubin"))
    f = mod.get_function("mb11_table")
    table = cp.asarray(np.random.default_rng(11).random(160 * KB, dtype=np.float32))
    most = max(GRIDS.values())
    out = cp.zeros(most, dtype=cp.float32)
    stream = cp.zeros(most * 64 * KB, dtype=cp.float32)      # 2.2 GB: each CTA its own part
    for table_kb, private_kb, grid_name in CONFIGS:
        grid = GRIDS[grid_name]
        f((grid,), (128,), (table, np.int32(table_kb * KB), stream, np.int32(private_kb * KB), out))
        cp.cuda.runtime.deviceSynchronize()
        print({"table_kb": table_kb, "private_kb": private_kb, "grid": grid}, flush=True)
    return []


if __name__ == "__main__":
    main(__doc__, run, "microbench11.json")
