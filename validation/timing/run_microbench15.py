"""Fifteenth batch of H200 microbenchmarks (microbench15.cu): the pipe and rate of sm_90's conversions.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench15.cubin microbench15.cu`), under ncu:

    ncu --metrics sm__inst_executed_pipe_*... python3 run_microbench15.py --once

(run15_device.sh): each kernel once, 132 CTAs of 1,024 threads, in KERNELS' order.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ("mb15_f2fp_f16", "mb15_f2fp_bf16", "mb15_i2f_f2i", "mb15_f2f64", "mb15_frnd", "mb15_ex2", "mb15_ffma")
ITERS = 2000


def run(reps=0):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench15.cubin"))
    out = cp.zeros(132, dtype=cp.float32)
    for name in KERNELS:
        mod.get_function(name)((132,), (1024,), (out, np.int32(ITERS)))
        cp.cuda.runtime.deviceSynchronize()
        print(name, flush=True)
    return []


if __name__ == "__main__":
    main(__doc__, run, "microbench15.json")
