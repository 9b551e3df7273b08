// Forty-fifth batch, second part (run_microbench45.py): what one iteration of a grid-stride stream
// waits, with one warp an SM. Set 4's t4_grid_stride_fma (z[i] = x[i] * y[i] + 1, no restrict: a
// load waits for the last iteration's store) took 841 cycles an iteration on both the H100 and the
// H200, the model about 770 and 730. One iteration a trip (`#pragma unroll 1`), over 64 MB:
// mode 0: s += x[i] (one load, no store); 1: s += x[i] * y[i] (two loads); 2: z[i] = 2 x[i] (a load
// and a store); 3: z[i] = x[i] * y[i] + 1 (two loads and a store, as set 4's).

extern "C" __global__ void mb45_stream_step(float* z, const float* x, const float* y, long long n, int mode) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f;
    if (mode == 0) {
#pragma unroll 1
        for (; i < n; i += stride) s += x[i];
    } else if (mode == 1) {
#pragma unroll 1
        for (; i < n; i += stride) s += x[i] * y[i];
    } else if (mode == 2) {
#pragma unroll 1
        for (; i < n; i += stride) z[i] = 2.f * x[i];
    } else {
#pragma unroll 1
        for (; i < n; i += stride) z[i] = fmaf(x[i], y[i], 1.f);
    }
    if (mode < 2) z[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
