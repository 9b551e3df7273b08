// Fourth batch of H200 microbenchmarks (run_microbench4.py): which sub-partition a warp runs on,
// what a CTA barrier costs when the CTA's shared stores are still in flight, and when a CTA's
// slot is given back (CTA slot release: when its last warp ends, or warp by warp).

__device__ __forceinline__ unsigned hw_warpid() { unsigned r; asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned hw_smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }

// Per warp: its hardware warp slot and SM, with the CTA's linear id and the warp's index in it.
// The sub-partition of slot s is s % 4 on Volta and later (four schedulers, slots interleaved).
extern "C" __global__ void mb_slots(unsigned* out, int spin) {
    float x = threadIdx.x * 1e-3f;
#pragma unroll 1
    for (int j = 0; j < spin; ++j) x = fmaf(x, 0.999f, 0.5f);      // keep the CTAs resident together
    if ((threadIdx.x & 31) == 0) {
        unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
        out[2 * w] = hw_warpid() | (hw_smid() << 16);
        out[2 * w + 1] = (threadIdx.x >> 5) | ((x == 12345.f) << 31);
    }
}

// Warps whose work depends on their index in the CTA (no barrier): which warps share a scheduler.
// pattern 0: warps w % 4 == 0 heavy; 1: warps w < blockDim/128 heavy (the first quarter); 2: none.
extern "C" __global__ void mb_smsp_skew(float* out, int iters, int heavy, int pattern) {
    int w = threadIdx.x >> 5;
    int nw = blockDim.x >> 5;
    bool is_heavy = pattern == 0 ? (w & 3) == 0 : pattern == 1 ? w < nw / 4 : false;
    int n = is_heavy ? iters * heavy : iters;
    float a = threadIdx.x * 1e-3f, b = a + 1.f, c = a + 2.f, d = a + 3.f;
#pragma unroll 1
    for (int j = 0; j < n; ++j) {
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f);
        c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f);
        c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

// A barrier after `stores` shared stores per thread (conflict-free, distinct words), then one
// shared load of a neighbour's word (so the stores are needed). stores = 0: the load and barrier alone.
// bar = 0: the same without the barrier (the stores' and load's own cost).
extern "C" __global__ void mb_bar_sts(float* out, long long* cycles, int iters, int stores, int bar) {
    __shared__ float s[4 * 1024];
    int t = threadIdx.x;
    int n = blockDim.x;
    float x = t * 1e-3f;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
#pragma unroll 1
        for (int j = 0; j < stores; ++j) s[j * n + t] = x + j;
        if (bar) __syncthreads();
        x = 0.5f * x + s[t ^ 32];
        if (bar) __syncthreads();
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + t] = x;
    if (t == 0) cycles[blockIdx.x] = t1 - t0;
}

// A stream (y = a x + y, one element per thread, many waves) where warp 0 of every CTA then spins
// `hold` dependent FMAs: if a CTA's slot is freed only when its last warp ends, its other warps'
// places stay empty meanwhile (achieved occupancy falls, the stream slows).
extern "C" __global__ void mb_stream_hold(float* y, const float* x, float a, int n, int hold) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.f;
    if (i < n) { v = a * x[i] + y[i]; y[i] = v; }
    if (threadIdx.x < 32) {
#pragma unroll 1
        for (int j = 0; j < hold; ++j) v = fmaf(v, 0.999f, 0.5f);
        if (v == 12345.f) y[0] = v;
    }
}
