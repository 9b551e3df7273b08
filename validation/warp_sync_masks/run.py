"""Warp votes whose member mask leaves out the calling lane, on the H200 (CuPy) and on warpsim.

    python3 run.py gpu OUT.npz        # on the device
    python run.py compare H200.npz    # here: warpsim's results against the H200's, output by output
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUTS = ("ballot_lt", "ballot_gt", "any_lt", "all_gt", "ballot_even", "ballot_full")
N, BLOCK = 4096, 128


def predicates():
    rng = np.random.default_rng(20261204)
    p = (rng.random(N) < 0.5).astype(np.uint32)
    p[:32] = 1                         # a warp of all true, one of all false, one of one true lane
    p[32:64] = 0
    p[64:96] = 0
    p[64 + 17] = 1
    return p


def run(xp):
    src = open(os.path.join(HERE, "kernels.cu")).read()
    kernel = xp.RawKernel(src, "votes")
    pred = xp.asarray(predicates())
    outs = [xp.zeros(N, dtype=np.uint32) for _ in OUTPUTS]
    kernel((N // BLOCK,), (BLOCK,), (pred, *outs))
    return {name: (o.get() if hasattr(o, "get") else o) for name, o in zip(OUTPUTS, outs)}


if __name__ == "__main__":
    if sys.argv[1] == "gpu":
        import cupy
        np.savez(sys.argv[2], **run(cupy))
    else:
        import warnings
        import warpsim
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = run(warpsim)
        gpu = np.load(sys.argv[2])
        for name in OUTPUTS:
            diff = np.flatnonzero(mine[name] != gpu[name])
            print(f"{name:12s} equal on {N - len(diff)} of {N} threads" +
                  (f"; first differences at {diff[:4].tolist()}: warpsim {mine[name][diff[:4]].tolist()}, "
                   f"H200 {gpu[name][diff[:4]].tolist()}" if len(diff) else ""))
