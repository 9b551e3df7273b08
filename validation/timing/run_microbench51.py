"""Fifty-first batch of microbenchmarks (microbench51.cu): where a shared-memory tiled matmul's time
goes. C = A B with M = 1024, N = 2048, K = 512 (set 4's matmul16 and matmul32), 16 x 16 and 32 x 32
tiles, in four forms of the k-loop (the last not at 32 x 32, whose 72 registers a thread no block of
1,024 threads fits): as written (global loads into the tiles, a barrier, the tile's
FFMAs on shared reads, a barrier), without the global loads (the tiles' stores fed from registers),
without the barriers (racing: only the time counts), and the shared reads and FFMAs alone.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench51.cubin microbench51.cu`):

    python3 run_microbench51.py --collect OUTDIR     # OUTDIR/microbench51.json: CUDA-event medians
    ncu ... python3 run_microbench51.py --once
Here:
    MICROBENCH_CARD=h100 python3 run_microbench51.py --model     # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

M, N, K = 1024, 2048, 512
FORMS = ("full", "no_load", "no_sync", "compute")
CONFIGS = [dict(tile=t, form=f) for t in (16, 32) for f in FORMS
           if (t, f) != (32, "compute")]      # (72 registers a thread: no block of 1,024 fits an SM)


def label(config) -> str:
    return f"{config['tile']} x {config['tile']} tiles, {config['form']}"


def shape(config) -> tuple:
    t = config["tile"]
    return (N // t, M // t), (t, t), 0


def buffers_and_arguments(xp, config) -> tuple:
    rng = np.random.default_rng(51)
    a = xp.asarray(rng.random((M, K), dtype=np.float32))
    b = xp.asarray(rng.random((K, N), dtype=np.float32))
    c = xp.zeros((M, N), dtype=np.float32)
    return c, a, b, np.int32(N), np.int32(K)


def kernel_name(config) -> str:
    return f"mb51_t{config['tile']}_{config['form']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench51", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
