"""Fortieth batch of H200 microbenchmarks (microbench40.cu): where a pipelined wgmma loop's warps wait.
A Triton-shaped K loop, one warpgroup a CTA, 1 or 2 CTAs an SM: 1 or 2 accumulators of m64n128 x 4
k-steps (4 or 8 wgmma.m64n128k16 a step), with or without a stage of cp.async copies, its wait and a
__syncthreads a step, and a wgmma wait letting P = 0 or 1 groups pend. Cold caches under ncu; the
copies read a 16 MB region over and over (L2 hits after the first pass).

On the device (after `nvcc -arch=sm_90a -cubin -o microbench40.cubin microbench40.cu`):

    python3 run_microbench40.py --collect OUTDIR     # OUTDIR/microbench40.json: CUDA-event medians
    ncu ... python3 run_microbench40.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench40.py --model              # ncu's stalls an issue beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import card, main, ncu_rows, number, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, ITERS = 132, 512
REGION = 1 << 20                 # uint4 elements the copies cycle over (16 MB)
FORMS = [(1, 0, 0), (1, 1, 0), (2, 0, 0), (2, 1, 0), (1, 1, 1), (2, 0, 1), (2, 1, 1)]
CONFIGS = [dict(accs=a, pending=p, copy=c, ctas_per_sm=k) for a, p, c in FORMS for k in (1, 2)]
STALLS = ("wait", "gmma", "barrier", "dispatch_stall", "selected", "not_selected", "math_pipe_throttle",
          "long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle", "no_instruction", "branch_resolving")
SOURCE_ROWS = (7, 9, 11, 13)     # a1 p1 c0 at 2 CTAs an SM, a2 p1 c0 at 2, a1 p1 c1 at 2, a2 p0 c1 at 2


def kernel_name(config) -> str:
    return f"mb40_a{config['accs']}_p{config['pending']}_c{config['copy']}"


def label(config) -> str:
    return f"{kernel_name(config)}, {config['ctas_per_sm']} CTA(s) an SM"


def tile_words():
    halves = (np.random.default_rng(40).random(20480 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    return halves.view(np.uint32)


def buffers(xp):
    return (xp.asarray(tile_words()), xp.zeros(REGION * 4, dtype=np.uint32), xp.zeros(2 * SMS, dtype=np.float32))


def arguments(config, words, src, sink):
    return words, src, sink, np.int32(ITERS), np.uint32(REGION - 1)


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench40.cubin"))
    words, src, sink = buffers(cp)
    return time_configs(cp, CONFIGS, lambda config: lambda: module.get_function(kernel_name(config))(
        (SMS * config["ctas_per_sm"],), (128,), arguments(config, words, src, sink)), reps)


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench40.cubin"))
    words, src, sink = buffers(ws)
    rows = ncu_rows("microbench40_ncu.csv")
    for config, r in zip(CONFIGS, rows):
        f = module.get_function(kernel_name(config))
        args = pack_arguments(f.kernel_name, f.params, arguments(config, words, src, sink))
        t = predict(f.loaded_module, f.kernel_name, (SMS * config["ctas_per_sm"],), (128,), args, 0, gpu=card(),
                    max_ctas=2)
        us = number(r["gpu__time_duration.sum"]) / 1e3
        stalls = {s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]) for s in STALLS}
        top = sorted(stalls.items(), key=lambda kv: -kv[1])[:4]
        mine = sorted(((k, v) for k, v in t.stalls.items() if v), key=lambda kv: -kv[1])[:4]
        print(f"{label(config)}: {us:7.1f} us, model {t.time_s * 1e6:7.1f} ({100 * (t.time_s * 1e6 / us - 1):+.0f}%); "
              "H200 " + ", ".join(f"{k} {v:.2f}" for k, v in top) + "; model " +
              ", ".join(f"{k} {v:.2f}" for k, v in mine), flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench40.json", model)
