"""Fifty-second batch of microbenchmarks (microbench52.cu): achieved occupancy and the top stall reason
by what bounds a kernel: pipe chains (FFMA, DFMA, MUFU.EX2, IMAD, HFMA2) at 2 to 16 CTAs an SM, one
wave and two and a half; one atomicAdd a thread (RED, and ATOMG keeping the old value) to one
address, one a warp, 32 words of a line, 1,024 and 2^20 words; full-occupancy streams (one element a
thread and grid-stride, 1M to 64M) and copies storing `stride` words apart.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench52.cubin microbench52.cu`):

    python3 run_microbench52.py --collect OUTDIR     # OUTDIR/microbench52.json: CUDA-event medians
    ncu ... python3 run_microbench52.py --once
Here:
    python3 run_microbench52.py --predict FILE      # the model's figures, made before measuring
    python3 run_microbench52.py --model             # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
PIPES = {"ffma": 1024, "dfma": 512, "mufu": 128, "imad": 512, "hfma2": 1024}     # chain steps
CHAIN_SHAPES = ((8, 256), (2, 1024), (16, 128), (20, 256))                    # (CTAs / SM, threads)
ATOMIC_MODES = ("one address", "one a warp", "32 of a line", "1,024 words", "2^20 words")
N_ATOMIC = 1 << 21
CONFIGS = ([dict(family="chain", pipe=p, ctas=c, block=b) for p in PIPES for c, b in CHAIN_SHAPES]
           + [dict(family="atomic", op="red", mode=m, block=256) for m in range(5)]
           + [dict(family="atomic", op="atom_ret", mode=m, block=256) for m in range(4)]
           + [dict(family="atomic", op="red", mode=m, block=1024) for m in (0, 2)]
           + [dict(family="stream", form=f, n=1 << s) for f in ("each", "stride") for s in (20, 22, 24, 26)]
           + [dict(family="strided", stride=s, n=1 << 22) for s in (1, 2, 8, 32)])


def label(config) -> str:
    if config["family"] == "chain":
        waves = " (2.5 waves)" if config["ctas"] == 20 else ""
        return f"{config['pipe']} chains, {config['ctas']} x {config['block']}{waves}"
    if config["family"] == "atomic":
        return f"{config['op']} {ATOMIC_MODES[config['mode']]}, blocks of {config['block']}"
    if config["family"] == "stream":
        return f"z = x y + 1 {config['form']}, n = 2^{config['n'].bit_length() - 1}"
    return f"copy stored {config['stride']} words apart"


def shape(config) -> tuple:
    if config["family"] == "chain":
        return (SMS * config["ctas"],), (config["block"],), 0
    if config["family"] == "atomic":
        return (N_ATOMIC // config["block"],), (config["block"],), 0
    if config["family"] == "stream" and config["form"] == "stride":
        return (2 * SMS,), (1024,), 0
    return (config["n"] // 256,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    rng = np.random.default_rng(52)
    if config["family"] == "chain":
        (grid,), (block,), _ = shape(config)
        x = xp.asarray(rng.random(grid * block, dtype=np.float32))
        return xp.zeros(grid * block, dtype=np.float32), x, np.int32(PIPES[config["pipe"]])
    if config["family"] == "atomic":
        vals = xp.asarray(rng.integers(1, 100, N_ATOMIC, dtype=np.int32))
        acc = xp.zeros(1 << 20, dtype=np.int32)
        if config["op"] == "red":
            return acc, vals, np.int32(N_ATOMIC), np.int32(config["mode"])
        return acc, xp.zeros(N_ATOMIC, dtype=np.int32), vals, np.int32(N_ATOMIC), np.int32(config["mode"])
    n = config["n"]
    x = xp.asarray(rng.random(n, dtype=np.float32))
    if config["family"] == "stream":
        return xp.zeros(n, dtype=np.float32), x, xp.asarray(rng.random(n, dtype=np.float32)), np.int32(n)
    return xp.zeros(n * config["stride"], dtype=np.float32), x, np.int32(n), np.int32(config["stride"])


def kernel_name(config) -> str:
    if config["family"] == "chain":
        return "mb52_" + config["pipe"]
    if config["family"] == "atomic":
        return "mb52_" + config["op"]
    if config["family"] == "stream":
        return "mb52_fma_" + config["form"]
    return "mb52_store_strided"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench52", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
