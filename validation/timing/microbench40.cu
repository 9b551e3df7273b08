// Fortieth batch (run_microbench40.py): where a pipelined wgmma loop's warps wait, as Triton's K loops
// run it. Set 3's matmuls spend their tensor-core time as `wait` at the HGMMAs and LDGSTS and as
// `dispatch_stall` (ncu's source view of mm_f16_128x128x64_w4_s3: 47% of samples `wait`), where the
// twenty-eighth batch's loops of one accumulator wait at WARPGROUP.DEPBAR (`barrier`). Here one
// warpgroup a CTA, 1 or 2 CTAs an SM, runs `iters` steps of a Triton-shaped loop: ACCS accumulators of
// m64n128 (1, or 2 as a 128-row tile) x 4 k-steps of wgmma.m64n128k16 (f16 -> f32, A and B in shared
// memory), a commit, then with COPY a stage of cp.async copies (16 bytes a thread, 8 a step: 16 KB a
// CTA from an L2-resident region), its commit and wait, and a __syncthreads, then the wgmma wait
// letting P groups pend. ncu's stall reasons an issue, and per instruction for four rows, say which
// of these the time goes to.
// Build: nvcc -arch=sm_90a -cubin -o microbench40.cubin microbench40.cu

#include "microbench8_wgmma.h"

template <int ACCS, int P, int COPY>
__device__ __forceinline__ void pipeline(const unsigned* tile_words, const uint4* src, float* sink, int iters,
                                         unsigned region_mask) {
    __shared__ __align__(1024) unsigned char tile[20480];
    __shared__ __align__(16) uint4 stage[2][8 * 128];
    load_tile(tile, tile_words, 20480);
    unsigned long long da0 = wgmma_desc(smem_addr(tile), 128, 256);
    unsigned long long da1 = wgmma_desc(smem_addr(tile + 2048), 128, 256);
    unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
    unsigned a[4] = {tile_words[threadIdx.x], tile_words[threadIdx.x + 128], tile_words[threadIdx.x + 256],
                     tile_words[threadIdx.x + 384]};
    float d0[64], d1[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) d0[j] = d1[j] = 0.f;
    unsigned base = blockIdx.x * 8 * 128;
    for (int it = 0; it < iters; ++it) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            wgmma_f16_ss_n128(d0, a, da0, db + 2 * k);
            if (ACCS == 2) wgmma_f16_ss_n128(d1, a, da1, db + 2 * k);
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        if (COPY) {
            uint4* into = stage[it & 1];
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                unsigned at = (base + (unsigned)it * 1024u + c * 128u + threadIdx.x) & region_mask;
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::
                             "r"(smem_addr(into + c * 128 + threadIdx.x)), "l"(src + at) : "memory");
            }
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 1;" ::: "memory");
            __syncthreads();
        }
        asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(P) : "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < 64; ++j) s += d0[j] + d1[j];
    if (COPY) s += __uint_as_float(stage[0][threadIdx.x].x);
    if (s == 12345.f) sink[blockIdx.x] = s;
}

#define MB40_KERNEL(A, P, C) \
    extern "C" __global__ void __launch_bounds__(128) mb40_a##A##_p##P##_c##C( \
        const unsigned* t, const uint4* src, float* s, int iters, unsigned mask) { \
        pipeline<A, P, C>(t, src, s, iters, mask); \
    }
MB40_KERNEL(1, 0, 0) MB40_KERNEL(1, 1, 0) MB40_KERNEL(2, 0, 0) MB40_KERNEL(2, 1, 0)
MB40_KERNEL(1, 1, 1) MB40_KERNEL(2, 0, 1) MB40_KERNEL(2, 1, 1)
