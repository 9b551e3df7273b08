"""Sixty-sixth batch of microbenchmarks (microbench66.cu): how long a pipelined cp.async stage of one CTA an
SM takes to land, by stage size (8 or 16 KB), stages (2 or 3: 1 or 2 in flight while the CTA works), the
CTA's work between stages (none, or a loop of 64 dependent FFMAs), and whether 32 CTAs read the same tiles
in the same order (set 3's attention: a head's CTAs read its keys and values) or each its own. 128 CTAs of
128 threads, 512 stages each, from 8 L2-resident tiles a region.

    python3 run_microbench66.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, rounds_table

CTAS = 128
ITERS = 512
TILES = 8
CONFIGS = [dict(stages=s, copies=c, sharers=sh, work=w) for sh in (1, 32) for s, c in ((2, 4), (2, 8), (3, 4), (3, 8))
           for w in (0, 64)]


def label(config) -> str:
    return (f"{config['stages']} stages of {config['copies'] * 2} KB, {config['sharers']:2d} CTAs a tile, "
            f"work {config['work']}")


def shape(config) -> tuple:
    return (CTAS,), (128,), 0


def buffers_and_arguments(xp, config) -> tuple:
    words = CTAS * TILES * config["copies"] * 128 * 4
    base = xp.asarray(np.random.default_rng(66).integers(0, 1 << 30, words, dtype=np.int32))
    return (base, np.int32(TILES), np.int32(config["sharers"]), np.int32(ITERS), np.int32(config["work"]),
            xp.zeros(CTAS * 128, dtype=np.float32))


def kernel_name(config) -> str:
    return f"mb66_s{config['stages']}_c{config['copies']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench66", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": lambda: rounds_table("microbench66", CONFIGS, label, shape,
                                                             buffers_and_arguments, kernel_name, ITERS,
                                                             "long_scoreboard", max_ctas=4)})
