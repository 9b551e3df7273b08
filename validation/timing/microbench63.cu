// Sixty-third microbenchmark batch (run_microbench63.py): whether a branch that splits lanes of a warp
// the code around it has already split costs more than one that splits the whole warp. The sixty-first
// batch's loop of 1 or 3 trips inside `if (lane & 1)` and the sixty-second's took about 30 cycles a
// round more than the model's rules (8 cycles a split, 6 a BSYNC group) give, where the same loop
// outside a branch came within 3%. Each round: one FFMA of a chain, then, by sel[lane] and trip[lane]
// (data, so ptxas cannot know which lanes go where):
//   one:   if (sel & 1) { an inner loop of trip trips }
//   two:   if (sel & 1) { FFMA; if (sel & 2) { the inner loop }; FFMA }
//   after: if (sel & 1) { the inner loop }; if (sel & 2) { another inner loop }: two regions one
//          after the other, neither inside the other.
extern "C" __global__ void mb63_one(float* out, const int* sel, const int* trip, int iters) {
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
extern "C" __global__ void mb63_two(float* out, const int* sel, const int* trip, int iters) {
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
extern "C" __global__ void mb63_after(float* out, const int* sel, const int* trip, int iters) {
    float x = threadIdx.x * 1e-3f;
    int s = sel[threadIdx.x & 31], n = trip[threadIdx.x & 31];
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
        if (s & 1) {
#pragma unroll 1
            for (int j = 0; j < n; ++j) x = fmaf(x, 0.998f, 0.25f);
        }
        if (s & 2) {
#pragma unroll 1
            for (int j = 0; j < n; ++j) x = fmaf(x, 0.995f, 0.0625f);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
