"""Thirty-eighth batch of H200 microbenchmarks (microbench38.cu): how many lines an SM keeps in flight.
Each warp streams a region of its own a line a load, U = 1, 4 or 16 loads in flight a warp, 1 to 32
warps a CTA, one CTA an SM on 16 or 132 SMs, from HBM (each line once) or from the L2 (each warp cycles
over 64 lines of its own 16 times). Cold caches under ncu.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench38.cubin microbench38.cu`):

    python3 run_microbench38.py --collect OUTDIR     # OUTDIR/microbench38.json: CUDA-event medians
    ncu ... python3 run_microbench38.py --once
Here:
    python3 run_microbench38.py --model              # the H200's rows under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import card, main, ncu_rows, number, recording, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
LINES = 1024                    # lines a warp reads
WINDOW = 64                     # lines a warp cycles over in the L2 rows
CONFIGS = [dict(ctas=c, warps=w, u=u, mem=m) for m in ("hbm", "l2") for c in (16, 132) for w in (1, 2, 4, 8, 16, 32)
           for u in (1, 4, 16)]


def label(config) -> str:
    return f"{config['mem']:3s} {config['ctas']:3d} CTAs x {config['warps']:2d} warps, {config['u']:2d} in flight"


def buffers(xp, config):
    total = config["ctas"] * config["warps"] * LINES
    return xp.ones(total * 32, dtype=np.int32), xp.zeros(config["ctas"] * config["warps"] * 32, dtype=np.int32)


def arguments(config, src, out) -> tuple:
    mask = 0xFFFFFFFF if config["mem"] == "hbm" else WINDOW - 1
    return src, out, np.int32(LINES), np.uint32(mask), np.int32(0)


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench38.cubin"))

    def launch_for(config):
        f = mod.get_function(f"mb38_u{config['u']}")
        src, out = buffers(cp, config)
        return lambda: f((config["ctas"],), (32 * config["warps"],), arguments(config, src, out))
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench38.cubin"))
    events = json.load(open(recording("microbench38.json")))
    rows = [r for r in ncu_rows("microbench38_ncu.csv") if "mb38" in r.get("Kernel Name", "")]
    errors = []
    for config, e, m in zip(CONFIGS, events, rows):
        f = mod.get_function(f"mb38_u{config['u']}")
        src, out = buffers(ws, config)
        args = pack_arguments(f.kernel_name, f.params, arguments(config, src, out))
        t = predict(f.loaded_module, f.kernel_name, (config["ctas"],), (32 * config["warps"],), args, 0, gpu=card(),
                    max_ctas=4)
        h200 = number(m["gpu__time_duration.sum"]) / 1e3
        us = t.time_s * 1e6
        errors.append(us / h200 - 1)
        clock = number(m["sm__cycles_elapsed.avg.per_second"])
        per_sm = config["warps"] * LINES * 128 / ((h200 - 2.0) * 1e-6 * clock)
        print(f"{label(config)}: H200 {h200:8.1f} us ({per_sm:5.1f} B/clk an SM; events {e['event_us']:8.1f}), "
              f"model {us:8.1f} us ({100 * errors[-1]:+4.0f}%, {t.bottleneck})", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


if __name__ == "__main__":
    main(__doc__, run, "microbench38.json", model)
