"""Sixty-fourth batch of microbenchmarks (microbench64.cu): which splits of lanes an outer branch already
split cost more. The sixty-third batch's kernels (a loop inside one branch, and inside two nested ones)
with the lanes that leave the loop and go on exchanged: the lowest or the highest lane, one or many.
132 CTAs of 1 warp, 2,048 rounds.

    python3 run_microbench64.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

from run_microbench63 import run_batch

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


if __name__ == "__main__":
    run_batch(__doc__, 64, SHAPES, SELECTS, TRIPS)
