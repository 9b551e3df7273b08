"""Sixty-eighth batch of microbenchmarks (microbench68.cu): the cp.async ring of 16 KB stages streaming 64
tiles once from a cold L2 (ncu's launches), 128 CTAs of 128 threads, by how many CTAs read a group's tiles
(1, 2, 8, 32) and whether they start on the same tile or one tile apart; and one thread's cp.async round
trip from L2 and from HBM (read as cycles a round: ncu's duration at its SM clock over the rounds).

    python3 run_microbench68.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations


import numpy as np

from microbench_runner import card, cubin_launch_of, main_for_cubin, ncu_rows, number, predicted

CTAS = 128
TILES = 64
CHASE_ROUNDS = 4096
RINGS = [dict(kind="ring", stages=s, sharers=sh, stagger=st) for s, sh, st in
         ((2, 1, 0), (2, 2, 0), (2, 8, 0), (2, 32, 0), (2, 8, 1), (2, 32, 1), (3, 8, 0), (3, 32, 0), (3, 32, 1))]
# L2: 256 lines 4 KB apart, each read 16 times (the first pass from HBM); HBM: 4096 lines 64 KB + 128 B apart
CHASES = [dict(kind="chase", where="l2", step=4096, span=1 << 20),
          dict(kind="chase", where="hbm", step=65536 + 128, span=4096 * (65536 + 128))]
CONFIGS = RINGS + CHASES


def label(config) -> str:
    if config["kind"] == "chase":
        return f"one thread's cp.async round trip from {config['where'].upper()}"
    return (f"{config['stages']} stages of 16 KB, {config['sharers']:2d} CTAs a tile, "
            f"{'one tile apart' if config['stagger'] else 'in step'}")


def shape(config) -> tuple:
    return ((1,), (32,), 0) if config["kind"] == "chase" else ((CTAS,), (128,), 0)


def buffers_and_arguments(xp, config) -> tuple:
    rng = np.random.default_rng(68)
    if config["kind"] == "chase":
        return (xp.asarray(rng.integers(0, 255, config["span"], dtype=np.uint8)), xp.zeros(1, dtype=np.float32),
                np.int32(CHASE_ROUNDS), np.int64(config["step"]), np.int64(config["span"]))
    words = CTAS // config["sharers"] * TILES * 8 * 128 * 4
    return (xp.asarray(rng.integers(0, 1 << 30, words, dtype=np.int32)), np.int32(TILES),
            np.int32(config["sharers"]), np.int32(config["stagger"]), np.int32(TILES), np.int32(0),
            xp.zeros(CTAS * 128, dtype=np.float32))


def kernel_name(config) -> str:
    return "mb68_chase" if config["kind"] == "chase" else f"mb68_ring_s{config['stages']}"


def rounds() -> None:
    """Cycles a round of each configuration (a ring's stage, a chase's round trip), beside the model's."""
    launch_of = cubin_launch_of("microbench68", shape, buffers_and_arguments, kernel_name)
    for config, r in zip(CONFIGS, ncu_rows("microbench68_ncu.csv")):
        per = CHASE_ROUNDS if config["kind"] == "chase" else TILES
        cycles = number(r["gpu__time_duration.sum"]) * 1e-9 * number(r["sm__cycles_elapsed.avg.per_second"]) / per
        t, = predicted(launch_of, config, (card(),))
        print(f"{label(config):48s} {cycles:7.1f} cycles a round (model {t.cycles / per:7.1f})")


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench68", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": rounds})
