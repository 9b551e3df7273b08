// The kernels of the SIMT execution document (shared/simt-execution.md),
// as written there, plus a per-warp variant of the reduction.

__device__ float heavy(float x, int n) {
    for (int i = 0; i < n; ++i) x = x * 1.000001f + 0.5f;
    return x;
}

extern "C" __global__ void branch_on_lane(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if (threadIdx.x % 2 == 0) v = heavy(v, n);        // half the lanes
    else                      v = heavy(v + 1.f, n);  // the other half
    out[i] = v;                                       // warp runs both paths
}

extern "C" __global__ void branch_on_warp(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if ((threadIdx.x / 32) % 2 == 0) v = heavy(v, n); // whole warp agrees
    else                             v = heavy(v + 1.f, n);
    out[i] = v;                                       // one path per warp
}

__device__ float warp_sum(float v) {
    unsigned mask = 0xffffffffu;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(mask, v, offset);
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

// One output per warp: the sum of its 32 inputs (zeros past n).
extern "C" __global__ void warp_sums(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.f;
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = v;
}
