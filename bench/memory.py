"""Bounded memory on big grids: peak RSS of a 16M-thread launch vs a 1M-thread one.

    python bench/memory.py 1      # 1M threads
    python bench/memory.py 16     # 16M threads

Each run is its own process so peak RSS belongs to it. The simulator's own
working set is one CTA batch (settings.batch_threads thread slots), so peak RSS
grows with the arrays the host allocates (4 bytes x threads x 2 arrays here),
not with the grid.
"""

import resource
import sys
import time

import numpy as np

import warpsim as cp

SOURCE = r"""
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def main():
    millions = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    n = millions << 20
    kernel = cp.RawModule(code=SOURCE).get_function("saxpy")
    x = cp.asarray(np.ones(n, dtype=np.float32))
    y = cp.asarray(np.full(n, 2.0, dtype=np.float32))
    array_mb = 2 * 4 * n / 2**20
    start = time.perf_counter()
    kernel((n // 256,), (256,), (x, y, np.float32(3.0), np.int32(n)))
    seconds = time.perf_counter() - start
    assert (y.get() == 5.0).all()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n} threads: {seconds:.1f} s, peak RSS {peak_mb:.0f} MB "
          f"(device arrays {array_mb:.0f} MB, heap kept twice during growth)")


if __name__ == "__main__":
    main()
