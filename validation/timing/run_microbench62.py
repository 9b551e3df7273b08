"""Sixty-second batch of microbenchmarks (microbench62.cu): the trips of a loop that only some lanes of
the warp run while the others wait at its BSYNC, against the same trips run by every lane: one lane,
half and all but one running the extra trips, by 2 or 4 trips, lanes leaving at four different trips,
and the loop inside a branch. 132 CTAs of 1 warp, 2,048 rounds.

    python3 run_microbench62.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import HERE, card, main_for_cubin, ncu_rows, number

SMS = 132
ITERS = 2048
TRIPS = {
    "1": [1] * 32, "2": [2] * 32, "3": [3] * 32, "5": [5] * 32,
    "lane 0: 3, others 1": [3] + [1] * 31,
    "lanes 0-15: 1, 16-31: 3": [1] * 16 + [3] * 16,
    "lane 0: 1, others 3": [1] + [3] * 31,
    "lanes 0-15: 1, 16-31: 5": [1] * 16 + [5] * 16,
    "1 + (lane & 3)": [1 + (k & 3) for k in range(32)],
    "lanes 0-15: 0, 16-31: 2": [0] * 16 + [2] * 16,
    "lane & 3 (odd lanes 1 or 3)": [k & 3 for k in range(32)],
}
SHAPES = [("loop", t) for t in ("1", "2", "3", "5", "lane 0: 3, others 1", "lanes 0-15: 1, 16-31: 3",
                                 "lane 0: 1, others 3", "lanes 0-15: 1, 16-31: 5", "1 + (lane & 3)",
                                 "lanes 0-15: 0, 16-31: 2")] + \
    [("guarded", "2"), ("guarded", "lane & 3 (odd lanes 1 or 3)"), ("guarded", "3")]
CONFIGS = [dict(kernel=k, trip=t, warps=1) for k, t in SHAPES]


def label(config) -> str:
    return f"{config['kernel']}, trips {config['trip']}"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    return (xp.zeros(SMS * 32 * config["warps"], dtype=np.float32),
            xp.asarray(np.array(TRIPS[config["trip"]], dtype=np.int32)), np.int32(ITERS))


def kernel_name(config) -> str:
    return f"mb62_{config['kernel']}"


def rounds() -> None:
    """Per row, a warp's SM cycles a round (ncu's duration at its SM clock over the rounds), its warp
    instructions a round, and its branch_resolving cycles a round (ncu's ratio times the instructions),
    each beside the model's."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench62.cubin"))
    rows = [r for r in ncu_rows("microbench62_ncu.csv") if "mb62" in r["Kernel Name"]]
    stall = "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio"
    for config, r in zip(CONFIGS, rows):
        us = number(r["gpu__time_duration.sum"]) / 1e3
        per_round = us * 1e-6 * number(r["sm__cycles_elapsed.avg.per_second"]) / ITERS
        issued = number(r["smsp__inst_executed.sum"]) / SMS / ITERS
        f = module.get_function(kernel_name(config))
        grid, block, _ = shape(config)
        args = buffers_and_arguments(ws, config)
        t = predict(f.loaded_module, f.kernel_name, grid, block, pack_arguments(f.kernel_name, f.params, args), 0,
                    gpu=card(), max_ctas=2)
        model_issued = t.details["instructions"] / SMS / ITERS
        print(f"{label(config):40s} {per_round:6.1f} cycles a round (model {t.cycles / ITERS:6.1f}), "
              f"{issued:5.1f} issues ({model_issued:5.1f}), branch_resolving {number(r[stall]) * issued:5.1f} "
              f"({t.stalls.get('branch_resolving', 0) * model_issued:5.1f})")


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench62", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": rounds})
