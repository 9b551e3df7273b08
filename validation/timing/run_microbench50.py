"""Fiftieth batch of microbenchmarks (microbench50.cu): the shared pipe's passes for a warp's ld.shared
of 4, 8 or 16 bytes a lane, by the distinct elements its 32 lanes name (each lane its own, or 1, 2, 4,
8 shared by groups of lanes: a tiled matmul's broadcast of a row of A is the 16-byte load of one
element, or of two where a warp spans two rows). Eight independent loads a round, each consumed by
FFMAs, 256 rounds, 8 CTAs of 256 threads an SM.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench50.cubin microbench50.cu`):

    python3 run_microbench50.py --collect OUTDIR     # OUTDIR/microbench50.json: CUDA-event medians
    ncu ... python3 run_microbench50.py --once
Here:
    MICROBENCH_CARD=h100 python3 run_microbench50.py --model     # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
ITERS = 256
CONFIGS = [dict(bytes=b, groups=g) for b in (4, 8, 16) for g in (0, 1, 2, 4, 8)]


def label(config) -> str:
    who = "each lane its own element" if config["groups"] == 0 else f"{config['groups']} element(s) a warp"
    return f"{config['bytes']:2d} bytes a lane, {who}"


def shape(config) -> tuple:
    return (8 * SMS,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    out = xp.zeros(8 * SMS * 256, dtype=np.float32)
    return out, np.int32(config["groups"]), np.int32(ITERS)


def kernel_name(config) -> str:
    return f"mb50_lds{config['bytes']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench50", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
