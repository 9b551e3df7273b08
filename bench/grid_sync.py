"""What a grid-wide sync costs on warpsim: a cooperative launch against the same kernel with
__syncthreads in its place, at the most blocks the H200 holds at once.

    python bench/grid_sync.py

A cooperative launch runs its whole grid as one batch and the sync is CUDA's own
arrive-and-spin code (warpsim/machine/cooperative.py), so it costs scheduling rounds
of spinning block leaders on top of the two CTA barriers it contains. Seconds are CPU
seconds of this process (time.process_time); the load average is printed with them.
"""

from __future__ import annotations

import os
import time

import numpy as np

import warpsim as cp

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void steps(float *x, int n, int rounds, int grid_sync) {
    cg::grid_group grid = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; r++) {
        float v = x[(i + 1) % n];
        if (grid_sync) grid.sync(); else __syncthreads();
        x[i] = v * 0.5f + 1.0f;
        if (grid_sync) grid.sync(); else __syncthreads();
    }
}
"""
SHAPES = ((132, 256), (264, 1024))      # one block per SM; the co-resident limit at 1024 threads
ROUNDS = 10                             # two syncs a round


def main() -> None:
    kernel = cp.RawModule(code=SOURCE).get_function("steps")
    print(f"load average {os.getloadavg()[0]:.1f}")
    for blocks, threads in SHAPES:
        n = blocks * threads
        for cooperative in (False, True):
            x = cp.asarray(np.ones(n, np.float32))
            args = (x, np.int32(n), np.int32(1), np.int32(cooperative))
            kernel((blocks,), (threads,), args, enable_cooperative_groups=cooperative)   # compiles
            start = time.process_time()
            kernel((blocks,), (threads,), (x, np.int32(n), np.int32(ROUNDS), np.int32(cooperative)),
                   enable_cooperative_groups=cooperative)
            seconds = time.process_time() - start
            what = "grid syncs" if cooperative else "__syncthreads"
            print(f"{blocks:4d} blocks x {threads:4d} threads, {2 * ROUNDS} {what:13s} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
