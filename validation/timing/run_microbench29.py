"""Twenty-ninth batch of H200 microbenchmarks (microbench29.cu): (1) a warp's other instructions issued
while its warpgroup's wgmmas run (X of one kind between a group's commit and its wait; 1 or 2 CTAs of
one warpgroup an SM), and (2) FMA chains after a CTA's only barrier against chains with a barrier
every round (eight CTAs of eight warps an SM).

On the device (after `nvcc -arch=sm_90a -cubin -o microbench29.cubin microbench29.cu`):

    python3 run_microbench29.py --collect OUTDIR     # OUTDIR/microbench29.json: CUDA-event medians
    ncu ... python3 run_microbench29.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench29.py --model              # ncu's stalls an issue beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
GROUPS = 512
ROUNDS = 4096
FILLERS = [("add", 0), ("add", 64), ("add", 128), ("add", 256), ("add", 512), ("imad", 64), ("imad", 128),
           ("imad", 256), ("imad", 512), ("ffma", 64), ("ffma", 128), ("ffma", 256), ("ffma", 512), ("sel", 64),
           ("sel", 128), ("sel", 256)]
CONFIGS = [dict(kind=k, x=x, ctas_per_sm=c) for k, x in FILLERS for c in (1, 2)] + \
          [dict(kind=k, x=0, ctas_per_sm=8) for k in ("chains_once", "chains_every")]
STALLS = ("wait", "gmma", "barrier", "dispatch_stall", "selected", "not_selected", "math_pipe_throttle",
          "long_scoreboard", "short_scoreboard", "mio_throttle", "misc", "no_instruction", "branch_resolving")


def kernel_name(config) -> str:
    return f"mb29_{config['kind']}" if config["kind"].startswith("chains") else f"mb29_{config['kind']}_x{config['x']}"


def block_of(config) -> int:
    return 256 if config["kind"].startswith("chains") else 128


def inputs(ws):
    """(tile words, sink, chain input, chain output) as device arrays of `ws` (cupy or warpsim)."""
    halves = (np.random.default_rng(29).random(12288 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    chains = np.random.default_rng(30).random(SMS * 8 * 256, dtype=np.float32)
    return (ws.asarray(halves.view(np.uint32)), ws.zeros(2 * SMS, dtype=np.float32), ws.asarray(chains),
            ws.zeros(SMS * 8 * 256, dtype=np.float32))


def arguments(config, data):
    words, sink, chains, out = data
    if config["kind"].startswith("chains"):
        return (out, chains, np.int32(ROUNDS))
    return (words, sink, np.int32(GROUPS))


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench29.cubin"))
    data = inputs(cp)
    return time_configs(cp, CONFIGS, lambda config: lambda: module.get_function(kernel_name(config))(
        (SMS * config["ctas_per_sm"],), (block_of(config),), arguments(config, data)), reps)


def measured() -> list:
    """ncu's rows (h200/microbench29_ncu.csv), in CONFIGS order."""
    return [dict(us=number(r["gpu__time_duration.sum"]) / 1e3,
                 issue=number(r["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                 stalls={s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]) for s in STALLS})
            for r in ncu_rows("microbench29_ncu.csv")]


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench29.cubin"))
    data = inputs(ws)
    for config, m in zip(CONFIGS, measured()):
        f = module.get_function(kernel_name(config))
        args = pack_arguments(f.kernel_name, f.params, arguments(config, data))
        t = predict(f.loaded_module, f.kernel_name, (SMS * config["ctas_per_sm"],), (block_of(config),), args, 0,
                    gpu="h200", max_ctas=2)
        top = sorted(m["stalls"].items(), key=lambda kv: -kv[1])[:4]
        mine = sorted(((k, v) for k, v in t.stalls.items() if v), key=lambda kv: -kv[1])[:4]
        print(f"{kernel_name(config)} ctas/SM {config['ctas_per_sm']}: {m['us']:7.1f} us, model {t.time_s * 1e6:7.1f} "
              f"({100 * (t.time_s * 1e6 / m['us'] - 1):+.0f}%), issue {m['issue']:.1f}/{t.issue_active:.1f}; H200 " +
              ", ".join(f"{k} {v:.2f}" for k, v in top) + "; model " + ", ".join(f"{k} {v:.2f}" for k, v in mine),
              flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench29.json", model)
