"""Sixty-fifth batch of microbenchmarks (microbench65.cu): what the cost of a loop splitting the lanes of a
branch that split its warp grows with: the branch taking the lowest m lanes (m from 2 to 31) or every
fourth lane, and the loop inside splitting them or not. 132 CTAs of 1 warp, 2,048 rounds.

    python3 run_microbench65.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

from run_microbench63 import run_batch

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


if __name__ == "__main__":
    run_batch(__doc__, 65, SHAPES, SELECTS, TRIPS)
