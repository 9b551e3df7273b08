"""Forty-ninth batch of microbenchmarks (microbench49.cu): REDs (u32, f32), CASes whose old values are
used, and plain loads, each lane's word picked by a mixing hash over a table of 4 MB, 32 MB, 256 MB or
1 GB: a warp's lanes on 32 lines at random, as a hash table's or a scatter's. 1,056 CTAs of 256 threads
(8 an SM), 16 accesses a thread. How atomics on lines at random use HBM once the table outgrows the
L2 (the forty-seventh batch's spread REDs walked lines at a constant stride), beside loads of the
same words.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench49.cubin microbench49.cu`):

    python3 run_microbench49.py --collect OUTDIR     # OUTDIR/microbench49.json: CUDA-event medians
    ncu ... python3 run_microbench49.py --once
Here:
    MICROBENCH_CARD=h100 python3 run_microbench49.py --model     # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
REPS = 16
KINDS = ("red_u32", "red_f32", "cas", "gather")
WORDS = (1 << 20, 1 << 23, 1 << 26, 1 << 28)
CONFIGS = [dict(kind=k, words=w) for k in KINDS for w in WORDS]


def label(config) -> str:
    return f"{config['kind']:7s} over {config['words'] * 4 >> 20:4d} MB"


def shape(config) -> tuple:
    return (8 * SMS,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    dtype = np.float32 if config["kind"] == "red_f32" else np.uint32
    table = xp.zeros(config["words"], dtype=dtype)
    mask = np.uint32(config["words"] - 1)
    if config["kind"].startswith("red"):
        return table, mask, np.int32(REPS)
    if config["kind"] == "gather":     # words of their own, not all zeros
        table = xp.asarray(np.random.default_rng(49).integers(0, 1 << 16, config["words"], dtype=np.uint32))
    out = xp.zeros(8 * SMS * 256, dtype=np.uint32)
    return table, out, mask, np.int32(REPS)


def kernel_name(config) -> str:
    return f"mb49_{config['kind']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench49", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
