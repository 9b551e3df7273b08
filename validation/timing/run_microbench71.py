"""Seventy-first batch of microbenchmarks (microbench71.cu): how an attention loop's parts overlap. One or
two warpgroups a CTA, one or two CTAs an SM, `ITERS` steps of a flash-attention forward's inner loop at head
dim 64 and 64 keys a step: S = Q K^T (four wgmma.m64n64k16 from shared memory, waited for); with the
online softmax on S or without; with O += P V (four wgmma.m64n64k16, A from registers, waited for) or
without; with a stage of cp.async copies from an L2-resident region, a wait and a __syncthreads a step, or
without. The question: which of the parts' times add and which overlap across a CTA's warpgroups and an
SM's CTAs, beside the model's.

    python3 run_microbench71.py --collect OUTDIR | --once | --predict FILE | --model | --rounds
"""

from __future__ import annotations


import numpy as np

from microbench_runner import card, cubin_launch_of, main_for_cubin, ncu_rows, number, predicted

SMS, ITERS = 132, 256
REGION = 1 << 20                 # uint4 elements the copies cycle over (16 MB)
FORMS = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (1, 1, 1)]     # (softmax, pv, copy)
CONFIGS = [dict(warpgroups=w, softmax=s, pv=p, copy=c, ctas_per_sm=1) for w in (1, 2) for s, p, c in FORMS] + \
    [dict(warpgroups=1, softmax=1, pv=1, copy=c, ctas_per_sm=2) for c in (0, 1)]


def kernel_name(config) -> str:
    return f"mb71_s{config['softmax']}_p{config['pv']}_c{config['copy']}"


def label(config) -> str:
    parts = "QK" + (" softmax" if config["softmax"] else "") + (" PV" if config["pv"] else "") + \
        (" copies" if config["copy"] else "")
    return f"{config['warpgroups']} warpgroup(s), {config['ctas_per_sm']} CTA(s) an SM: {parts}"


def shape(config) -> tuple:
    return (SMS * config["ctas_per_sm"],), (128 * config["warpgroups"],), 0


def buffers_and_arguments(xp, config) -> tuple:
    halves = (np.random.default_rng(71).random(20480 // 2, dtype=np.float32) * 0.5).astype(np.float16)
    return (xp.asarray(halves.view(np.uint32)), xp.zeros(REGION * 4, dtype=np.uint32),
            xp.zeros(2 * SMS, dtype=np.float32), np.int32(ITERS), np.uint32(REGION - 1))


def rounds() -> None:
    """SM cycles a step of each configuration (ncu's duration at its SM clock over the steps), its warp
    instructions a step an SM and the top stall reasons, beside the model's."""
    launch_of = cubin_launch_of("microbench71", shape, buffers_and_arguments, kernel_name)
    stalls = ("wait", "barrier", "long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle",
              "dispatch_stall", "not_selected")
    for config, r in zip(CONFIGS, ncu_rows("microbench71_ncu.csv")):
        cycles = number(r["gpu__time_duration.sum"]) * 1e-9 * number(r["sm__cycles_elapsed.avg.per_second"]) / ITERS
        t, = predicted(launch_of, config, (card(),), max_ctas=2)
        measured = sorted(((s, number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]))
                           for s in stalls), key=lambda kv: -kv[1])[:3]
        mine = sorted(((s, t.stalls.get(s, 0.0)) for s in stalls), key=lambda kv: -kv[1])[:3]
        print(f"{label(config):52s} {cycles:7.1f} cycles a step (model {t.cycles / ITERS:7.1f}); ncu "
              + ", ".join(f"{s} {v:.2f}" for s, v in measured) + "; model "
              + ", ".join(f"{s} {v:.2f}" for s, v in mine))


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench71", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   readers={"--rounds": rounds})
