"""Sixty-ninth batch of microbenchmarks (microbench69.cu): an attention loop's softmax issue alone, by the
scores a thread keeps (16, 32, 64), the shuffles of each reduction (none, 2 as Triton's MMA layout's row of
four lanes, 5 across the warp) and the warps an SM (4, 8 or 16: 1, 2 or 4 a sub-partition), one CTA on each
of 132 SMs, 512 rounds.

    python3 run_microbench69.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin, rounds_table

SMS = 132
ROUNDS = 512
CONFIGS = [dict(n=n, shuffles=sh, warps=w) for n, sh, w in
           ((16, 2, 4), (32, 2, 4), (64, 2, 4), (32, 0, 4), (32, 5, 4),
            (32, 2, 8), (32, 2, 16), (16, 2, 16), (64, 2, 8), (32, 5, 16))]


def label(config) -> str:
    return f"{config['n']:2d} scores, {config['shuffles']} shuffles, {config['warps']:2d} warps an SM"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    threads = SMS * 32 * config["warps"]
    scores = np.random.default_rng(69).standard_normal(threads * config["n"]).astype(np.float32)
    return xp.asarray(scores), xp.zeros(threads, dtype=np.float32), np.int32(ROUNDS)


def kernel_name(config) -> str:
    return f"mb69_n{config['n']}_sh{config['shuffles']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench69", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": lambda: rounds_table("microbench69", CONFIGS, label, shape,
                                                             buffers_and_arguments, kernel_name, ROUNDS, "wait",
                                                             max_ctas=2)})
