"""Thirty-fourth batch of H200 microbenchmarks (microbench34.cu): whether a warpgroup's wgmmas slow the
other warps of their sub-partitions. Two warpgroups a CTA: one issues groups of four wgmmas and waits
for each, the other issues X independent instructions of one kind a group; each alone and both.

On the device (after `nvcc -arch=sm_90a -cubin -o microbench34.cubin microbench34.cu`):

    python3 run_microbench34.py --collect OUTDIR     # OUTDIR/microbench34.json: CUDA-event medians
    ncu ... python3 run_microbench34.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench34.py --model              # the H200's times and stalls beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
GROUPS = 512
FILLERS = [(k, x) for k in ("add", "imad", "ffma", "sel") for x in (128, 512)]
CONFIGS = [dict(kind="mma", x=0, mode=0, ctas_per_sm=c) for c in (1, 2)] + \
          [dict(kind=k, x=x, mode=m, ctas_per_sm=1) for k, x in FILLERS for m in (1, 2)] + \
          [dict(kind=k, x=x, mode=2, ctas_per_sm=2) for k, x in FILLERS]
STALLS = ("wait", "gmma", "barrier", "dispatch_stall", "selected", "not_selected", "math_pipe_throttle",
          "long_scoreboard", "short_scoreboard", "mio_throttle", "misc", "no_instruction", "branch_resolving")


def kernel_name(config) -> str:
    return f"mb34_{config['kind']}_x{config['x']}_m{config['mode']}"


def inputs(ws):
    """(tile words, sink) as device arrays of `ws` (cupy or warpsim)."""
    halves = (np.random.default_rng(34).random(12288 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    return ws.asarray(halves.view(np.uint32)), ws.zeros(2 * SMS, dtype=np.float32)


def arguments(config, data):
    words, sink = data
    return (words, sink, np.int32(GROUPS))


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench34.cubin"))
    data = inputs(cp)
    return time_configs(cp, CONFIGS, lambda config: lambda: module.get_function(kernel_name(config))(
        (SMS * config["ctas_per_sm"],), (256,), arguments(config, data)), reps)


def measured() -> list:
    """ncu's rows (h200/microbench34_ncu.csv), in CONFIGS order."""
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                 issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                 stalls={s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]) for s in STALLS})
            for r in ncu_rows("microbench34_ncu.csv")]


def model():
    """Each configuration's H200 time beside the model's; for mode 2, also the two alone's sum and max."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench34.cubin"))
    data = inputs(ws)
    alone = {}
    for config, m in zip(CONFIGS, measured()):
        f = module.get_function(kernel_name(config))
        args = pack_arguments(f.kernel_name, f.params, arguments(config, data))
        t = predict(f.loaded_module, f.kernel_name, (SMS * config["ctas_per_sm"],), (256,), args, 0,
                    gpu="h200", max_ctas=2)
        key = (config["kind"], config["x"], config["ctas_per_sm"])
        if config["mode"] != 2:
            alone[(config["mode"], config["ctas_per_sm"]) if config["mode"] == 0 else key] = m["us"]
        both = ""
        if config["mode"] == 2 and key in alone and (0, config["ctas_per_sm"]) in alone:
            a, b = alone[(0, config["ctas_per_sm"])], alone[key]
            both = f" [alone: wgmmas {a:.1f}, fillers {b:.1f}; sum {a + b:.1f}, max {max(a, b):.1f}]"
        top = sorted(m["stalls"].items(), key=lambda kv: -kv[1])[:4]
        mine = sorted(((k, v) for k, v in t.stalls.items() if v), key=lambda kv: -kv[1])[:4]
        print(f"{kernel_name(config)} ctas/SM {config['ctas_per_sm']}: {m['us']:7.1f} us, model {t.time_s * 1e6:7.1f} "
              f"({100 * (t.time_s * 1e6 / m['us'] - 1):+.0f}%){both}, issue {m['issue']:.1f}/{t.issue_active:.1f}; "
              "H200 " + ", ".join(f"{k} {v:.2f}" for k, v in top) + "; model " +
              ", ".join(f"{k} {v:.2f}" for k, v in mine), flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench34.json", model)
