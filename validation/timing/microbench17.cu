// Seventeenth batch (run_microbench17.py): does a warpgroup's wgmma slow the other warps of its
// sub-partitions? One CTA of two warpgroups per SM: warpgroup 0 runs `groups` groups of four
// wgmma.m64n128k16 f16 -> f32 (A from shared memory, mb17_beside_ss, or from registers, mb17_beside_rs), waiting until
// at most one group is pending; warpgroup 1 runs `rounds` rounds of 16 independent FFMAs (`mufu` 0) or
// 4 MUFU.EX2 and 8 FFMAs (`mufu` 1) at the same time. Either count may be 0 (that warpgroup idles).
// Thread 0 of each warp writes clock64 at the start and end of its own loop (stamps[2 * warp ..] of
// its CTA's 16), after a __syncthreads at the start.
// Build: nvcc -arch=sm_90a -cubin -o microbench17.cubin microbench17.cu

#include "microbench8_wgmma.h"

__device__ __forceinline__ float ex2_neg(float x) {
    float y;
    asm volatile("{\n.reg .f32 t;\nneg.f32 t, %1;\nex2.approx.ftz.f32 %0, t;\n}" : "=f"(y) : "f"(x));
    return y;
}

template <bool RS>
__device__ __forceinline__ void beside(const unsigned* tile_words, long long* stamps, float* sink, int groups,
                                       int rounds, int mufu) {
    __shared__ __align__(1024) unsigned char tile[12288];
    load_tile(tile, tile_words, 12288);
    int warp = threadIdx.x / 32;
    long long t0 = clock64();
    float s = 0.f;
    if (warp < 4) {
        unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);
        unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
        unsigned a[4] = {tile_words[threadIdx.x], tile_words[threadIdx.x + 128], tile_words[threadIdx.x + 256],
                         tile_words[threadIdx.x + 384]};
        float d[64];
#pragma unroll
        for (int j = 0; j < 64; ++j) d[j] = 0.f;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int g = 0; g < groups; ++g) {
            if (RS) {
                wgmma_f16_rs_n128(d, a, da, db); wgmma_f16_rs_n128(d, a, da, db);
                wgmma_f16_rs_n128(d, a, da, db); wgmma_f16_rs_n128(d, a, da, db);
            } else {
                wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
                wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
            }
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
        for (int j = 0; j < 64; ++j) s += d[j];
    } else {
        float f[16];
#pragma unroll
        for (int j = 0; j < 16; ++j) f[j] = threadIdx.x * 1e-4f + j;
        if (mufu) {
            for (int r = 0; r < rounds; ++r) {
#pragma unroll
                for (int j = 0; j < 4; ++j) f[j] = ex2_neg(f[j]);
#pragma unroll
                for (int j = 4; j < 12; ++j) f[j] = fmaf(f[j], 1.0001f, 0.5f);
            }
        } else {
            for (int r = 0; r < rounds; ++r) {
#pragma unroll
                for (int j = 0; j < 16; ++j) f[j] = fmaf(f[j], 1.0001f, 0.5f);
            }
        }
#pragma unroll
        for (int j = 0; j < 16; ++j) s += f[j];
    }
    long long t1 = clock64();
    if ((threadIdx.x & 31) == 0) {
        stamps[16 * blockIdx.x + 2 * warp] = t0;
        stamps[16 * blockIdx.x + 2 * warp + 1] = t1;
    }
    if (s == 12345.f) sink[blockIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(256) mb17_beside_ss(const unsigned* tile_words, long long* stamps,
                                                                 float* sink, int groups, int rounds, int mufu) {
    beside<false>(tile_words, stamps, sink, groups, rounds, mufu);
}

extern "C" __global__ void __launch_bounds__(256) mb17_beside_rs(const unsigned* tile_words, long long* stamps,
                                                                 float* sink, int groups, int rounds, int mufu) {
    beside<true>(tile_words, stamps, sink, groups, rounds, mufu);
}
