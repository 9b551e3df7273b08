"""Sixty-seventh batch of microbenchmarks (microbench67.cu): the sixty-sixth batch's pipelined cp.async ring of
one CTA an SM streaming 64 tiles once each (ncu's launches start from a cold L2), 32 CTAs on the same tiles
in the same order (set 3's attention: a head's CTAs stream its keys and values) or each on its own.
128 CTAs of 128 threads, 64 stages each. Read ncu's times (the CUDA-event runs find the tiles in the L2).

    python3 run_microbench67.py --collect OUTDIR | --once | --predict FILE | --model
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin
from run_microbench66 import CTAS, label, shape

ITERS = 64
TILES = 64
CONFIGS = [dict(stages=s, copies=c, sharers=sh, work=w) for sh in (1, 32) for s, c in ((2, 4), (2, 8), (3, 8))
           for w in (0, 64)]


def buffers_and_arguments(xp, config) -> tuple:
    words = CTAS // config["sharers"] * TILES * config["copies"] * 128 * 4
    base = xp.asarray(np.random.default_rng(67).integers(0, 1 << 30, words, dtype=np.int32))
    return (base, np.int32(TILES), np.int32(config["sharers"]), np.int32(ITERS), np.int32(config["work"]),
            xp.zeros(CTAS * 128, dtype=np.float32))


def kernel_name(config) -> str:
    return f"mb67_s{config['stages']}_c{config['copies']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench67", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
