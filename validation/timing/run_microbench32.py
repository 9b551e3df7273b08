"""Thirty-second batch of H200 microbenchmarks (microbench32.cu): CTA slots turning over. A chain of
n x 8 dependent FMAs a thread, CTAs of W warps, dynamic shared memory that holds K CTAs an SM, 16
waves of them.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench32.cubin microbench32.cu`):

    python3 run_microbench32.py --collect OUTDIR     # OUTDIR/microbench32.json: CUDA-event medians
    ncu ... python3 run_microbench32.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench32.py --model              # ncu's occupancy, active cycles and time beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
WAVES = 16
SHARED_PER_SM = 233472          # 228 KB an SM; each CTA also holds 1 KB
CONFIGS = [dict(warps=w, ctas_per_sm=k, n=n) for w in (2, 8) for k in (1, 2, 4, 8) for n in (0, 4, 16, 64)]


def shared_bytes(k: int) -> int:
    """Dynamic shared memory a CTA asks for so that K CTAs fit an SM and K + 1 do not."""
    return min(227 * 1024, (SHARED_PER_SM // k - 1024) // 128 * 128)


def geometry(config):
    return (SMS * config["ctas_per_sm"] * WAVES,), (32 * config["warps"],), shared_bytes(config["ctas_per_sm"])


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench32.cubin"))
    out = cp.zeros(SMS * 8 * WAVES, dtype=cp.float32)

    def launch_for(config):
        f = mod.get_function("mb32_chain")
        grid, block, shared = geometry(config)
        f.max_dynamic_shared_size_bytes = shared
        f.preferred_shared_memory_carveout = 100

        def launch():
            f(grid, block, (out, np.int32(config["n"])), shared_mem=shared)
        return launch
    return time_configs(cp, CONFIGS, launch_for, reps)


def measured() -> list:
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3, occupancy=number(r["sm__warps_active.avg.pct_of_peak_sustained_active"]),
                 active_cycles=number(r["sm__cycles_active.avg"]), elapsed_cycles=number(r["sm__cycles_elapsed.avg"]),
                 issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]))
            for r in ncu_rows("microbench32_ncu.csv")]


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench32.cubin"))
    out = ws.zeros(SMS * 8 * WAVES, dtype=np.float32)
    f = mod.get_function("mb32_chain")
    for config, m in zip(CONFIGS, measured()):
        grid, block, shared = geometry(config)
        args = pack_arguments(f.kernel_name, f.params, (out, np.int32(config["n"])))
        t = predict(f.loaded_module, f.kernel_name, grid, block, args, shared, gpu="h200", max_ctas=4)
        ctas = grid[0] / SMS
        slot = m["active_cycles"] * config["ctas_per_sm"] / ctas          # cycles a slot spends per CTA
        resident = m["occupancy"] / 100 * 64 * m["active_cycles"] / ctas / config["warps"]
        print(f"W{config['warps']} K{config['ctas_per_sm']} n{config['n']:3d}: {m['us']:7.1f} us, model "
              f"{t.time_s * 1e6:7.1f} ({100 * (t.time_s * 1e6 / m['us'] - 1):+.0f}%); occupancy {m['occupancy']:5.1f}, "
              f"model {t.achieved_occupancy:5.1f}; a slot per CTA {slot:6.0f} cycles, a warp resident {resident:6.0f}, "
              f"empty {slot - resident:5.0f}", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench32.json", model)
