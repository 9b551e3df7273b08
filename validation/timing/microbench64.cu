// Sixty-fourth microbenchmark batch (run_microbench64.py): which nested splits cost more. The sixty-third
// batch's loop splitting lanes an outer branch had split took 34-40 cycles a round more than the model's
// rules, but only 8 more where lane 1 alone went on (the outer branch leaving out lane 0). Here the same
// kernels (`one`: a loop inside a branch; `two`: the loop inside two nested branches) with the lanes that
// leave and go on exchanged: whether the lowest or the highest lane, one lane or many, goes on.
extern "C" __global__ void mb64_one(float* out, const int* sel, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int s = sel[threadIdx.x & 31], n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
        if (s & 1) {
#pragma unroll 1
            for (int j = 0; j < n; ++j) x = fmaf(x, 0.998f, 0.25f);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
extern "C" __global__ void mb64_two(float* out, const int* sel, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int s = sel[threadIdx.x & 31], n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
        if (s & 1) {
            x = fmaf(x, 0.997f, 0.125f);
            if (s & 2) {
#pragma unroll 1
                for (int j = 0; j < n; ++j) x = fmaf(x, 0.998f, 0.25f);
            }
            x = fmaf(x, 0.996f, 0.375f);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
