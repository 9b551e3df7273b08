"""Fifty-third batch of microbenchmarks (microbench53.cu): how fast warps stream reads from HBM by the
bytes each keeps in flight: a grid-stride read of 64 MB, K loads of a float or a float4 in flight a
thread, at 8 to 64 warps an SM; HBM sees the reads alone.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench53.cubin microbench53.cu`):

    python3 run_microbench53.py --collect OUTDIR     # OUTDIR/microbench53.json: CUDA-event medians
    ncu ... python3 run_microbench53.py --once
Here:
    python3 run_microbench53.py --predict FILE      # the model's figures, made before measuring
    python3 run_microbench53.py --model             # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
BYTES = 64 << 20
FORMS = ((4, 1), (4, 2), (4, 4), (16, 1), (16, 2))        # (bytes a load, loads in flight a thread)
CONFIGS = [dict(width=w, loads=k, warps=n) for w, k in FORMS for n in (8, 16, 32, 64)]


def label(config) -> str:
    return f"{config['loads']} x {config['width']} B in flight a lane, {config['warps']} warps an SM"


def shape(config) -> tuple:
    threads = 32 * config["warps"]
    block = min(1024, threads)
    return (SMS * threads // block,), (block,), 0


def buffers_and_arguments(xp, config) -> tuple:
    (grid,), (block,), _ = shape(config)
    n = BYTES // config["width"]
    src = xp.asarray(np.random.default_rng(53).random(BYTES // 4, dtype=np.float32))
    return xp.zeros(grid * block, dtype=np.float32), src, np.int64(n)


def kernel_name(config) -> str:
    return f"mb53_f{config['width'] // 4}_k{config['loads']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench53", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
