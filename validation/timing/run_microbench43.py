"""Forty-third batch of H200 microbenchmarks (microbench43.cu): the issue cost of address and select
arithmetic (IMAD.WIDE, 64-bit shifted adds, LEA, ISETP/SEL, FSETP), f64 conversions, SHFL and IDP.4A,
in the forty-second batch's setting.
Each kernel runs eight independent chains of one operation a thread, 64 warps an SM (132 x 16 CTAs of
128 threads), so a pipe's throughput bounds it; the SM's cycles over the opcode's warp instructions
per sub-partition are its cycles an instruction (where the chain needs a second instruction, the row
names both opcodes and their counts). ncu's pipe figures (InstructionStats, ComputeWorkloadAnalysis)
say which pipe ncu counts each in.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench43.cubin microbench43.cu`):

    python3 run_microbench43.py --collect OUTDIR     # OUTDIR/microbench43.json: CUDA-event medians
    ncu ... python3 run_microbench43.py --once
Here:
    python3 run_microbench43.py --model              # the rows under ncu beside the model's
"""

from __future__ import annotations

import collections
import os

import numpy as np

from microbench_runner import card, main, ncu_rows, number, recording, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, CTAS_PER_SM, BLOCK, STEPS = 132, 16, 128, 1024
UINT = ("lea", "isetp_sel", "shfl", "dp4a", "i2f64")
LONG = ("imad_wide", "add64")
FLOAT = ("fsetp_fsel",)
CONFIGS = [dict(op=op) for op in LONG + UINT + FLOAT]


def label(config) -> str:
    return config["op"]


def dtype_of(op: str) -> str:
    return "float" if op in FLOAT else "long" if op in LONG else "uint"


def buffers(xp, config):
    n = SMS * CTAS_PER_SM * BLOCK
    width = 8 if dtype_of(config["op"]) == "long" else 4
    return xp.zeros(n * width, dtype=np.uint8)


def arguments(config, out) -> tuple:
    if dtype_of(config["op"]) == "float":
        return out, np.float32(0.99), np.float32(0.01), np.int32(STEPS)
    return out, np.uint32(0x9E3779B1), np.uint32(12345), np.int32(STEPS)


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench43.cubin"))

    def launch_for(config):
        f = mod.get_function("mb43_" + config["op"])
        out = buffers(cp, config)
        return lambda: f((SMS * CTAS_PER_SM,), (BLOCK,), arguments(config, out))
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict, record_execution
    mod = ws.RawModule(path=os.path.join(HERE, "microbench43.cubin"))
    events = json.load(open(recording("microbench43.json")))
    rows = [r for r in ncu_rows("microbench43_ncu.csv") if "mb43" in r.get("Kernel Name", "")]
    errors = []
    for config, e, m in zip(CONFIGS, events, rows):
        f = mod.get_function("mb43_" + config["op"])
        out = buffers(ws, config)
        args = pack_arguments(f.kernel_name, f.params, arguments(config, out))
        grid, block = (SMS * CTAS_PER_SM,), (BLOCK,)
        ex = record_execution(f.loaded_module, f.kernel_name, grid, block, args, 0, max_ctas=8)
        counts = collections.Counter()
        for c in ex.counts:
            for ins, n in zip(ex.function.instructions, c.sum(axis=0)):
                counts[ins.opcode] += n * ex.scale
        t = predict(f.loaded_module, f.kernel_name, grid, block, args, 0, gpu=card(), max_ctas=8)
        us, measured = t.time_s * 1e6, number(m["gpu__time_duration.sum"]) / 1e3
        errors.append(us / measured - 1)
        cycles = number(m["sm__cycles_elapsed.avg"])
        per_smsp = SMS * 4
        top = ", ".join(f"{op} {cycles / (n / per_smsp):.2f}" for op, n in counts.most_common(2))
        print(f"{label(config):10s} measured {measured:7.1f} us, issue active "
              f"{number(m['smsp__issue_active.avg.pct_of_peak_sustained_active']):5.1f}%, math throttle "
              f"{number(m['smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio']):5.2f}; "
              f"SM cycles an instruction per sub-partition: {top}; model {us:7.1f} us ({100 * errors[-1]:+4.0f}%, "
              f"{t.bottleneck}, issue active {t.issue_active:5.1f}%)", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


if __name__ == "__main__":
    main(__doc__, run, "microbench43.json", model)
