// The seventy-first batch's attention step (microbench71.cu), which the seventy-second (microbench72.cu)
// runs too: attention71<SOFTMAX, PV, COPY> runs `iters` steps of a flash-attention forward's inner loop for
// its CTA's warpgroups (see microbench71.cu); with STAGGER the second warpgroup starts `stagger` cycles
// after the first (a clock64 spin after the tile is loaded; without it there is no spin at all).
#pragma once

#include "microbench8_wgmma.h"

__device__ __forceinline__ float ex2_71(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ unsigned pack_71(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

template <int SOFTMAX, int PV, int COPY, bool STAGGER = false>
__device__ __forceinline__ void attention71(const unsigned* tile_words, const uint4* src, float* sink, int iters,
                                            unsigned region_mask, long long stagger = 0) {
    __shared__ __align__(1024) unsigned char tile[20480];
    __shared__ __align__(16) uint4 stage[2][8 * 256];
    load_tile(tile, tile_words, 20480);
    const unsigned long long dq = wgmma_desc(smem_addr(tile), 128, 256);
    const unsigned long long dk = wgmma_desc(smem_addr(tile + 4096), 128, 256);
    const unsigned long long dv = wgmma_desc(smem_addr(tile + 12288), 128, 256);
    const unsigned none[4] = {0u, 0u, 0u, 0u};
    float o[32], s[32];
#pragma unroll
    for (int j = 0; j < 32; ++j) o[j] = 0.f;
    float m0 = -1e30f, m1 = -1e30f, l0 = 0.f, l1 = 0.f;
    const float scale = 0.125f * 1.4426950408889634f;
    const unsigned base = blockIdx.x * 8 * 256;
    if (STAGGER && threadIdx.x >= 128) {    // the second warpgroup starts `stagger` cycles after the first
        const long long t0 = clock64();
        while (clock64() - t0 < stagger) {
        }
    }
    for (int it = 0; it < iters; ++it) {
        if (COPY) {
            uint4* into = stage[it & 1];
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                unsigned at = (base + (unsigned)it * 2048u + c * blockDim.x + threadIdx.x) & region_mask;
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::
                             "r"(smem_addr(into + c * blockDim.x + threadIdx.x)), "l"(src + at) : "memory");
            }
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 1;" ::: "memory");
            __syncthreads();
        }
#pragma unroll
        for (int j = 0; j < 32; ++j) s[j] = 0.f;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < 4; ++k) wgmma_f16_ss_n64(s, none, dq + 2 * k, dk + 2 * k);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (SOFTMAX) {
            float r0 = m0, r1 = m1;
#pragma unroll
            for (int j = 0; j < 32; j += 4) {
                r0 = fmaxf(r0, fmaxf(s[j], s[j + 1]));
                r1 = fmaxf(r1, fmaxf(s[j + 2], s[j + 3]));
            }
#pragma unroll
            for (int k = 1; k <= 2; k <<= 1) {
                r0 = fmaxf(r0, __shfl_xor_sync(0xffffffffu, r0, k));
                r1 = fmaxf(r1, __shfl_xor_sync(0xffffffffu, r1, k));
            }
            const float a0 = ex2_71((m0 - r0) * scale), a1 = ex2_71((m1 - r1) * scale);
            m0 = r0;
            m1 = r1;
            float t0 = 0.f, t1 = 0.f;
#pragma unroll
            for (int j = 0; j < 32; j += 4) {
                s[j] = ex2_71(fmaf(s[j], scale, -r0 * scale));
                s[j + 1] = ex2_71(fmaf(s[j + 1], scale, -r0 * scale));
                s[j + 2] = ex2_71(fmaf(s[j + 2], scale, -r1 * scale));
                s[j + 3] = ex2_71(fmaf(s[j + 3], scale, -r1 * scale));
                t0 += s[j] + s[j + 1];
                t1 += s[j + 2] + s[j + 3];
            }
#pragma unroll
            for (int k = 1; k <= 2; k <<= 1) {
                t0 += __shfl_xor_sync(0xffffffffu, t0, k);
                t1 += __shfl_xor_sync(0xffffffffu, t1, k);
            }
            l0 = l0 * a0 + t0;
            l1 = l1 * a1 + t1;
#pragma unroll
            for (int j = 0; j < 32; j += 4) {
                o[j] *= a0; o[j + 1] *= a0; o[j + 2] *= a1; o[j + 3] *= a1;
            }
        }
        if (PV) {
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const unsigned p[4] = {pack_71(s[8 * k], s[8 * k + 1]), pack_71(s[8 * k + 2], s[8 * k + 3]),
                                       pack_71(s[8 * k + 4], s[8 * k + 5]), pack_71(s[8 * k + 6], s[8 * k + 7])};
                wgmma_f16_rs_n64(o, p, 0ull, dv + 2 * k);
            }
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        } else if (!SOFTMAX) {
#pragma unroll
            for (int j = 0; j < 32; ++j) o[j] += s[j];
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    float total = l0 + l1;
#pragma unroll
    for (int j = 0; j < 32; ++j) total += o[j];
    if (COPY) total += __uint_as_float(stage[0][threadIdx.x].x);
    if (total == 12345.f) sink[blockIdx.x] = total;
}

