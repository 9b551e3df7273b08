"""Sixty-fifth batch of microbenchmarks (microbench65.cu): what the cost of a loop splitting the lanes of a
branch that split its warp grows with: the branch taking the lowest m lanes (m from 2 to 31) or every
fourth lane, and the loop inside splitting them or not. 132 CTAs of 1 warp, 2,048 rounds.

    python3 run_microbench65.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, rounds_table

SMS = 132
ITERS = 2048
LANES = range(32)
ENTERING = (31, 28, 24, 20, 16, 12, 8, 4, 2)
SELECTS = {f"lanes 0-{m - 1}": [1 if k < m else 0 for k in LANES] for m in ENTERING}
SELECTS.update({"all but lane 0": [0] + [1] * 31, "lane % 4 != 0": [1 if k % 4 else 0 for k in LANES],
                "lane % 4 == 0": [0 if k % 4 else 1 for k in LANES]})
TRIPS = {"lane & 1 ? 3 : 1": [3 if k & 1 else 1 for k in LANES], "2": [2] * 32,
         "lane & 4 ? 3 : 1": [3 if k & 4 else 1 for k in LANES]}
SHAPES = [("one", f"lanes 0-{m - 1}", "lane & 1 ? 3 : 1") for m in ENTERING] + [
    ("one", "all but lane 0", "lane & 1 ? 3 : 1"),
    ("one", "lane % 4 != 0", "lane & 1 ? 3 : 1"),
    ("one", "lane % 4 == 0", "lane & 4 ? 3 : 1"),
    ("one", "lanes 0-23", "2"), ("one", "lanes 0-15", "2"), ("one", "lanes 0-7", "2"),
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
    return f"mb65_{config['kernel']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench65", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": lambda: rounds_table("microbench65", CONFIGS, label, shape, buffers_and_arguments,
                                                                 kernel_name, ITERS)})
