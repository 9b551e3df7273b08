"""Fifty-ninth batch of microbenchmarks (microbench59.cu): a BSYNC's cost to a warp whose lanes arrive
together and to one whose lanes arrive in two or four groups. 132 CTAs of 1 or 8 warps (one CTA an SM),
4,096 rounds of one FFMA of a chain beside an inner loop of 0, 1 or 2 trips for every lane, or of
lane & 1 trips, or a four-way switch, every lane in one case or lane & 3 in four. The second batch's
mb_bar rounds (a converged warp through an empty inner loop's BSSY / BRA / BSYNC) left the H200 at
most 10 cycles for it, where the model charges bsync_cycles (40, fitted on set 2's switch loops).

    python3 run_microbench59.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import HERE, card, main_for_cubin, ncu_rows, number

SMS = 132
ITERS = 4096
TRIPS = {"0": [0] * 32, "1": [1] * 32, "2": [2] * 32, "lane & 1": [k & 1 for k in range(32)],
         "lane & 3": [k & 3 for k in range(32)]}
CONFIGS = ([dict(kernel="plain", trip="0", warps=w) for w in (1, 8)] +
           [dict(kernel="inner", trip=t, warps=w) for t in ("0", "1", "2", "lane & 1") for w in (1, 8)] +
           [dict(kernel="switch", trip=t, warps=w) for t in ("0", "lane & 3") for w in (1, 8)])


def label(config) -> str:
    trip = "" if config["kernel"] == "plain" else f", trip {config['trip']}"
    return f"{config['kernel']}{trip}, {config['warps']} warps an SM"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    return xp.zeros(SMS * 32 * config["warps"], dtype=np.float32), xp.zeros(SMS, dtype=np.int64), \
        xp.asarray(np.array(TRIPS[config["trip"]], dtype=np.int32)), np.int32(ITERS)


def kernel_name(config) -> str:
    return f"mb59_{config['kernel']}"


def rounds() -> None:
    """Each row's SM cycles a round (ncu's duration at its SM clock over the rounds), and ncu's
    branch_resolving and wait a warp issue beside the model's."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench59.cubin"))
    rows = [r for r in ncu_rows("microbench59_ncu.csv") if "mb59" in r["Kernel Name"]]
    for config, r in zip(CONFIGS, rows):
        us = number(r["gpu__time_duration.sum"]) / 1e3
        per_round = us * 1e-6 * number(r["sm__cycles_elapsed.avg.per_second"]) / ITERS
        f = module.get_function(kernel_name(config))
        grid, block, _ = shape(config)
        args = buffers_and_arguments(ws, config)
        t = predict(f.loaded_module, f.kernel_name, grid, block, pack_arguments(f.kernel_name, f.params, args), 0,
                    gpu=card(), max_ctas=2)
        model_round = t.cycles / ITERS
        stall = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
        print(f"{label(config):34s} {per_round:6.1f} cycles a round (model {model_round:6.1f}); branch_resolving "
              f"{number(r[stall.format('branch_resolving')]):5.2f} / {t.stalls.get('branch_resolving', 0):5.2f}, wait "
              f"{number(r[stall.format('wait')]):5.2f} / {t.stalls.get('wait', 0):5.2f} (measured / model)")


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench59", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": rounds})
