"""Fifty-sixth batch of microbenchmarks (microbench56.cu): the L2 slice's time for a warp's atomic
request to one line by the lanes naming that line (1 to 32, each its own word), every request on one
512-byte chunk (one slice), f32 and u32, each pass to a line naming the same words as the last or the
next ones; and f32 requests of two lanes a line spread over 2 to 128 chunks (how many slices a few hot
chunks keep busy). 8,448 warps (1,056 CTAs of 256), RED.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench56.cubin microbench56.cu`):

    python3 run_microbench56.py --collect OUTDIR     # OUTDIR/microbench56.json: CUDA-event medians
    ncu ... python3 run_microbench56.py --once
Here:
    python3 run_microbench56.py --predict FILE      # the model's figures, made before measuring
    python3 run_microbench56.py --model             # the rows under ncu beside the model's
    python3 run_microbench56.py --passes            # each row's L2 cycles a (request, line) pass
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, pass_cycles_table

CTAS = 1056
WARPS = CTAS * 8
PASSES = 1 << 18          # (request, line) passes a launch makes


def iters(config) -> int:
    lines = min(4, 32 // config["per_line"])
    return max(1, PASSES // (WARPS * lines))


CONFIGS = ([dict(type=t, per_line=k, chunks=1, rotate=0) for t in ("f32", "u32") for k in (1, 2, 4, 8, 16, 32)] +
           [dict(type=t, per_line=k, chunks=1, rotate=1) for t in ("f32", "u32") for k in (2, 8, 16)] +
           [dict(type="f32", per_line=2, chunks=c, rotate=0) for c in (2, 8, 32, 128)])


def label(config) -> str:
    return (f"{config['type']} {config['per_line']:2d} lanes a line, {config['chunks']:3d} chunks"
            f"{', words moving' if config['rotate'] else ''}")


def shape(config) -> tuple:
    return (CTAS,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    dtype = np.float32 if config["type"] == "f32" else np.uint32
    bins = xp.zeros(config["chunks"] * 128, dtype=dtype)
    return bins, np.int32(config["per_line"]), np.int32(config["chunks"]), np.int32(iters(config)), \
        np.int32(config["rotate"])


def kernel_name(config) -> str:
    return f"mb56_{config['type']}"


def passes(config) -> int:
    """The launch's (warp request, line) passes: a request names min(4, 32 / per_line) lines."""
    return WARPS * iters(config) * min(4, 32 // config["per_line"])


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench56", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--passes": lambda: pass_cycles_table("microbench56", CONFIGS, label, passes)})
