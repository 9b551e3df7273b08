// Divergence cost (simt-execution.md, "How a warp executes a branch"): the
// same work behind a lane-dependent branch and behind a warp-uniform branch.
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
