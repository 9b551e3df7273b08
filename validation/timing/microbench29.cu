// Twenty-ninth batch (run_microbench29.py), two questions.
// 1. What a warp's other instructions cost while its warpgroup's wgmmas run on the tensor core, and
//    what Nsight Compute calls their wait. One warpgroup a CTA, 1 or 2 CTAs an SM. Each group: four
//    wgmma.m64n128k16 f16 -> f32 (A and B from shared memory), a commit, then X independent
//    instructions of one kind (eight chains, so none waits for another), then the wait for the group.
//    Kinds: integer adds (IADD3 and IMAD.IADD: ptxas splits them over the ALU and FMA pipes),
//    integer multiply-adds (IMAD), FP32 FMAs (FFMA), compare-and-selects (ISETP + SEL, as Triton's
//    loops mask their loads).
// 2. Whether the queueing after a CTA's only barrier spreads its warps at it: eight CTAs of eight
//    warps an SM run FMA chains after one __syncthreads (mb29_chains_once) or with one ending every
//    round (mb29_chains_every).
// Build: nvcc -arch=sm_90a -cubin -o microbench29.cubin microbench29.cu

#include "microbench8_wgmma.h"
#include "microbench_fillers.h"

template <int KIND, int X>
__device__ __forceinline__ void beside_body(const unsigned* tile_words, float* sink, int groups) {
    __shared__ __align__(1024) unsigned char tile[12288];
    load_tile(tile, tile_words, 12288);
    unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);
    unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
    unsigned a[4] = {tile_words[threadIdx.x], tile_words[threadIdx.x + 128], tile_words[threadIdx.x + 256],
                     tile_words[threadIdx.x + 384]};
    float d[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) d[j] = 0.f;
    unsigned u[8];
    float f[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        u[c] = threadIdx.x * 7 + c;
        f[c] = threadIdx.x * 1e-4f + c;
    }
    for (int g = 0; g < groups; ++g) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
        wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        filler<KIND, X>(u, f);
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < 64; ++j) s += d[j];
#pragma unroll
    for (int c = 0; c < 8; ++c) s += f[c] + (float)u[c];
    if (s == 12345.f) sink[blockIdx.x] = s;
}

#define MB29_KERNEL(K, KIND, X) \
    extern "C" __global__ void __launch_bounds__(128) mb29_##K##_x##X(const unsigned* t, float* s, int g) { \
        beside_body<KIND, X>(t, s, g); \
    }
#define MB29_FORMS(X_) \
    X_(add, ADD, 0) X_(add, ADD, 64) X_(add, ADD, 128) X_(add, ADD, 256) X_(add, ADD, 512) \
    X_(imad, IMAD, 64) X_(imad, IMAD, 128) X_(imad, IMAD, 256) X_(imad, IMAD, 512) \
    X_(ffma, FFMA, 64) X_(ffma, FFMA, 128) X_(ffma, FFMA, 256) X_(ffma, FFMA, 512) \
    X_(sel, SEL, 64) X_(sel, SEL, 128) X_(sel, SEL, 256)
MB29_FORMS(MB29_KERNEL)

template <bool EVERY_ROUND>
__device__ __forceinline__ void fma_chains(float* out, const float* in, int rounds) {
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = s[(threadIdx.x + k) % 256];
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], 1.0001f, 0.5f);
        if (EVERY_ROUND) __syncthreads();
    }
    float t = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k) t += a[k];
    out[blockIdx.x * 256 + threadIdx.x] = t;
}
extern "C" __global__ void mb29_chains_once(float* out, const float* in, int rounds) { fma_chains<false>(out, in, rounds); }
extern "C" __global__ void mb29_chains_every(float* out, const float* in, int rounds) { fma_chains<true>(out, in, rounds); }
