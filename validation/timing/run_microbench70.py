"""Seventieth batch of microbenchmarks (microbench70.cu): a cp.async ring of 16 KB stages (8 KB of an A
panel, 8 KB of a B panel) over jobs of 16 stages, from a cold L2 (ncu's launches), run persistently (132
CTAs, one an SM, each taking jobs 132 apart: 1, 2 or 4 passes) or with a CTA a job in one wave. Later
passes read new A panels and pass 0's B panels (fresh), only panels other CTAs read a pass before
(reread), or new panels only (all fresh). The question: does a persistent CTA's later pass wait on HBM
for its copies' first touches, as the model has it (one wave: every first touch waits), or hit L2?

    python3 run_microbench70.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations


import numpy as np

from microbench_runner import card, cubin_launch_of, main_for_cubin, ncu_rows, number, predicted

SMS = 132                   # H100 SXM and H200 alike
NB = 16                     # B panels a pass (jobs j % 16)
K_TILES = 16                # stages a job
PATTERNS = {"fresh": dict(m_mod=1 << 20, b_fresh=0), "reread": dict(m_mod=8, b_fresh=0),
            "all fresh": dict(m_mod=1 << 20, b_fresh=1)}
CONFIGS = [dict(stages=s, ctas=c, passes=p, pattern=pat) for s, c, p, pat in (
    (2, SMS, 1, "fresh"),
    (2, SMS, 2, "fresh"), (2, SMS, 2, "reread"), (2, SMS, 2, "all fresh"),
    (2, SMS, 4, "fresh"), (2, SMS, 4, "reread"), (2, SMS, 4, "all fresh"),
    (3, SMS, 1, "fresh"),
    (3, SMS, 2, "reread"), (3, SMS, 4, "fresh"), (3, SMS, 4, "reread"),
    (2, 2 * SMS, 2, "reread"), (2, 4 * SMS, 4, "reread"), (2, 4 * SMS, 4, "fresh"))]


def jobs(config) -> int:
    return SMS * config["passes"]


def label(config) -> str:
    how = "persistent" if config["ctas"] == SMS else f"{config['ctas']} CTAs"
    return f"{config['stages']} stages, {config['passes']} passes' jobs, {how:10s} {config['pattern']}"


def shape(config) -> tuple:
    return (config["ctas"],), (128,), 0


def buffers_and_arguments(xp, config) -> tuple:
    rng = np.random.default_rng(70)
    pattern = PATTERNS[config["pattern"]]
    a_panels = min(pattern["m_mod"], -(-jobs(config) // NB))
    b_panels = NB * (config["passes"] if pattern["b_fresh"] else 1)
    words = K_TILES * 8192 // 4
    return (xp.asarray(rng.integers(0, 1 << 30, a_panels * words, dtype=np.int32)),
            xp.asarray(rng.integers(0, 1 << 30, b_panels * words, dtype=np.int32)),
            np.int32(jobs(config)), np.int32(NB), np.int32(pattern["m_mod"]), np.int32(pattern["b_fresh"]),
            np.int32(K_TILES), xp.zeros(config["ctas"] * 128, dtype=np.float32))


def kernel_name(config) -> str:
    return f"mb70_stream_s{config['stages']}"


def rounds() -> None:
    """SM cycles a stage of each configuration's CTAs (ncu's duration at its SM clock over the stages an SM
    runs), beside the model's."""
    launch_of = cubin_launch_of("microbench70", shape, buffers_and_arguments, kernel_name)
    for config, r in zip(CONFIGS, ncu_rows("microbench70_ncu.csv")):
        per = config["passes"] * K_TILES
        cycles = number(r["gpu__time_duration.sum"]) * 1e-9 * number(r["sm__cycles_elapsed.avg.per_second"]) / per
        t, = predicted(launch_of, config, (card(),))
        print(f"{label(config):52s} {cycles:7.1f} cycles a stage (model {t.cycles / per:7.1f}), "
              f"L2 hit {number(r['lts__t_sector_hit_rate.pct']):5.1f}%, HBM {number(r['dram__bytes_read.sum']) / 1e6:6.1f} MB")


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench70", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": rounds})
