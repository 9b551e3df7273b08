// Forty-sixth batch (run_microbench46.py): a warp waiting on several loads at once. The forty-fifth
// batch's one-iteration streams took 763 cycles an iteration with one load from HBM and 841 with two
// (a load of each of two arrays, their sum's FADD waiting on both), as if the warp waited for the
// slower of two latencies. Here one iteration a trip (`#pragma unroll 1`), its k = 1..4 loads issued
// together and summed by one chain of FADDs: from k arrays (`same` 0) or one array k quarter-lengths
// apart (`same` 1), over 64 MB arrays (HBM) or 1 MB ones read 16 times (L2).

extern "C" __global__ void mb46_loads(float* out, const float* __restrict__ x0, const float* __restrict__ x1,
                                      const float* __restrict__ x2, const float* __restrict__ x3, long long n,
                                      int k, int reps) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f;
    for (int r = 0; r < reps; ++r) {
        if (k == 1) {
#pragma unroll 1
            for (long long i = start; i < n; i += stride) s += x0[i];
        } else if (k == 2) {
#pragma unroll 1
            for (long long i = start; i < n; i += stride) s += x0[i] + x1[i];
        } else if (k == 3) {
#pragma unroll 1
            for (long long i = start; i < n; i += stride) s += x0[i] + x1[i] + x2[i];
        } else {
#pragma unroll 1
            for (long long i = start; i < n; i += stride) s += x0[i] + x1[i] + x2[i] + x3[i];
        }
    }
    out[start] = s;
}
