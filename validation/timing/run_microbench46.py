"""Forty-sixth batch of microbenchmarks (microbench46.cu): a warp waiting on k = 1..4 loads at once,
one iteration of a grid-stride loop a trip, one warp an SM (and four for k = 1, 2 from HBM). The k
loads come from arrays 64 MB apart (`far`) or from one stream, 128 bytes apart (`near`), over 64 MB
(HBM) or 1 MB read 16 times (L2).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench46.cubin microbench46.cu`):

    python3 run_microbench46.py --collect OUTDIR     # OUTDIR/microbench46.json: CUDA-event medians
    ncu ... python3 run_microbench46.py --once
Here:
    python3 run_microbench46.py --model              # the rows under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, model_table, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
HBM_N, L2_N, L2_REPS = 1 << 24, 1 << 18, 16
CONFIGS = [dict(memory="hbm", k=k, apart=a, warps=1) for a in ("far", "near") for k in (1, 2, 3, 4)] + \
    [dict(memory="l2", k=k, apart="far", warps=1) for k in (1, 2, 3, 4)] + \
    [dict(memory="hbm", k=k, apart="far", warps=4) for k in (1, 2)]


def label(config) -> str:
    return f"{config['memory']:3s} k={config['k']} {config['apart']:4s} {config['warps']} warp(s) an SM"


def shape(config) -> tuple:
    return (SMS,), (32 * config["warps"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    n = HBM_N if config["memory"] == "hbm" else L2_N
    reps = 1 if config["memory"] == "hbm" else L2_REPS
    step = n if config["apart"] == "far" else 32                # elements between the k arrays
    data = xp.asarray(np.random.default_rng(46).random(n + 3 * step, dtype=np.float32))
    out = xp.zeros(SMS * 32 * config["warps"], dtype=np.float32)
    views = [data[j * step:j * step + n] for j in range(4)]          # (views keep `data` alive)
    return out, *views, np.int64(n), np.int32(config["k"]), np.int32(reps)


def run(reps=5):
    import cupy as cp
    global SMS
    SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
    f = cp.RawModule(path=os.path.join(HERE, "microbench46.cubin")).get_function("mb46_loads")

    def launch_for(config):
        grid, block, _ = shape(config)
        args = buffers_and_arguments(cp, config)
        return lambda: f(grid, block, args)
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import warpsim as ws
    f = ws.RawModule(path=os.path.join(HERE, "microbench46.cubin")).get_function("mb46_loads")
    model_table("microbench46", "mb46", CONFIGS, label,
                lambda config: (f, *shape(config), buffers_and_arguments(ws, config)))

if __name__ == "__main__":
    main(__doc__, run, "microbench46.json", model)
