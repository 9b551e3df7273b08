// Thirty-fourth batch (run_microbench34.py): whether the tensor core slows the issue of OTHER warps
// of its sub-partition, or only of the warps that issued its wgmmas.
// The twenty-ninth batch put X instructions between a warpgroup's wgmmas and its wait, in the same
// warps: they added 0.8-1.0 of their pipe time to the group's, where the tensor core's 256 cycles
// would have hidden them. Here a CTA holds two warpgroups, so each sub-partition holds one warp of
// each: warpgroup 0 runs groups of four wgmma.m64n128k16 (f16 -> f32, A and B in shared memory) and
// waits for each group; warpgroup 1 runs, per group, X independent instructions of one kind (eight
// chains). Modes: 0 the wgmmas alone (warpgroup 1 exits after the tile's load), 1 the fillers alone
// (warpgroup 0 exits), 2 both. If "both" takes about the longer of the two alone, the slowdown of
// the twenty-ninth batch belongs to the warps that issue wgmmas; if about their sum (as there), the
// sub-partition's issue is what the tensor core takes.
// Build: nvcc -arch=sm_90a -cubin -o microbench34.cubin microbench34.cu

#include "microbench8_wgmma.h"
#include "microbench_fillers.h"

template <int KIND, int X, int MODE>
__device__ __forceinline__ void two_groups(const unsigned* tile_words, float* sink, int groups) {
    __shared__ __align__(1024) unsigned char tile[12288];
    load_tile(tile, tile_words, 12288);
    const bool mma_group = threadIdx.x < 128;
    if ((MODE == 0 && !mma_group) || (MODE == 1 && mma_group)) return;
    float s = 0.f;
    if (mma_group) {
        unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);
        unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
        unsigned a[4] = {tile_words[threadIdx.x], tile_words[threadIdx.x + 128], tile_words[threadIdx.x + 256],
                         tile_words[threadIdx.x + 384]};
        float d[64];
#pragma unroll
        for (int j = 0; j < 64; ++j) d[j] = 0.f;
        for (int g = 0; g < groups; ++g) {
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
            wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
            wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        }
#pragma unroll
        for (int j = 0; j < 64; ++j) s += d[j];
    } else {
        unsigned u[8];
        float f[8];
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            u[c] = threadIdx.x * 7 + c;
            f[c] = threadIdx.x * 1e-4f + c;
        }
        for (int g = 0; g < groups; ++g) filler<KIND, X>(u, f);
#pragma unroll
        for (int c = 0; c < 8; ++c) s += f[c] + (float)u[c];
    }
    if (s == 12345.f) sink[blockIdx.x] = s;
}

#define MB34_KERNEL(K, KIND, X, MODE) \
    extern "C" __global__ void __launch_bounds__(256) mb34_##K##_x##X##_m##MODE(const unsigned* t, float* s, int g) { \
        two_groups<KIND, X, MODE>(t, s, g); \
    }
MB34_KERNEL(mma, ADD, 0, 0)
#define MB34_FILLERS(K, KIND, X) MB34_KERNEL(K, KIND, X, 1) MB34_KERNEL(K, KIND, X, 2)
MB34_FILLERS(add, ADD, 128) MB34_FILLERS(add, ADD, 512)
MB34_FILLERS(imad, IMAD, 128) MB34_FILLERS(imad, IMAD, 512)
MB34_FILLERS(ffma, FFMA, 128) MB34_FILLERS(ffma, FFMA, 512)
MB34_FILLERS(sel, SEL, 128) MB34_FILLERS(sel, SEL, 512)
