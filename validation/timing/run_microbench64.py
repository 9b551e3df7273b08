"""Sixty-fourth batch of microbenchmarks (microbench64.cu): which splits of lanes an outer branch already
split cost more. The sixty-third batch's kernels (a loop inside one branch, and inside two nested ones)
with the lanes that leave the loop and go on exchanged: the lowest or the highest lane, one or many.
132 CTAs of 1 warp, 2,048 rounds.

    python3 run_microbench64.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, rounds_table

SMS = 132
ITERS = 2048
LANES = range(32)


def lanes_but(lanes: dict, others: int) -> list:
    return [lanes.get(k, others) for k in LANES]


SELECTS = {
    "odd lanes": [k & 1 for k in LANES], "all 1": [1] * 32, "all but lane 0": lanes_but({0: 0}, 1),
    "all but lane 31": lanes_but({31: 0}, 1), "lane & 3": [k & 3 for k in LANES],
    "odd lanes, lanes 1, 5, 9.. inner": [(k & 1) | (0 if k & 2 else 2) for k in LANES],
}
TRIPS = {
    "lane 1: 1, others 3": lanes_but({1: 1}, 3), "lane 1: 3, others 1": lanes_but({1: 3}, 1),
    "lane 31: 3, others 1": lanes_but({31: 3}, 1), "lane 31: 1, others 3": lanes_but({31: 1}, 3),
    "lanes 0-15: 3, 16-31: 1": [3] * 16 + [1] * 16, "4 - (lane >> 1 & 3)": [4 - (k >> 1 & 3) for k in LANES],
    "lane 0: 1, lane 1: 2, others 3": lanes_but({0: 1, 1: 2}, 3), "lane 0: 3, others 1": lanes_but({0: 3}, 1),
    "lane 0: 1, others 3": lanes_but({0: 1}, 3), "lane & 2 ? 3 : 1": [3 if k & 2 else 1 for k in LANES],
    "lane & 2 ? 1 : 3": [1 if k & 2 else 3 for k in LANES], "2": [2] * 32,
}
SHAPES = [
    ("one", "odd lanes", "lane & 2 ? 3 : 1"),           # the sixty-third batch's row: lane 1 leaves first
    ("one", "odd lanes", "lane & 2 ? 1 : 3"),           # lane 1 goes on
    ("one", "odd lanes", "lane 1: 1, others 3"),        # the lowest lane leaves alone
    ("one", "odd lanes", "lane 1: 3, others 1"),        # the lowest lane goes on alone
    ("one", "odd lanes", "lane 31: 3, others 1"),       # the highest lane goes on alone
    ("one", "odd lanes", "lane 31: 1, others 3"),       # the highest lane leaves alone
    ("one", "odd lanes", "lanes 0-15: 3, 16-31: 1"),    # the low half goes on
    ("one", "odd lanes", "4 - (lane >> 1 & 3)"),        # lanes leave at trips 1-3, lane 1 goes on to 4
    ("one", "all 1", "lane 0: 1, lane 1: 2, others 3"), # two exits, no outer split
    ("one", "all but lane 0", "lane 1: 1, others 3"),
    ("one", "all but lane 31", "lane 0: 3, others 1"),
    ("one", "all but lane 31", "lane 0: 1, others 3"),
    ("two", "lane & 3", "2"),                           # the sixty-third batch's: lane 1 skips the inner branch
    ("two", "odd lanes, lanes 1, 5, 9.. inner", "2"),   # lane 1 enters it
]
CONFIGS = [dict(kernel=k, sel=s, trip=t, warps=1) for k, s, t in SHAPES]


def label(config) -> str:
    return f"{config['kernel']}, sel {config['sel']}, trips {config['trip']}"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    return (xp.zeros(SMS * 32 * config["warps"], dtype=np.float32),
            xp.asarray(np.array(SELECTS[config["sel"]], dtype=np.int32)),
            xp.asarray(np.array(TRIPS[config["trip"]], dtype=np.int32)), np.int32(ITERS))


def kernel_name(config) -> str:
    return f"mb64_{config['kernel']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench64", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": lambda: rounds_table("microbench64", CONFIGS, label, shape, buffers_and_arguments,
                                                                 kernel_name, ITERS)})
