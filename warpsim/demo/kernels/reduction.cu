// Warp primitives (simt-execution.md, "Warp primitives: letting 32 lanes
// cooperate"): the warp sum with five shuffles, and the block sum built on it.
__device__ float warp_sum(float v) {
    unsigned mask = 0xffffffffu;                 // all 32 lanes participate
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(mask, v, offset);  // read v from lane (id + offset)
    return v;                                    // lane 0 holds the warp total
}

extern "C" __global__ void block_sum(const float* x, float* out, int n) {
    __shared__ float partial[32];                // up to 1024 threads = 32 warps
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.f;              // pad instead of branching away
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

// The reduction tree of one warp: every lane's value after each shuffle step.
extern "C" __global__ void warp_sum_steps(const float* x, float* steps) {
    int lane = threadIdx.x % 32;
    float v = x[lane];
    steps[lane] = v;
    int step = 1;
    for (int offset = 16; offset > 0; offset >>= 1, ++step) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
        steps[step * 32 + lane] = v;
    }
}
