"""A Numba kernel with warp shuffles on warpsim: `python examples/numba_warp_sum.py`.

With `from numba import cuda` instead, run it as `warpsim run python examples/numba_warp_sum.py`.
"""

import numpy as np

from warpsim import cuda


@cuda.jit
def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0.0
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


if __name__ == "__main__":
    x = np.random.default_rng(0).random(10_000).astype(np.float32)
    out = np.zeros(1, dtype=np.float32)
    warp_sum[(x.size + 255) // 256, 256](x, out)
    print(f"warp_sum: {out[0]:.2f}   NumPy: {x.sum(dtype=np.float64):.2f}")
