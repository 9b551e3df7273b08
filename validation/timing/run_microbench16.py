"""Sixteenth batch of H200 microbenchmarks (microbench16.cu): MUFU.EX2 beside FFMAs in one sub-partition.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench16.cubin microbench16.cu`), under ncu:

    ncu --metrics ... python3 run_microbench16.py --once       # run16_device.sh

launches each (kernel, warps per SM) of CONFIGS once: 132 CTAs of `warps` warps, ITERS rounds.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ("mb16_m8_f0", "mb16_m0_f32", "mb16_m8_f8", "mb16_m8_f16", "mb16_m8_f32", "mb16_m8_f64", "mb16_m2_f32")
CONFIGS = [(kernel, warps) for kernel in KERNELS for warps in (1, 4, 16, 32)]
ITERS = 4000


def run(reps=0):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench16.cubin"))
    out = cp.zeros(132, dtype=cp.float32)
    for kernel, warps in CONFIGS:
        mod.get_function(kernel)((132,), (32 * warps,), (out, np.int32(ITERS)))
        cp.cuda.runtime.deviceSynchronize()
        print(kernel, warps, flush=True)
    return []


if __name__ == "__main__":
    main(__doc__, run, "microbench16.json")
