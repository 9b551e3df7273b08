"""Sixty-second batch of microbenchmarks (microbench62.cu): the trips of a loop that only some lanes of
the warp run while the others wait at its BSYNC, against the same trips run by every lane: one lane,
half and all but one running the extra trips, by 2 or 4 trips, lanes leaving at four different trips,
and the loop inside a branch. 132 CTAs of 1 warp, 2,048 rounds.

    python3 run_microbench62.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, rounds_table

SMS = 132
ITERS = 2048
TRIPS = {
    "1": [1] * 32, "2": [2] * 32, "3": [3] * 32, "5": [5] * 32,
    "lane 0: 3, others 1": [3] + [1] * 31,
    "lanes 0-15: 1, 16-31: 3": [1] * 16 + [3] * 16,
    "lane 0: 1, others 3": [1] + [3] * 31,
    "lanes 0-15: 1, 16-31: 5": [1] * 16 + [5] * 16,
    "1 + (lane & 3)": [1 + (k & 3) for k in range(32)],
    "lanes 0-15: 0, 16-31: 2": [0] * 16 + [2] * 16,
    "lane & 3 (odd lanes 1 or 3)": [k & 3 for k in range(32)],
}
SHAPES = [("loop", t) for t in ("1", "2", "3", "5", "lane 0: 3, others 1", "lanes 0-15: 1, 16-31: 3",
                                 "lane 0: 1, others 3", "lanes 0-15: 1, 16-31: 5", "1 + (lane & 3)",
                                 "lanes 0-15: 0, 16-31: 2")] + \
    [("guarded", "2"), ("guarded", "lane & 3 (odd lanes 1 or 3)"), ("guarded", "3")]
CONFIGS = [dict(kernel=k, trip=t, warps=1) for k, t in SHAPES]


def label(config) -> str:
    return f"{config['kernel']}, trips {config['trip']}"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    return (xp.zeros(SMS * 32 * config["warps"], dtype=np.float32),
            xp.asarray(np.array(TRIPS[config["trip"]], dtype=np.int32)), np.int32(ITERS))


def kernel_name(config) -> str:
    return f"mb62_{config['kernel']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench62", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": lambda: rounds_table("microbench62", CONFIGS, label, shape,
                                                             buffers_and_arguments, kernel_name, ITERS)})
