"""The SIMT document's block_sum, CuPy-style: `python examples/block_sum.py`.

Swap `import warpsim as cp` for `import cupy as cp` and it runs on a GPU.
"""

import numpy as np

import warpsim as cp

SOURCE = r"""
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
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
"""

if __name__ == "__main__":
    n = 1 << 20
    x = np.random.default_rng(0).random(n, dtype=np.float32)
    kernel = cp.RawModule(code=SOURCE).get_function("block_sum")
    out = cp.zeros(1, dtype=cp.float32)
    kernel(((n + 255) // 256,), (256,), (cp.asarray(x), out, np.int32(n)))
    print(f"block_sum: {out.get()[0]:.2f}   NumPy: {x.sum(dtype=np.float64):.2f}")
