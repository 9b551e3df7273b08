"""Forty-second batch of H200 microbenchmarks (microbench42.cu): the issue cost of arithmetic opcodes.
Each kernel runs eight independent chains of one operation a thread, 64 warps an SM (132 x 16 CTAs of
128 threads), so a pipe's throughput bounds it; the SM's cycles over the opcode's warp instructions
per sub-partition are its cycles an instruction (where the chain needs a second instruction, the row
names both opcodes and their counts). ncu's pipe figures (InstructionStats, ComputeWorkloadAnalysis)
say which pipe ncu counts each in.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench42.cubin microbench42.cu`):

    python3 run_microbench42.py --collect OUTDIR     # OUTDIR/microbench42.json: CUDA-event medians
    ncu ... python3 run_microbench42.py --once
Here:
    python3 run_microbench42.py --model              # the rows under ncu beside the model's
"""

from __future__ import annotations

import collections
import os

import numpy as np

from microbench_runner import card, main, ncu_rows, number, recording, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, CTAS_PER_SM, BLOCK, STEPS = 132, 16, 128, 1024
HALF2 = ("hfma2", "hadd2", "hmul2", "hmin2", "hfma2_imm", "hadd2_imm")
BF162 = ("bfma2",)
FLOAT = ("ffma", "fmin", "f2h2f", "frnd")
UINT = ("imad", "mulhi", "shf", "prmt", "imin", "popc", "clz", "brev", "sad", "iabs", "i2f")
DOUBLE = ("dfma", "d2f")
CONFIGS = [dict(op=op) for op in HALF2 + BF162 + FLOAT + UINT + DOUBLE]


def _pair(dtype, m, c):
    """(m, c) as the kernel's scalar parameters: packed 16-bit pairs as their 32-bit words."""
    if dtype == "half2":
        word = lambda v: np.uint32(int(np.array([v, v], np.float16).view(np.uint32)[0]))   # noqa: E731
        return word(m), word(c)
    if dtype == "bf162":
        bits = int(np.array(m, np.float32).view(np.uint32)) >> 16, int(np.array(c, np.float32).view(np.uint32)) >> 16
        return np.uint32(bits[0] * 0x10001), np.uint32(bits[1] * 0x10001)
    if dtype == "float":
        return np.float32(m), np.float32(c)
    if dtype == "double":
        return np.float64(m), np.float64(c)
    return np.uint32(0x9E3779B1), np.uint32(12345)


def dtype_of(op: str) -> str:
    return ("half2" if op in HALF2 else "bf162" if op in BF162 else "float" if op in FLOAT else
            "double" if op in DOUBLE else "uint")


def buffers(xp, config):
    n = SMS * CTAS_PER_SM * BLOCK
    width = 8 if dtype_of(config["op"]) == "double" else 4
    return xp.zeros(n * width, dtype=np.uint8)


def arguments(config, out) -> tuple:
    m, c = _pair(dtype_of(config["op"]), 0.99, 0.01)
    return out, m, c, np.int32(STEPS)


def opcode_run(batch: int, configs, buffers, arguments, reps: int):
    """The device side of the opcode batches (42, 43): each configuration's kernel mb<batch>_<op>."""
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, f"microbench{batch}.cubin"))

    def launch_for(config):
        f = mod.get_function(f"mb{batch}_" + config["op"])
        out = buffers(cp, config)
        return lambda: f((SMS * CTAS_PER_SM,), (BLOCK,), arguments(config, out))
    return time_configs(cp, configs, launch_for, reps)


def opcode_model(batch: int, configs, buffers, arguments):
    """The rows under ncu beside the model's, and each row's two commonest opcodes' SM cycles a warp
    instruction in a sub-partition (the opcode batches, 42 and 43)."""
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict, record_execution
    mod = ws.RawModule(path=os.path.join(HERE, f"microbench{batch}.cubin"))
    events = json.load(open(recording(f"microbench{batch}.json")))
    rows = [r for r in ncu_rows(f"microbench{batch}_ncu.csv") if f"mb{batch}" in r.get("Kernel Name", "")]
    errors = []
    for config, e, m in zip(configs, events, rows):
        f = mod.get_function(f"mb{batch}_" + config["op"])
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
        print(f"{config['op']:10s} measured {measured:7.1f} us, issue active "
              f"{number(m['smsp__issue_active.avg.pct_of_peak_sustained_active']):5.1f}%, math throttle "
              f"{number(m['smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio']):5.2f}; "
              f"SM cycles an instruction per sub-partition: {top}; model {us:7.1f} us ({100 * errors[-1]:+4.0f}%, "
              f"{t.bottleneck}, issue active {t.issue_active:5.1f}%)", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


def run(reps=5):
    return opcode_run(42, CONFIGS, buffers, arguments, reps)


def model():
    opcode_model(42, CONFIGS, buffers, arguments)


if __name__ == "__main__":
    main(__doc__, run, "microbench42.json", model)
