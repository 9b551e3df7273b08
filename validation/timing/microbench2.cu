// Second batch of H200 microbenchmarks for the timing model (run_microbench2.py drives them):
// the L2 atomic unit under contention, the L1 data path for global loads that hit,
// CTA barriers (cost and skew), and CTA dispatch by block size.
// Built here by build.sh (nvcc 13.0, sm_90); every kernel is extern "C" so CuPy finds it.

extern "C" {

// ------------------------------------------------------------------ atomics
// Each thread of a warp whose lane passes `(lane & lane_skip) == 0` adds to
//   p[(lane & lane_mask) + ((warp & warp_mask) << warp_shift) + k * iter_stride]
// for k < iters. Masks are parameters so ptxas cannot see a uniform address
// (no warp-aggregated atomic). No result used: RED.E.ADD.
__global__ void mb_red_s32(int* p, int iters, int lane_mask, int warp_mask, int warp_shift,
                           int lane_skip, int iter_stride) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, w = t >> 5;
    if (lane & lane_skip) return;
    int idx = (lane & lane_mask) + ((w & warp_mask) << warp_shift);
#pragma unroll 1
    for (int k = 0; k < iters; ++k) atomicAdd(&p[idx + k * iter_stride], (t & 3) + 1);
}

__global__ void mb_red_f32(float* p, int iters, int lane_mask, int warp_mask, int warp_shift,
                           int lane_skip, int iter_stride) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, w = t >> 5;
    if (lane & lane_skip) return;
    int idx = (lane & lane_mask) + ((w & warp_mask) << warp_shift);
#pragma unroll 1
    for (int k = 0; k < iters; ++k) atomicAdd(&p[idx + k * iter_stride], 1.0f + (t & 3));
}

// The returned value is used: ATOMG.E.ADD (a round trip per atomic, not fire-and-forget).
__global__ void mb_atom_s32(int* p, int* out, int iters, int lane_mask, int warp_mask, int warp_shift,
                            int lane_skip, int iter_stride) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, w = t >> 5;
    if (lane & lane_skip) return;
    int idx = (lane & lane_mask) + ((w & warp_mask) << warp_shift);
    int acc = 0;
#pragma unroll 1
    for (int k = 0; k < iters; ++k) acc += atomicAdd(&p[idx + k * iter_stride], (t & 3) + 1);
    out[t] = acc;
}

// ------------------------------------------------------------- L1 data path
// 16 independent loads per iteration that hit L1 (footprint <= 96 KB); lane l of
// warp w reads base[(l & 15) * m1 + (l >> 4) * m2 + 32 * j + rot] for j < 16,
// rot stepping through `rot_mask + 1` floats so the loads cannot be hoisted.
// Per request: m1 = 0, m2 = 0: one sector; m1 = 1, m2 = 16: 4 sectors, 1 line;
// m1 = 0, m2 = 512: 2 sectors in 2 lines (naive matmul's A); m1 = 1, m2 = 0: 2 sectors
// (its B); m1 = 2, m2 = 32: 8 sectors, 2 lines; m1 = 32, m2 = 512: 32 lines.
__global__ void mb_l1_load(float* out, const float* in, int iters, int m1, int m2,
                           int rot_mask) {
    int lane = threadIdx.x & 31;
    const float* base = in + (lane & 15) * m1 + (lane >> 4) * m2;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        const float* q = base + ((k * 32) & rot_mask);
#pragma unroll
        for (int j = 0; j < 16; j += 4) {
            a0 += q[32 * j];
            a1 += q[32 * (j + 1)];
            a2 += q[32 * (j + 2)];
            a3 += q[32 * (j + 3)];
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}

// ------------------------------------------------------------------ barriers
// `iters` rounds of: warp w runs (w % 4) * skew dependent FFMAs, then __syncthreads().
// Thread 0 of each CTA records the cycles of the whole loop.
__global__ void mb_bar(float* out, long long* cycles, int iters, int skew) {
    float x = threadIdx.x * 1e-3f;
    int extra = ((threadIdx.x >> 5) & 3) * skew;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
#pragma unroll 1
        for (int j = 0; j < extra; ++j) x = fmaf(x, 0.999f, 0.5f);
        __syncthreads();
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// ---------------------------------------------------------- CTA dispatch
__global__ void mb_cta_empty(float* out) {
    if (threadIdx.x == 100000) out[0] = 1.f;
}

// A short fixed chain per thread: CTA turnover when each CTA does little work.
__global__ void mb_cta_chain(float* out, int n) {
    float x = threadIdx.x * 1e-3f;
#pragma unroll 1
    for (int j = 0; j < n; ++j) x = fmaf(x, 0.999f, 0.5f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

}

// ------------------------------------------------------- streaming (third batch)
// y = a x + y over n floats: one load pair and one store per thread, nothing else.
extern "C" __global__ void mb_stream(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
