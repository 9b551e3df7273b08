"""Simulation speed: thread-instructions per second on small and large grids.

    python bench/speed.py            # prints one table; figures are from one run

Speed is measured, never asserted in tests. Ratios between rows of one run are
what to compare: these machines are noisy.
"""

from __future__ import annotations

import pathlib
import time

import numpy as np

import warpsim as cp
import warpsim.demo

SAXPY = r"""
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
# The document's block_sum and branch_on_lane, as the demo ships them.
KERNELS = pathlib.Path(warpsim.demo.__file__).parent / "kernels"


def measure(kernel, grid, block, args):
    kernel(grid, block, args)                    # compile blocks once
    start = time.perf_counter()
    kernel(grid, block, args)
    seconds = time.perf_counter() - start
    r = kernel.last_launch
    return r.thread_instructions, seconds


def main():
    saxpy = cp.RawModule(code=SAXPY).get_function("saxpy")
    block_sum = cp.RawModule(path=str(KERNELS / "reduction.cu")).get_function("block_sum")
    branch_on_lane = cp.RawModule(path=str(KERNELS / "divergence.cu")).get_function("branch_on_lane")
    rows = []
    for threads in (4096, 1 << 20):
        x = cp.asarray(np.random.rand(threads).astype(np.float32))
        y = cp.asarray(np.random.rand(threads).astype(np.float32))
        out = cp.zeros(threads, dtype=cp.float32)
        total = cp.zeros(1, dtype=cp.float32)
        grid = (threads // 256,)
        cases = [
            ("saxpy", saxpy, (x, y, np.float32(2.0), np.int32(threads))),
            ("block_sum", block_sum, (x, total, np.int32(threads))),
            ("branch_on_lane n=20", branch_on_lane, (out, np.int32(20))),
        ]
        for name, kernel, args in cases:
            inst, seconds = measure(kernel, grid, (256,), args)
            rows.append((name, threads, inst, seconds, inst / seconds))
    print(f"{'kernel':<22}{'threads':>10}{'thread-inst':>14}{'seconds':>10}{'thread-inst/s':>16}")
    for name, threads, inst, seconds, rate in rows:
        print(f"{name:<22}{threads:>10}{inst:>14}{seconds:>10.3f}{rate:>16.3e}")


if __name__ == "__main__":
    main()
