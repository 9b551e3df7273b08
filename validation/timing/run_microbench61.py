"""Sixty-first batch of microbenchmarks (microbench61.cu): the fifty-ninth batch's BSYNC costs (6 cycles
a group of lanes arriving, 40 where the BSYNC joins a jump table's groups) checked on shapes it did not
have: a region inside a branch, an eight-way if / else-if chain, an eight-way switch compiled to jump
tables, a loop the lanes leave one by one. 132 CTAs of 1 or 8 warps, 2,048 rounds.

    python3 run_microbench61.py --collect OUTDIR | --once | --predict FILE | --model
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
ITERS = 2048
TRIPS = {"0": [0] * 32, "2": [2] * 32, "8": [8] * 32, "lane & 1": [k & 1 for k in range(32)],
         "lane & 3": [k & 3 for k in range(32)], "lane & 7": [k & 7 for k in range(32)]}
SHAPES = (("nested", "2"), ("nested", "lane & 3"), ("chain8", "0"), ("chain8", "lane & 7"), ("table8", "0"),
          ("table8", "lane & 1"), ("table8", "lane & 7"), ("exits", "8"), ("exits", "lane & 7"))
CONFIGS = [dict(kernel=k, trip=t, warps=w) for k, t in SHAPES for w in (1, 8)]


def label(config) -> str:
    return f"{config['kernel']}, trip {config['trip']}, {config['warps']} warps an SM"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    args = (xp.zeros(SMS * 32 * config["warps"], dtype=np.float32),
            xp.asarray(np.array(TRIPS[config["trip"]], dtype=np.int32)), np.int32(ITERS))
    return args + (np.int32(8),) if config["kernel"] == "table8" else args


def kernel_name(config) -> str:
    return f"mb61_{config['kernel']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench61", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
