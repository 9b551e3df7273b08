// Fifty-ninth microbenchmark batch (run_microbench59.py): what a BSYNC costs a warp whose lanes arrive
// together (one group) or apart. Each round: one FFMA of a chain and a region ptxas brackets with BSSY /
// BSYNC: an inner loop whose trip count each lane reads from trip[lane] (0, 1 or 2 for every lane: the warp
// stays converged; lane & 1: two groups), or a four-way switch on (trip[lane] + round) & 3 (compiled to
// compares and branches: one group, or four). mb59_plain has the FFMA alone.
extern "C" __global__ void mb59_plain(float* out, long long* cycles, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) x = fmaf(x, 0.999f, 0.5f);
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}
// an inner loop whose trip count comes from memory: trip[lane] (the same for every lane: converged)
extern "C" __global__ void mb59_inner(float* out, long long* cycles, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
#pragma unroll 1
        for (int j = 0; j < n; ++j) x = fmaf(x, 0.998f, 0.25f);
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}
// a switch on trip[lane]
extern "C" __global__ void mb59_switch(float* out, long long* cycles, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        switch ((n + k) & 3) {
        case 0: x = fmaf(x, 0.999f, 0.5f); break;
        case 1: x = fmaf(x, 0.998f, 0.25f); break;
        case 2: x = __sinf(x); break;
        default: x = x * x + 0.125f; break;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}
