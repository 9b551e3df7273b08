// Sixty-second microbenchmark batch (run_microbench62.py): what the trips of a loop cost when only some
// lanes of the warp run them, the others waiting at the loop's BSYNC. The sixty-first batch's region
// inside a branch with 1 or 3 trips (odd lanes) took 77.6 us more than 2 trips for all odd lanes where
// its extra instructions at the uniform loop's rate give about 36; the model charges them so.
// Each round: one FFMA of a chain, then
//   loop:     an inner loop of trip[lane] trips, one FFMA each;
//   guarded:  the same loop inside `if (lane & 1)`.
extern "C" __global__ void mb62_loop(float* out, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
#pragma unroll 1
        for (int j = 0; j < n; ++j) x = fmaf(x, 0.998f, 0.25f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
extern "C" __global__ void mb62_guarded(float* out, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
        if (threadIdx.x & 1) {
#pragma unroll 1
            for (int j = 0; j < n; ++j) x = fmaf(x, 0.998f, 0.25f);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
