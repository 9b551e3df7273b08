"""Numba kernels as users write them, on warpsim: seconds per launch, and which tier ran their blocks.

    python bench/numba_kernels.py [--repeat 5] [--threads 1048576]

Numba types Python ints as int64 and Python floats as float64, so a kernel that stores an int into
an int32 array, or scales float32 data by a Python float, runs 64-bit integer stores and f64
arithmetic: each kernel here is one such pattern. Each is launched once to warm up (compiling its
hot blocks), then `--repeat` times; the best CPU time (time.process_time) is printed, with the
blocks the compiled tier did not take and why (warpsim.machine.compiled.report).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from timer import best_of  # noqa: E402


def kernels(cuda):
    from numba import float32

    @cuda.jit
    def store_int(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v + i

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def neighbours(x, out):
        tile = cuda.shared.array(256, dtype=float32)
        t = cuda.threadIdx.x
        tile[t] = x[cuda.grid(1)]
        cuda.syncthreads()
        out[cuda.grid(1)] = abs(tile[t] - tile[0]) + tile[255]
    return store_int, saxpy, neighbours


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1 << 20)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from warpsim import cuda
    from warpsim.machine.compiled import report
    n = args.threads
    rng = np.random.default_rng(0)
    x = cuda.to_device(rng.random(n).astype(np.float32))
    y = cuda.to_device(rng.random(n).astype(np.float32))
    out_f, out_i = cuda.device_array(n, np.float32), cuda.device_array(n, np.int32)
    store_int, saxpy, neighbours = kernels(cuda)
    cases = [("int64 scalar stored into int32", store_int, (out_i, 7 << 33)),
             ("saxpy, a Python float scale", saxpy, (2.5, x, y, out_f)),
             ("shared tile at constant indices, abs", neighbours, (x, out_f))]
    print(f"{n} threads, blocks of 256; best of {args.repeat} (CPU seconds); load average {os.getloadavg()[0]:.1f}")
    for label, kernel, arguments in cases:
        def launch():
            kernel[n // 256, 256](*arguments)
        launch()
        seconds = best_of(launch, args.repeat, clock=time.process_time)
        program = next(iter(kernel.overloads.values())).loaded().program
        numpy_blocks = sorted({r["why_numpy"] for r in report(program) if r["why_numpy"] and r["threads_numpy"]})
        print(f"{label:<40} {seconds * 1e3:8.1f} ms   on NumPy: {'; '.join(numpy_blocks) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
