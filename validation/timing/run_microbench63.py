"""Sixty-third batch of microbenchmarks (microbench63.cu): whether a branch that splits lanes the code around
it has already split costs more than one splitting the whole warp. A loop inside one branch (`one`) and
inside two nested ones (`two`), and two branches one after the other (`after`), each with the outer
branches uniform or split, and the loop's trips alike or not among the lanes that reach it. 132 CTAs of
1 warp (8 for two rows), 2,048 rounds.

    python3 run_microbench63.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, rounds_table

SMS = 132
ITERS = 2048
LANES = range(32)
SELECTS = {
    "all 1": [1] * 32, "all 3": [3] * 32, "odd lanes": [k & 1 for k in LANES], "lanes 0-15": [1] * 16 + [0] * 16,
    "all but lane 0": [0] + [1] * 31, "odd lanes | 2": [(k & 1) | 2 for k in LANES], "lane & 3": [k & 3 for k in LANES],
}
TRIPS = {
    "2": [2] * 32, "halves 1, 3": [1] * 16 + [3] * 16, "lane & 2 ? 3 : 1": [3 if k & 2 else 1 for k in LANES],
    "lane & 1 ? 3 : 1": [3 if k & 1 else 1 for k in LANES], "lane 1: 3, others 1": [1, 3] + [1] * 30,
    "1 + (lane >> 1 & 3)": [1 + (k >> 1 & 3) for k in LANES], "lane & 4 ? 3 : 1": [3 if k & 4 else 1 for k in LANES],
}
SHAPES = [
    ("one", "all 1", "2", 1),                       # no split
    ("one", "all 1", "halves 1, 3", 1),             # the loop splits the whole warp
    ("one", "odd lanes", "2", 1),                   # the branch splits, the loop does not
    ("one", "odd lanes", "lane & 2 ? 3 : 1", 1),    # the loop splits the branch's lanes
    ("one", "odd lanes", "lane & 2 ? 3 : 1", 8),
    ("one", "lanes 0-15", "lane & 1 ? 3 : 1", 1),
    ("one", "all but lane 0", "lane 1: 3, others 1", 1),
    ("one", "odd lanes", "1 + (lane >> 1 & 3)", 1),
    ("two", "all 3", "2", 1),                       # no split
    ("two", "odd lanes | 2", "2", 1),               # the outer branch splits
    ("two", "lane & 3", "2", 1),                    # the inner branch splits the outer's lanes
    ("two", "lane & 3", "lane & 4 ? 3 : 1", 1),     # and the loop the inner's
    ("two", "lane & 3", "lane & 4 ? 3 : 1", 8),
    ("two", "all 3", "halves 1, 3", 1),             # only the loop splits, under two uniform branches
    ("after", "lane & 3", "2", 1),                  # two splits one after the other
    ("after", "lane & 3", "halves 1, 3", 1),        # each loop splits its branch's lanes
    ("after", "all 3", "halves 1, 3", 1),           # each loop splits the whole warp
]


def run_batch(doc: str, n: int, shapes: list, selects: dict, trips: dict) -> None:
    """The command line of a batch of these kernels (this one, the sixty-fourth, the sixty-fifth): shapes
    (kernel, sel, trip[, warps]) named in selects and trips, each kernel mb<n>_<kernel> of microbench<n>.cu."""
    configs = [dict(kernel=shape[0], sel=shape[1], trip=shape[2], warps=shape[3] if len(shape) > 3 else 1)
               for shape in shapes]

    def label(config) -> str:
        warps = f", {config['warps']} warps" if config["warps"] > 1 else ""
        return f"{config['kernel']}, sel {config['sel']}, trips {config['trip']}{warps}"

    def shape(config) -> tuple:
        return (SMS,), (32 * config["warps"],), 0

    def buffers_and_arguments(xp, config) -> tuple:
        return (xp.zeros(SMS * 32 * config["warps"], dtype=np.float32),
                xp.asarray(np.array(selects[config["sel"]], dtype=np.int32)),
                xp.asarray(np.array(trips[config["trip"]], dtype=np.int32)), np.int32(ITERS))

    def kernel_name(config) -> str:
        return f"mb{n}_{config['kernel']}"

    name = f"microbench{n}"
    main_for_cubin(doc, name, configs, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": lambda: rounds_table(name, configs, label, shape, buffers_and_arguments,
                                                             kernel_name, ITERS)})


if __name__ == "__main__":
    run_batch(__doc__, 63, SHAPES, SELECTS, TRIPS)
