"""Twenty-seventh batch of H200 microbenchmarks (microbench27.cu): the cost of a CTA barrier's arrivals,
the SM's or the CTA's. k CTAs of W warps an SM (a grid of 132 k CTAs; k W at most 64), each thread
running `iters` rounds of one FFMA and a __syncthreads.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench27.cubin microbench27.cu`):

    python3 run_microbench27.py --collect OUTDIR     # OUTDIR/microbench27.json: CUDA-event medians
    ncu ... python3 run_microbench27.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench27.py --model              # ncu's time beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
ITERS = 4096
CONFIGS = [dict(ctas_per_sm=k, warps=w) for w in (2, 4, 8, 16, 32) for k in (1, 2, 4, 8, 16) if k * w <= 64]


def run(reps=5):
    import cupy as cp
    f = cp.RawModule(path=os.path.join(HERE, "microbench27.cubin")).get_function("mb27_bar")
    out = cp.zeros(16 * SMS * 1024, dtype=cp.float32)
    return time_configs(cp, CONFIGS, lambda config: lambda: f((SMS * config["ctas_per_sm"],), (32 * config["warps"],),
                                                              (out, np.int32(ITERS))), reps)


def measured() -> list:
    """ncu's rows (h200/microbench27_ncu.csv), in CONFIGS order: time (us) and SM clock (GHz)."""
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                 ghz=number(r["sm__cycles_elapsed.avg.per_second"]) / 1e9,
                 barrier=number(r["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"]))
            for r in ncu_rows("microbench27_ncu.csv")]


def model():
    """ncu's time beside the model's, with the SM's barrier unit (presets' barrier_arrival_cycles) and
    without it (the CTAs' barriers apart)."""
    from dataclasses import replace

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import gpu_preset, predict
    f = ws.RawModule(path=os.path.join(HERE, "microbench27.cubin")).get_function("mb27_bar")
    out = ws.zeros(16 * SMS * 1024, dtype=np.float32)
    presets = {"with": gpu_preset("h200"), "without": replace(gpu_preset("h200"), barrier_arrival_cycles=0.0)}
    errors = {rule: [] for rule in presets}
    for config, m in zip(CONFIGS, measured()):
        args = pack_arguments(f.kernel_name, f.params, (out, np.int32(ITERS)))
        t = {rule: predict(f.loaded_module, f.kernel_name, (SMS * config["ctas_per_sm"],), (32 * config["warps"],),
                           args, 0, gpu=preset, max_ctas=2) for rule, preset in presets.items()}
        for rule in presets:
            errors[rule].append(t[rule].time_s * 1e6 / m["us"] - 1)
        per_round = m["us"] * 1e-6 * m["ghz"] * 1e9 / ITERS
        print(f"{config['ctas_per_sm']:2d} CTAs of {config['warps']:2d} warps an SM ({config['ctas_per_sm'] * config['warps']:2d} "
              f"warps): {m['us']:7.1f} us, {per_round:6.1f} cycles a round; model {t['with'].time_s * 1e6:7.1f} "
              f"({errors['with'][-1]:+.0%}), without the SM's barrier unit {t['without'].time_s * 1e6:7.1f} "
              f"({errors['without'][-1]:+.0%}); barrier {m['barrier']:5.1f} / {t['with'].stalls.get('barrier', 0):5.1f} "
              "(H200 / model)", flush=True)
    for rule, e in errors.items():
        print(f"{rule} the SM's barrier unit: mean |error| {np.mean(np.abs(e)):.1%}")


if __name__ == "__main__":
    main(__doc__, run, "microbench27.json", model)
