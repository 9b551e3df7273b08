"""Simulation speed: thread-instructions per second on small and large grids.

    python bench/speed.py            # prints one table; figures are from one run

Speed is measured, never asserted in tests. Ratios between rows of one run are
what to compare: these machines are noisy.
"""

from __future__ import annotations

import time

import numpy as np

import warpsim as cp

SOURCE = r"""
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}
extern "C" __global__ void block_sum(const float* x, float* out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.f;
    v = warp_sum(v);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    int nwarps = (blockDim.x + 31) / 32;
    if (warp == 0) {
        v = (lane < nwarps) ? partial[lane] : 0.f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}
extern "C" __global__ void branch_on_lane(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if (threadIdx.x % 2 == 0) { for (int k = 0; k < n; ++k) v = v * 1.000001f + 0.5f; }
    else { for (int k = 0; k < n; ++k) v = (v + 1.f) * 1.000001f + 0.5f; }
    out[i] = v;
}
"""


def measure(kernel, grid, block, args):
    kernel(grid, block, args)                    # compile blocks once
    start = time.perf_counter()
    kernel(grid, block, args)
    seconds = time.perf_counter() - start
    r = kernel.last_launch
    return r.thread_instructions, seconds


def main():
    mod = cp.RawModule(code=SOURCE)
    rows = []
    for threads in (4096, 1 << 20):
        x = cp.asarray(np.random.rand(threads).astype(np.float32))
        y = cp.asarray(np.random.rand(threads).astype(np.float32))
        out = cp.zeros(threads, dtype=cp.float32)
        total = cp.zeros(1, dtype=cp.float32)
        grid = (threads // 256,)
        cases = [
            ("saxpy", mod.get_function("saxpy"), (x, y, np.float32(2.0), np.int32(threads))),
            ("block_sum", mod.get_function("block_sum"), (x, total, np.int32(threads))),
            ("branch_on_lane n=20", mod.get_function("branch_on_lane"), (out, np.int32(20))),
        ]
        for name, kernel, args in cases:
            inst, seconds = measure(kernel, grid, (256,), args)
            rows.append((name, threads, inst, seconds, inst / seconds))
    print(f"{'kernel':<22}{'threads':>10}{'thread-inst':>14}{'seconds':>10}{'thread-inst/s':>16}")
    for name, threads, inst, seconds, rate in rows:
        print(f"{name:<22}{threads:>10}{inst:>14}{seconds:>10.3f}{rate:>16.3e}")


if __name__ == "__main__":
    main()
