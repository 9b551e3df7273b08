"""Thirty-sixth batch of H200 microbenchmarks (microbench36.cu): the L2's rate for one word of each of 32
lines a request, the lines 1, 2, 3, 4, 8 or 16 lines apart, or 1 to 3 apart at random, from a base
picked at random, in 8 MB resident in L2 (ld.global.cg), 8 CTAs of 256 an SM, warm.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench36.cubin microbench36.cu`):

    python3 run_microbench36.py --collect OUTDIR     # OUTDIR/microbench36.json: CUDA-event medians
    ncu --cache-control none ... python3 run_microbench36.py --once
Here:
    python3 run_microbench36.py --model              # the H200's L2 requests a clock beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, CTAS_PER_SM, BLOCK, ITERS = 132, 8, 256, 64
CONFIGS = [dict(mb=8, stride=s, jitter=0) for s in (1, 2, 3, 4, 8, 16)] + [dict(mb=8, stride=0, jitter=1)]
GRID = SMS * CTAS_PER_SM


def arguments(config, src, out):
    lines = config["mb"] * (1 << 20) // 128
    return (src, out, np.uint32(lines - 1), np.int32(ITERS), np.int32(config["stride"]), np.int32(config["jitter"]))


def lines_touched(config) -> int:
    """Lines the launch's requests touch, counted per request (what the L2 serves)."""
    return GRID * BLOCK * ITERS


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench36.cubin"))
    f = mod.get_function("mb36_spaced")
    src = cp.random.random(8 << 18, dtype=cp.float32)          # 8 MB
    out = cp.zeros(GRID * BLOCK, dtype=cp.float32)

    def launch_for(config):
        return lambda: f((GRID,), (BLOCK,), arguments(config, src, out))
    results = time_configs(cp, CONFIGS, launch_for, reps)
    for r in results:
        r["lines_per_clock"] = lines_touched(r) / (r["event_us"] * 1e-6 * 1.98e9)
    return results


def measured() -> list:
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3, lts_requests=number(r["lts__t_requests.sum"]),
                 lts_sectors=number(r["lts__t_sectors.sum"]), dram=number(r["dram__bytes_read.sum"]),
                 clock=number(r["sm__cycles_elapsed.avg.per_second"]))
            for r in ncu_rows("microbench36_ncu.csv") if "mb36" in r.get("Kernel Name", "")]


def model():
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench36.cubin"))
    f = mod.get_function("mb36_spaced")
    out = ws.zeros(GRID * BLOCK, dtype=np.float32)

    events = json.load(open(os.path.join(HERE, "h200", "microbench36.json")))
    for config, e, m in zip(CONFIGS, events, measured()):
        # an array of just the lines the launch picks from, alone on the device: the model bounds the
        # bytes a launch reads by its allocations' (the device's run reads the first lines of one 512 MB array)
        src = ws.zeros(config["mb"] << 18, dtype=np.float32)
        args = pack_arguments(f.kernel_name, f.params, arguments(config, src, out))
        t = predict(f.loaded_module, f.kernel_name, (GRID,), (BLOCK,), args, 0, gpu="h200", max_ctas=4, warm_l2=True)
        del src
        us = t.time_s * 1e6
        rate = m["lts_requests"] / (m["us"] * 1e-6 * m["clock"])
        print(f"stride {config['stride']:2d} jitter {config['jitter']}: H200 {m['us']:7.1f} us under ncu "
              f"({rate:5.1f} L2 requests a clock; events {e['event_us']:7.1f} us), model {us:7.1f} us "
              f"({100 * (us / m['us'] - 1):+.0f}%)", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench36.json", model)
