"""Twenty-eighth batch of H200 microbenchmarks (microbench28.cu): how a warpgroup's wgmmas queue at the
tensor core and what ncu calls the wait, by how many wgmmas a group holds (N), how many groups its
wait lets pend (P), the wgmma's width (n128, n256) and how many warpgroups share an SM (1, 2 or 4
CTAs of one warpgroup). Every launch runs 2048 wgmmas a warpgroup (2048 / N groups).

On the device (after `nvcc -arch=sm_90a -cubin -o microbench28.cubin microbench28.cu`):

    python3 run_microbench28.py --collect OUTDIR     # OUTDIR/microbench28.json: CUDA-event medians
    ncu ... python3 run_microbench28.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench28.py --model              # ncu's stalls an issue beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
WGMMAS = 2048
FORMS = [(128, 1, 0), (128, 2, 0), (128, 4, 0), (128, 8, 0), (128, 16, 0), (128, 2, 1), (128, 4, 1), (128, 8, 1),
         (256, 2, 0), (256, 4, 0), (256, 8, 0), (256, 2, 1), (256, 4, 1)]
CONFIGS = [dict(width=w, n=n, pending=p, ctas_per_sm=c) for w, n, p in FORMS for c in ((1, 2, 4) if w == 128 else (1, 2))]
STALLS = ("wait", "gmma", "barrier", "dispatch_stall", "selected", "not_selected", "math_pipe_throttle",
          "long_scoreboard", "short_scoreboard", "mio_throttle", "misc", "no_instruction", "branch_resolving")


def kernel_name(config) -> str:
    return f"mb28_w{config['width']}_n{config['n']}_p{config['pending']}"


def tile_words():
    halves = (np.random.default_rng(28).random(20480 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    return halves.view(np.uint32)


def arguments(config, words, sink):
    return (words, sink, np.int32(WGMMAS // config["n"]))


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench28.cubin"))
    words = cp.asarray(tile_words())
    sink = cp.zeros(4 * SMS, dtype=cp.float32)
    return time_configs(cp, CONFIGS, lambda config: lambda: module.get_function(kernel_name(config))(
        (SMS * config["ctas_per_sm"],), (128,), arguments(config, words, sink)), reps)


def measured() -> list:
    """ncu's rows (h200/microbench28_ncu.csv), in CONFIGS order."""
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                 issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                 stalls={s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]) for s in STALLS})
            for r in ncu_rows("microbench28_ncu.csv")]


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench28.cubin"))
    words = ws.asarray(tile_words())
    sink = ws.zeros(4 * SMS, dtype=np.float32)
    for config, m in zip(CONFIGS, measured()):
        f = module.get_function(kernel_name(config))
        args = pack_arguments(f.kernel_name, f.params, arguments(config, words, sink))
        t = predict(f.loaded_module, f.kernel_name, (SMS * config["ctas_per_sm"],), (128,), args, 0, gpu="h200",
                    max_ctas=2)
        top = sorted(m["stalls"].items(), key=lambda kv: -kv[1])[:4]
        mine = sorted(((k, v) for k, v in t.stalls.items() if v), key=lambda kv: -kv[1])[:4]
        print(f"{kernel_name(config)} ctas/SM {config['ctas_per_sm']}: {m['us']:7.1f} us, model {t.time_s * 1e6:7.1f} "
              f"({100 * (t.time_s * 1e6 / m['us'] - 1):+.0f}%); H200 " + ", ".join(f"{k} {v:.2f}" for k, v in top) +
              "; model " + ", ".join(f"{k} {v:.2f}" for k, v in mine), flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench28.json", model)
