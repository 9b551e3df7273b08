// Wrong masks (simt-execution.md, "Failure modes"): a full-mask shuffle after
// an early return names lanes that have exited, which is undefined.
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);   // all 32 lanes named
    return v;
}

extern "C" __global__ void sum_early_return(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;                                   // lanes past the end leave
    float v = warp_sum(x[i]);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

// The fix: keep every lane on the call path and mask the data instead.
extern "C" __global__ void sum_masked_data(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum(i < n ? x[i] : 0.f);              // out-of-range lanes add 0
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}
