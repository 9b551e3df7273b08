// Sixty-first microbenchmark batch (run_microbench61.py): BSYNC costs on shapes the fifty-ninth batch did
// not have, to check its 6 cycles a group (and 40 where a BSYNC joins a jump table) before they are used
// on them. Each round: one FFMA of a chain and one of
//   nested:  odd lanes (t & 1) run an inner loop of trip[lane] trips: a region inside a region;
//   chain8:  an eight-way if / else-if chain on (trip[lane] + round) & 7 (compares and branches);
//   table8:  an eight-way switch on (trip[lane] + round) % ways, which ptxas compiles to jump tables (BRX);
//   exits:   a loop of up to 8 trips each lane leaves after trip[lane] (lanes leaving one by one).
extern "C" __global__ void mb61_nested(float* out, const int* trip, int iters) {
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
extern "C" __global__ void mb61_chain8(float* out, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        int c = (n + k) & 7;
        if (c == 0) x = fmaf(x, 0.999f, 0.5f);
        else if (c == 1) x = fmaf(x, 0.998f, 0.25f);
        else if (c == 2) x = __sinf(x);
        else if (c == 3) x = x * x + 0.125f;
        else if (c == 4) x = __cosf(x);
        else if (c == 5) x = fmaf(x, 0.997f, 0.75f);
        else if (c == 6) x = x * 0.5f + 0.3f;
        else x = __expf(-x);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
extern "C" __global__ void mb61_table8(float* out, const int* trip, int iters, int ways) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        switch ((n + k) % ways) {
        case 0: x = fmaf(x, 0.999f, 0.5f); break;
        case 1: x = fmaf(x, 0.998f, 0.25f); break;
        case 2: x = __sinf(x); break;
        case 3: x = x * x + 0.125f; break;
        case 4: x = __cosf(x); break;
        case 5: x = fmaf(x, 0.997f, 0.75f); break;
        case 6: x = x * 0.5f + 0.3f; break;
        default: x = __expf(-x); break;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
extern "C" __global__ void mb61_exits(float* out, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
#pragma unroll 1
        for (int j = 0; j < 8; ++j) {
            if (j >= n) break;
            x = fmaf(x, 0.998f, 0.25f);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
