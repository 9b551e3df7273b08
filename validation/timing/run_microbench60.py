"""Sixtieth batch of microbenchmarks (microbench60.cu): where an array of atomic counters starts. The
fifty-seventh batch's one-add-a-thread f32 histograms (4M threads) over 64, 128 and 256 bins, and its
REDs of 16 lanes a line on two lines 512 bytes apart, with the array 0, 128, 256, 512 or 768 bytes past
a 1 KB boundary. If a 1 KB region's 256-byte blocks alternate between two atomic units
(timing/execution.atomic_unit_of_line), 256 bins reach 2 units at 0, 3 at 256 and 4 at 512; 64 bins 1
at 0 and 2 at 128; the two lines one unit at 0 and two at 512.

    python3 run_microbench60.py --collect OUTDIR | --once | --predict FILE | --model
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin
from run_microbench57 import BIN_THREADS, CTAS, PASSES

CONFIGS = ([dict(kernel="bins", nbins=256, offset=o) for o in (0, 256, 512, 768)] +
           [dict(kernel="bins", nbins=128, offset=o) for o in (0, 256)] +
           [dict(kernel="bins", nbins=64, offset=o) for o in (0, 128, 256)] +
           [dict(kernel="reds", nbins=512, offset=o) for o in (0, 256, 512)])


def label(config) -> str:
    what = f"bins {config['nbins']:3d}" if config["kernel"] == "bins" else "two lines 512 B apart"
    return f"{what}, {config['offset']:3d} B past 1 KB"


def shape(config) -> tuple:
    return ((BIN_THREADS // 256,) if config["kernel"] == "bins" else (CTAS,)), (256,), 0


def _placed(xp, words: int, offset: int):
    """`words` zero floats starting `offset` bytes past a 1 KB boundary of a larger array."""
    room = xp.zeros(words + 1024, dtype=np.float32)
    start = ((-room.data.ptr) % 1024 + offset) // 4
    return room[start:start + words]


def buffers_and_arguments(xp, config) -> tuple:
    if config["kernel"] == "bins":
        x = xp.asarray(np.random.default_rng(60).random(BIN_THREADS, dtype=np.float32))
        return _placed(xp, config["nbins"], config["offset"]), x, np.int32(BIN_THREADS), \
            np.int32(config["nbins"]), np.int32(1)
    iters = max(1, PASSES // (CTAS * 8 * 2))
    return _placed(xp, config["nbins"], config["offset"]), np.int32(16), np.int32(2), np.int32(128), \
        np.int32(iters), np.int32(0)


def kernel_name(config) -> str:
    return f"mb60_{config['kernel']}_f32"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench60", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
