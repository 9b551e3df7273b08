"""Forty-fifth batch of microbenchmarks (the forty-fourth's and forty-first's kernels): at which
shared-memory carve-out random loads lose rate, and whether the carve-out or the shared memory a
CTA holds is what costs.
mb44_chase with a line a lane, one CTA an SM, 4 MB (L2-resident) or 128 MB, 8 or 32 warps, dynamic
shared memory from 0 to 200 KB (carve-outs from 8 to 228 KB); the same with none held but a
carve-out preference of 0, 50 or 100 percent; mb41_gather (8M threads each reading one float of
4 MB at random, 8 CTAs of 256 threads an SM) holding 0, 12 or 24 KB a CTA that it never uses.
mb45_stream_step (microbench45.cu): one iteration of a grid-stride stream a trip, one load, two, a
load and a store, or two loads and a store, at 1 and 4 warps an SM.

On the device (after building microbench44.cubin, microbench41.cubin and microbench45.cubin):

    python3 run_microbench45.py --collect OUTDIR     # OUTDIR/microbench45.json: CUDA-event medians
    ncu ... python3 run_microbench45.py --once
Here:
    python3 run_microbench45.py --model              # the rows under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

import run_microbench41 as mb41
import run_microbench44 as mb44
from microbench_runner import main, model_table, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))


def chase(region_mb, warps, shared_kb, carveout=-1):
    return {"kind": "chase", "region_mb": region_mb, "warps": warps, "shared_kb": shared_kb, "lane_line": 0,
            "carveout": carveout}


CONFIGS = [chase(4, 32, kb) for kb in (0, 8, 24, 56, 90, 120, 150, 180, 200)] + \
    [chase(4, 32, 0, pct) for pct in (0, 50, 100)] + \
    [chase(128, 32, kb) for kb in (0, 24, 56, 90, 120, 200)] + \
    [chase(4, 8, kb) for kb in (0, 56, 120, 200)] + \
    [{"kind": "gather", "region_mb": 4, "mode": 0, "shared_kb": kb} for kb in (0, 12, 24)] + \
    [{"kind": "step", "mode": m, "warps": w} for m in range(4) for w in (1, 4)]
STEP_FLOATS = 1 << 24
STEP_MODES = ("one load", "two loads", "a load and a store", "two loads and a store")
KERNELS = {"chase": ("microbench44.cubin", "mb44_chase"), "gather": ("microbench41.cubin", "mb41_gather"),
           "step": ("microbench45.cubin", "mb45_stream_step")}


def label(config) -> str:
    if config["kind"] == "step":
        return f"stream step, {STEP_MODES[config['mode']]}, {config['warps']} warps an SM"
    if config["kind"] == "gather":
        return f"gather 4 MB, {config['shared_kb']:3d} KB shared a CTA (unused)"
    pref = f", carve-out preference {config['carveout']:3d}%" if config["carveout"] >= 0 else ""
    return mb44.label(config) + pref


def shape(config) -> tuple:
    if config["kind"] == "step":
        return (mb44.SMS,), (32 * config["warps"],), 0
    if config["kind"] == "gather":
        return (mb41.N // mb41.BLOCK,), (mb41.BLOCK,), 1024 * config["shared_kb"]
    return mb44.shape(config)


def buffers_and_arguments(xp, config) -> tuple:
    if config["kind"] == "step":
        rng = np.random.default_rng(45)
        x, y = (xp.asarray(rng.random(STEP_FLOATS, dtype=np.float32)) for _ in range(2))
        return xp.zeros(STEP_FLOATS, dtype=np.float32), x, y, np.int64(STEP_FLOATS), np.int32(config["mode"])
    if config["kind"] == "gather":
        return mb41.arguments(config, *mb41.buffers(xp, config))
    return mb44.arguments(config, *mb44.buffers(xp, config))


def run(reps=5):
    import cupy as cp
    mb44.SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
    modules = {kind: cp.RawModule(path=os.path.join(HERE, cubin)) for kind, (cubin, _) in KERNELS.items()}

    def launch_for(config):
        f = modules[config["kind"]].get_function(KERNELS[config["kind"]][1])
        grid, block, shared = shape(config)
        f.max_dynamic_shared_size_bytes = max(shared, 48 * 1024)
        if config.get("carveout", -1) >= 0:
            f.preferred_shared_memory_carveout = config["carveout"]
        args = buffers_and_arguments(cp, config)
        return lambda: f(grid, block, args, shared_mem=shared)
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import warpsim as ws
    modules = {kind: ws.RawModule(path=os.path.join(HERE, cubin)) for kind, (cubin, _) in KERNELS.items()}
    model_table("microbench45", "mb4", CONFIGS, label,
                lambda config: (modules[config["kind"]].get_function(KERNELS[config["kind"]][1]), *shape(config),
                                buffers_and_arguments(ws, config)))

if __name__ == "__main__":
    main(__doc__, run, "microbench45.json", model)
