"""Fifty-eighth batch of microbenchmarks (microbench58.cu): the fifty-seventh batch's REDs over 2 to 32
lines, whole lines (32 lanes) or one sector (8 lanes) a pass, f32 and u32, the lines adjacent (a
512-byte chunk's two 256-byte halves), 256 bytes apart (a chunk's halves, then the next chunk's) or a
chunk apart (one half of each): whether the halves add to the slices' parallelism when many chunks are
busy (on the H100 four lines of one chunk took half the time of two; the H200's one-lane requests over
8 and 32 lines, microbench2, ran as if a chunk were one unit).

    python3 run_microbench58.py --collect OUTDIR | --once | --predict FILE | --model | --passes
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, pass_cycles_table
from run_microbench57 import CTAS, PASSES

STRIDES = {1: "adjacent", 2: "256 B apart", 4: "a chunk apart"}


def reds(type_, per_line, nlines, stride) -> dict:
    return dict(type=type_, per_line=per_line, nlines=nlines, stride=stride)


CONFIGS = [reds(t, k, n, s) for t, k in (("f32", 32), ("f32", 8), ("u32", 32))
           for s, counts in ((1, (4, 8, 16, 32)), (4, (2, 4, 8, 16, 32)), (2, (4, 8)))
           for n in counts]


def lines_a_request(config) -> int:
    return min(config["nlines"], 32 // config["per_line"])


def iters(config) -> int:
    return max(1, PASSES // (CTAS * 8 * lines_a_request(config)))


def label(config) -> str:
    return f"{config['type']} {config['per_line']:2d} lanes a line, {config['nlines']:2d} lines {STRIDES[config['stride']]}"


def shape(config) -> tuple:
    return (CTAS,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    dtype = np.float32 if config["type"] == "f32" else np.uint32
    return xp.zeros(32 * 4 * 32, dtype=dtype), np.int32(config["per_line"]), np.int32(config["nlines"]), \
        np.int32(32 * config["stride"]), np.int32(iters(config)), np.int32(0)


def kernel_name(config) -> str:
    return f"mb58_reds_{config['type']}"


def passes(config) -> int:
    return CTAS * 8 * iters(config) * lines_a_request(config)


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench58", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--passes": lambda: pass_cycles_table("microbench58", CONFIGS, label, passes)})
