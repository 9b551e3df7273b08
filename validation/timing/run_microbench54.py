"""Fifty-fourth batch of microbenchmarks (microbench54.cu): full-occupancy streams of one float a thread,
1M to 64M elements, that read only, write only, copy, or read two arrays to write one: what the L2
keeps of what a launch writes, and what a short stream costs beyond its bytes.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench54.cubin microbench54.cu`):

    python3 run_microbench54.py --collect OUTDIR     # OUTDIR/microbench54.json: CUDA-event medians
    ncu ... python3 run_microbench54.py --once
Here:
    python3 run_microbench54.py --predict FILE      # the model's figures, made before measuring
    python3 run_microbench54.py --model             # the rows under ncu beside the model's
"""

from __future__ import annotations

import numpy as np

from microbench_runner import main_for_cubin

SMS = 132
FORMS = ("read", "write", "copy", "fma")
CONFIGS = [dict(form=f, n=1 << s) for f in FORMS for s in (20, 21, 22, 23, 24, 26)]


def label(config) -> str:
    return f"{config['form']:5s} n = 2^{int(np.log2(config['n']))}"


def shape(config) -> tuple:
    return (SMS * 16,), (256,), 0


def buffers_and_arguments(xp, config) -> tuple:
    n, form = config["n"], config["form"]
    rng = np.random.default_rng(54)
    x = xp.asarray(rng.random(n, dtype=np.float32))
    if form == "read":
        return xp.zeros(SMS * 16 * 256, dtype=np.float32), x, np.int64(n)
    z = xp.zeros(n, dtype=np.float32)
    if form == "write":
        return z, np.int64(n)
    if form == "copy":
        return z, x, np.int64(n)
    return z, x, xp.asarray(rng.random(n, dtype=np.float32)), np.int64(n)


def kernel_name(config) -> str:
    return f"mb54_{config['form']}"


if __name__ == "__main__":
    main_for_cubin(__doc__, "microbench54", CONFIGS, label, shape, buffers_and_arguments, kernel_name)
