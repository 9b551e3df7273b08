// Sixty-fifth microbenchmark batch (run_microbench65.py): what the cost of a split inside a split grows
// with. In the sixty-fourth batch a loop splitting the lanes of `if (lane & 1)` took 36 cycles a round more
// than the model's rules, whichever lanes left or went on; inside a branch leaving out only lane 0 or
// lane 31, 5-8. Here the branch takes the lowest m lanes (m from 2 to 31) or every fourth lane, and the
// loop inside splits them or not.
extern "C" __global__ void mb65_one(float* out, const int* sel, const int* trip, int iters) {
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
