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


import numpy as np

from microbench_runner import main
from run_microbench42 import BLOCK, CTAS_PER_SM, SMS, STEPS, opcode_model, opcode_run

UINT = ("lea", "isetp_sel", "shfl", "dp4a", "i2f64")
LONG = ("imad_wide", "add64")
FLOAT = ("fsetp_fsel",)
CONFIGS = [dict(op=op) for op in LONG + UINT + FLOAT]


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
    return opcode_run(43, CONFIGS, buffers, arguments, reps)


def model():
    opcode_model(43, CONFIGS, buffers, arguments)


if __name__ == "__main__":
    main(__doc__, run, "microbench43.json", model)
