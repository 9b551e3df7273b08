"""Thirty-third batch of H200 microbenchmarks (microbench33.cu): warps that wait for memory, and their
stores at exit. A chain of `loads` dependent coalesced loads a thread (1, 4 or 16), then a store of
the last value or none, CTAs of W warps, dynamic shared memory that holds K CTAs an SM, 16 waves.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench33.cubin microbench33.cu`):

    python3 run_microbench33.py --collect OUTDIR     # OUTDIR/microbench33.json: CUDA-event medians
    ncu ... python3 run_microbench33.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench33.py --model              # ncu's occupancy and time beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs
from run_microbench32 import SMS, WAVES, shared_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [dict(warps=w, ctas_per_sm=k, loads=n, store=s)
           for w in (2, 8) for k in (2, 8) for n in (1, 4, 16) for s in (0, 1)]
MOST_THREADS = SMS * 8 * WAVES * 256          # the largest grid's threads (8 CTAs of 8 warps an SM)


def geometry(config):
    return (SMS * config["ctas_per_sm"] * WAVES,), (32 * config["warps"],), shared_bytes(config["ctas_per_sm"])


def chain(threads: int, loads: int) -> np.ndarray:
    """next[]: element i leads to i + threads (the same lane, `threads` floats on), wrapping."""
    size = threads * max(1, loads)
    return ((np.arange(size, dtype=np.int64) + threads) % size).astype(np.uint32)


def arguments(xp, config, cache):
    grid, block, _ = geometry(config)
    threads = grid[0] * block[0]
    key = (threads, config["loads"])
    if key not in cache:
        cache[key] = xp.asarray(chain(threads, config["loads"]))
    return cache[key], threads


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench33.cubin"))
    out = cp.zeros(MOST_THREADS, dtype=cp.uint32)
    flush = cp.zeros(64 << 20, dtype=cp.float32)
    cache = {}

    def launch_for(config):
        f = mod.get_function("mb33_chase")
        grid, block, shared = geometry(config)
        f.max_dynamic_shared_size_bytes = shared
        f.preferred_shared_memory_carveout = 100
        nxt, _ = arguments(cp, config, cache)

        def launch():
            flush.fill(1.0)
            f(grid, block, (nxt, out, np.int32(config["loads"]), np.int32(config["store"])), shared_mem=shared)
        return launch
    return time_configs(cp, CONFIGS, launch_for, reps)


def measured() -> list:
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3, occupancy=number(r["sm__warps_active.avg.pct_of_peak_sustained_active"]),
                 active_cycles=number(r["sm__cycles_active.avg"]), issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                 drain=number(r["smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"]),
                 long_scoreboard=number(r["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"]))
            for r in ncu_rows("microbench33_ncu.csv") if "mb33" in r.get("Kernel Name", "")]


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench33.cubin"))
    out = ws.zeros(MOST_THREADS, dtype=np.uint32)
    f = mod.get_function("mb33_chase")
    cache = {}
    for config, m in zip(CONFIGS, measured()):
        grid, block, shared = geometry(config)
        nxt, threads = arguments(ws, config, cache)
        args = pack_arguments(f.kernel_name, f.params, (nxt, out, np.int32(config["loads"]), np.int32(config["store"])))
        t = predict(f.loaded_module, f.kernel_name, grid, block, args, shared, gpu="h200", max_ctas=4)
        ctas = grid[0] / SMS
        resident = m["occupancy"] / 100 * 64 * m["active_cycles"] / ctas / config["warps"]
        print(f"W{config['warps']} K{config['ctas_per_sm']} loads {config['loads']:2d} store {config['store']}: "
              f"{m['us']:7.1f} us, model {t.time_s * 1e6:7.1f} ({100 * (t.time_s * 1e6 / m['us'] - 1):+.0f}%); occupancy "
              f"{m['occupancy']:5.1f}, model {t.achieved_occupancy:5.1f}; a warp resident {resident:6.0f} cycles; "
              f"drain {m['drain']:.2f}, long_scoreboard {m['long_scoreboard']:.2f}", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench33.json", model)
