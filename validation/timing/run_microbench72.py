"""Seventy-second batch of microbenchmarks (microbench72.cu): whether two warpgroups' softmax phases collide
because they run in step. Two warpgroups a CTA, one CTA an SM, `ITERS` steps of the seventy-first batch's
attention step (QK wgmmas and the online softmax, with or without the PV wgmmas), the second warpgroup
starting 0, 220 or 440 cycles after the first (about a quarter and half of one warpgroup's step alone).
    python3 run_microbench72.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import numpy as np

from microbench_runner import card, cubin_launch_of, main_for_cubin, ncu_rows, number, predicted

SMS, ITERS = 132, 256
REGION = 1 << 20                 # uint4 elements (the copies' region: no copies here, the argument stays)
CONFIGS = [dict(pv=p, stagger=s) for p in (0, 1) for s in (0, 220, 440)]


def kernel_name(config) -> str:
    return f"mb72_s1_p{config['pv']}"


def label(config) -> str:
    return f"2 warpgroups: QK softmax{' PV' if config['pv'] else '   '}, the second {config['stagger']:3d} cycles later"


def shape(config) -> tuple:
    return (SMS,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    halves = (np.random.default_rng(71).random(20480 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    return (xp.asarray(halves.view(np.uint32)), xp.zeros(REGION * 4, dtype=np.uint32),
            xp.zeros(2 * SMS, dtype=np.float32), np.int32(ITERS), np.uint32(REGION - 1), np.int64(config["stagger"]))


def rounds() -> None:
    """SM cycles a step of each configuration (ncu's duration at its SM clock over the steps), beside the
    model's."""
    launch_of = cubin_launch_of("microbench72", shape, buffers_and_arguments, kernel_name)
    for config, r in zip(CONFIGS, ncu_rows("microbench72_ncu.csv")):
        cycles = number(r["gpu__time_duration.sum"]) * 1e-9 * number(r["sm__cycles_elapsed.avg.per_second"]) / ITERS
        t, = predicted(launch_of, config, (card(),), max_ctas=1)
        print(f"{label(config):60s} {cycles:7.1f} cycles a step (model {t.cycles / ITERS:7.1f})")


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench72", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": rounds})
