"""Forty-seventh batch of microbenchmarks (microbench47.cu): global REDs (atomicAdd, result unused) at
the L2, f32 against u32. A warp's first `hot` lanes name words of a hot region that every warp of the
grid names (per_line words a line, lines 128 bytes apart: 32 x 1, 16 x 2, 8 x 4 in one 512-byte
chunk, or 16 / 8 / 1 of the lanes on one line, the rest spread); `hot` = 0 spreads every lane over a
line of its own in a 4 MB or 256 MB array. 1,056 CTAs of 256 threads, 16 REDs a thread.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench47.cubin microbench47.cu`):

    python3 run_microbench47.py --collect OUTDIR     # OUTDIR/microbench47.json: CUDA-event medians
    ncu ... python3 run_microbench47.py --once
Here:
    MICROBENCH_CARD=h100 python3 run_microbench47.py --model     # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
REPS = 16
HOT = [(32, 32), (32, 16), (32, 8), (16, 16), (8, 8), (1, 1)]       # (hot lanes, words a line)
CONFIGS = [dict(kind=k, hot=h, per_line=p, cold_words=1 << 20) for k in ("f32", "u32") for h, p in HOT] + \
    [dict(kind=k, hot=0, per_line=1, cold_words=w) for k in ("f32", "u32") for w in (1 << 20, 1 << 26)]


def label(config) -> str:
    if config["hot"]:
        return f"{config['kind']} {config['hot']:2d} lanes hot, {config['per_line']:2d} words a line"
    return f"{config['kind']} every lane its own line of {config['cold_words'] * 4 >> 20} MB"


def shape(config) -> tuple:
    return (8 * SMS,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    dtype = np.float32 if config["kind"] == "f32" else np.uint32
    hot = xp.zeros(256, dtype=dtype)
    cold = xp.zeros(config["cold_words"], dtype=dtype)
    return hot, cold, np.int32(config["hot"]), np.int32(config["per_line"]), np.int64(config["cold_words"]), \
        np.int32(REPS)


def kernel_name(config) -> str:
    return f"mb47_red_{config['kind']}"


def read_sm_count(cp) -> None:
    global SMS
    SMS = cp.cuda.Device().attributes["MultiProcessorCount"]


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench47", CONFIGS, label, shape, buffers_and_arguments, kernel_name,
                   on_device=read_sm_count)
