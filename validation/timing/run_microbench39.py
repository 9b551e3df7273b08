"""Thirty-ninth batch of H200 microbenchmarks (microbench39.cu): the packed 16-bit pipes, and shared loads
by width and pattern.
(1) HFMA2, HADD2, HMUL2 (f16x2) and HFMA2.BF16 (bf16x2), FFMA beside them: C = 1 or 8 independent chains
a thread, 4, 16 or 64 warps an SM (132 x 1, 4 or 16 CTAs of 128 threads). ptxas splits a thread's packed
chains between HFMA2.MMA and the plain form; the rows say each mix's issue interval (C = 8) and latency
(C = 1, 4 warps an SM). (2) Shared loads of 4, 8 and 16 bytes, a warp reading one element or each lane
its own, 8 a step, 64 warps an SM (132 x 2 CTAs of 1,024): the SM's cycles per load against the
wavefronts ncu counts.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench39.cubin microbench39.cu`):

    python3 run_microbench39.py --collect OUTDIR     # OUTDIR/microbench39.json: CUDA-event medians
    ncu ... python3 run_microbench39.py --once
Here:
    python3 run_microbench39.py --model              # the H200's rows under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import card, main, ncu_rows, number, recording, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, BLOCK, STEPS = 132, 128, 4096
OPS = ("hfma2", "hadd2", "hmul2", "bfma2", "ffma")
SHARED_LOADS = ("w4_bcast", "w4_distinct", "w8_bcast", "w8_distinct", "w16_bcast", "w16_distinct")
SHARED_BLOCK, SHARED_STEPS = 1024, 256
CONFIGS = [dict(op=op, chains=c, per_sm=k) for op in OPS for c in (1, 8) for k in (1, 4, 16)] + \
    [dict(op="lds_" + load, chains=8, per_sm=2) for load in SHARED_LOADS]


def label(config) -> str:
    if config["op"].startswith("lds"):
        return f"{config['op']:16s} 64 warps an SM"
    return f"{config['op']:5s} x{config['chains']} chains, {4 * config['per_sm']:2d} warps an SM"


def name_of(config) -> str:
    return f"mb39_{config['op']}" if config["op"].startswith("lds") else f"mb39_{config['op']}_c{config['chains']}"


def shape(config) -> tuple:
    """(grid, block) of a configuration's launch."""
    block = SHARED_BLOCK if config["op"].startswith("lds") else BLOCK
    return SMS * config["per_sm"], block


def buffers(xp, config):
    """The inputs (m, k, then 64 starting values) and the output, as 32-bit words (a packed pair or a float)."""
    grid, block = shape(config)
    n = grid * block
    if config["op"].startswith("lds"):
        return None, xp.zeros(n, dtype=np.float32)
    if config["op"] == "ffma":
        start = np.concatenate(([0.999, 0.001], np.linspace(0.5, 1.5, 64))).astype(np.float32)
        return xp.asarray(start), xp.zeros(n, dtype=np.float32)
    pairs = np.concatenate(([0.999, 0.001], np.linspace(0.5, 1.5, 64))).astype(np.float32)
    if config["op"] == "bfma2":
        halves = (pairs.view(np.uint32) >> 16).astype(np.uint16)        # bf16: the float's high half
    else:
        halves = pairs.astype(np.float16).view(np.uint16)
    words = halves.astype(np.uint32) * 0x10001                           # the same value in both halves
    return xp.asarray(words), xp.zeros(n, dtype=np.uint32)


def arguments(config, src, out) -> tuple:
    if config["op"].startswith("lds"):
        return out, np.int32(SHARED_STEPS)
    return out, src, np.int32(STEPS)


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench39.cubin"))

    def launch_for(config):
        f = mod.get_function(name_of(config))
        src, out = buffers(cp, config)
        grid, block = shape(config)
        return lambda: f((grid,), (block,), arguments(config, src, out))
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench39.cubin"))
    events = json.load(open(recording("microbench39.json")))
    rows = [r for r in ncu_rows("microbench39_ncu.csv") if "mb39" in r.get("Kernel Name", "")]
    errors = []
    for config, e, m in zip(CONFIGS, events, rows):
        f = mod.get_function(name_of(config))
        src, out = buffers(ws, config)
        args = pack_arguments(f.kernel_name, f.params, arguments(config, src, out))
        grid, block = shape(config)
        t = predict(f.loaded_module, f.kernel_name, (grid,), (block,), args, 0, gpu=card(), max_ctas=4)
        h200, us = number(m["gpu__time_duration.sum"]) / 1e3, t.time_s * 1e6
        errors.append(us / h200 - 1)
        clock = number(m["sm__cycles_elapsed.avg.per_second"])
        cycles = (h200 - 2.0) * 1e-6 * clock * SMS          # SM cycles, all SMs
        if config["op"].startswith("lds"):
            loads = number(m["smsp__inst_executed_op_shared_ld.sum"])
            waves = number(m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"])
            what = f"{cycles / loads:5.2f} SM cycles a shared load, {waves / loads:4.2f} wavefronts"
        else:
            what = f"{cycles * 4 / number(m['smsp__inst_executed.sum']):5.2f} cycles a sub-partition an instruction"
        print(f"{label(config)}: H200 {h200:8.1f} us ({what}, issue "
              f"active {number(m['smsp__issue_active.avg.pct_of_peak_sustained_active']):5.1f}%; events "
              f"{e['event_us']:8.1f}), model {us:8.1f} us ({100 * errors[-1]:+4.0f}%, issue active "
              f"{t.issue_active:5.1f}%, {t.bottleneck})", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


if __name__ == "__main__":
    main(__doc__, run, "microbench39.json", model)
