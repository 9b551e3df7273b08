"""Twenty-fifth batch of H200 microbenchmarks (microbench25.cu): register-bank conflicts. FMA chains
over K values in registers (ptxas keeps the chain in one register at some K, so that every value in
an odd register reads two odd sources, and alternates an even and an odd one at others), and pairs
of chains whose second FFMA reads three registers; each at 1, 2 and as many warps a sub-partition as
the registers allow.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench25.cubin microbench25.cu`):

    python3 run_microbench25.py --collect OUTDIR     # OUTDIR/microbench25.json: CUDA-event medians
    ncu --clock-control none --csv --page raw --kernel-name regex:mb25 --metrics ... \\
        python3 run_microbench25.py --once           # one launch of each, in CONFIGS order
Here:
    python3 run_microbench25.py --model              # ncu beside the timing model, with and without
                                                     # the register banks (warpsim/timing/register_banks.py)
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
FMAS = 16384                # FFMAs a thread
CHAINS = (8, 24, 32, 40, 48, 56, 64, 72, 80, 96)
PAIRS = (16, 32, 64, 96)
# (grid, block): one warp a sub-partition, two, and 16 CTAs an SM asked for (registers decide)
SHAPES = ((SMS, 128), (SMS, 256), (16 * SMS, 128))
CONFIGS = [dict(kernel=f"mb25_chain_{k}", k=k, fmas_per_k=1, grid=g, block=b) for k in CHAINS for g, b in SHAPES] + \
          [dict(kernel=f"mb25_pair_{k}", k=k, fmas_per_k=2, grid=g, block=b) for k in PAIRS for g, b in SHAPES]
STALLS = ("dispatch_stall", "wait", "not_selected", "selected", "long_scoreboard", "math_pipe_throttle")


def arguments(config, out, x):
    return (out, x, np.int32(FMAS // (config["k"] * config["fmas_per_k"])))


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench25.cubin"))
    x = cp.random.random(65536, dtype=cp.float32) * 0.5 + 0.5
    out = cp.zeros(16 * SMS * 256, dtype=cp.float32)

    def launch_for(config):
        f = module.get_function(config["kernel"])
        return lambda: f((config["grid"],), (config["block"],), arguments(config, out, x))
    return time_configs(cp, CONFIGS, launch_for, reps)


def measured() -> list:
    """ncu's rows (h200/microbench25_ncu.csv), in CONFIGS order."""
    got = []
    for r in ncu_rows("microbench25_ncu.csv"):
        got.append(dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                        issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                        occupancy=number(r["sm__warps_active.avg.pct_of_peak_sustained_active"]),
                        stalls={s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"])
                                for s in STALLS}))
    return got


def model():
    import warpsim as ws
    import warpsim.timing.model as timing_model
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    from warpsim.timing.register_banks import BANKS, bank_reads
    module = ws.RawModule(path=os.path.join(HERE, "microbench25.cubin"))
    x = ws.asarray(np.random.default_rng(25).random(65536, dtype=np.float32) * 0.5 + 0.5)
    out = ws.zeros(16 * SMS * 256, dtype=np.float32)
    errors = {"with": [], "without": []}
    for config, m in zip(CONFIGS, measured()):
        f = module.get_function(config["kernel"])
        args = pack_arguments(f.kernel_name, f.params, arguments(config, out, x))
        times = {}
        for rule in ("with", "without"):
            timing_model.bank_reads = bank_reads if rule == "with" else \
                (lambda instructions, pipes: np.zeros((len(instructions), BANKS)))
            times[rule] = predict(f.loaded_module, f.kernel_name, (config["grid"],), (config["block"],), args, 0,
                                  gpu="h200", max_ctas=4)
            errors[rule].append(times[rule].time_s * 1e6 / m["us"] - 1)
        timing_model.bank_reads = bank_reads
        t = times["with"]
        print(f"{config['kernel']:14s} {config['grid']:5d}x{config['block']:3d}: {m['us']:7.1f} us, model "
              f"{t.time_s * 1e6:7.1f} ({errors['with'][-1]:+.0%}), without the banks "
              f"{times['without'].time_s * 1e6:7.1f} ({errors['without'][-1]:+.0%}); issue {m['issue']:4.1f} / "
              f"{t.issue_active:4.1f}; dispatch_stall {m['stalls']['dispatch_stall']:4.2f} / "
              f"{t.stalls.get('dispatch_stall', 0):4.2f}, wait {m['stalls']['wait']:4.2f} / {t.stalls.get('wait', 0):4.2f}"
              " (H200 / model)", flush=True)
    for rule, e in errors.items():
        print(f"{rule} the register banks: mean |error| {np.mean(np.abs(e)):.1%}, within 10% {np.mean(np.abs(e) < 0.1):.0%}")


if __name__ == "__main__":
    main(__doc__, run, "microbench25.json", model)
