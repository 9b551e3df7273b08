"""Thirty-sixth batch of H200 microbenchmarks (microbench36.cu): the L2's rate for one word of each of 32
lines a request, the lines 1, 2, 3, 4, 8 or 16 lines apart, or 1 to 3 apart at random, from a base
picked at random, in 8 MB resident in L2 (ld.global.cg), 8 CTAs of 256 an SM, warm.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench36.cubin microbench36.cu`):

    python3 run_microbench36.py --collect OUTDIR     # OUTDIR/microbench36.json: CUDA-event medians
    ncu --cache-control none ... python3 run_microbench36.py --once
Here:
    python3 run_microbench36.py --model              # the H200's L2 requests a clock beside the model's
"""

from __future__ import annotations

import functools

import numpy as np

from microbench_runner import main
from run_microbench35 import BLOCK, GRID, ITERS, Batch, model_batch, run_batch


def arguments(config, src, out):
    lines = config["mb"] * (1 << 20) // 128
    return (src, out, np.uint32(lines - 1), np.int32(ITERS), np.int32(config["stride"]), np.int32(config["jitter"]))


BATCH = Batch(36, "mb36_spaced",
              [dict(mb=8, stride=s, jitter=0) for s in (1, 2, 3, 4, 8, 16)] + [dict(mb=8, stride=0, jitter=1)],
              arguments, lambda config: GRID * BLOCK * ITERS,
              lambda config: f"stride {config['stride']:2d} jitter {config['jitter']}", 8)
CONFIGS = BATCH.configs


if __name__ == "__main__":
    main(__doc__, functools.partial(run_batch, BATCH), "microbench36.json", functools.partial(model_batch, BATCH))
