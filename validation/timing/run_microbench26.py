"""Twenty-sixth batch of H200 microbenchmarks (microbench26.cu): the stall reason of a warp that reaches
its warpgroup's wgmma before the other three. Each group warp w first runs skew * w dependent FFMAs;
then the warpgroup's four wgmmas, their commit and a wait for them; with sync 1 a __syncthreads after
that, with sync 2 one before the wgmmas. One CTA (one warpgroup) an SM, or two.

On the device (after `nvcc -arch=sm_90a -cubin -o microbench26.cubin microbench26.cu`):

    python3 run_microbench26.py --collect OUTDIR     # OUTDIR/microbench26.json: CUDA-event medians
    ncu ... python3 run_microbench26.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench26.py --model              # ncu's stalls an issue beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
GROUPS = 400
CONFIGS = [dict(skew=skew, sync=sync, ctas_per_sm=c) for c in (1, 2) for sync in (0, 1, 2) for skew in (0, 4, 16, 64)]
STALLS = ("wait", "gmma", "barrier", "dispatch_stall", "selected", "not_selected", "math_pipe_throttle",
          "long_scoreboard", "short_scoreboard", "membar", "misc", "no_instruction", "branch_resolving")


def tile_words():
    halves = (np.random.default_rng(26).random(12288 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    return halves.view(np.uint32)


def arguments(config, words, sink):
    return (words, sink, np.int32(GROUPS), np.int32(config["skew"]), np.int32(config["sync"]))


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench26.cubin"))
    f = module.get_function("mb26_skew")
    words = cp.asarray(tile_words())
    sink = cp.zeros(2 * SMS, dtype=cp.float32)
    return time_configs(cp, CONFIGS, lambda config: lambda: f((SMS * config["ctas_per_sm"],), (128,),
                                                              arguments(config, words, sink)), reps)


def measured() -> list:
    """ncu's rows (h200/microbench26_ncu.csv), in CONFIGS order."""
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                 issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                 stalls={s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]) for s in STALLS})
            for r in ncu_rows("microbench26_ncu.csv")]


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench26.cubin"))
    f = module.get_function("mb26_skew")
    words = ws.asarray(tile_words())
    sink = ws.zeros(2 * SMS, dtype=np.float32)
    for config, m in zip(CONFIGS, measured()):
        args = pack_arguments(f.kernel_name, f.params, arguments(config, words, sink))
        t = predict(f.loaded_module, f.kernel_name, (SMS * config["ctas_per_sm"],), (128,), args, 0, gpu="h200",
                    max_ctas=2)
        top = sorted(m["stalls"].items(), key=lambda kv: -kv[1])[:4]
        mine = sorted(((k, v) for k, v in t.stalls.items() if v), key=lambda kv: -kv[1])[:4]
        print(f"skew {config['skew']:3d} sync {config['sync']} ctas/SM {config['ctas_per_sm']}: {m['us']:7.1f} us, "
              f"model {t.time_s * 1e6:7.1f}; H200 " + ", ".join(f"{k} {v:.2f}" for k, v in top) +
              "; model " + ", ".join(f"{k} {v:.2f}" for k, v in mine), flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench26.json", model)
