// Twenty-sixth batch (run_microbench26.py): what a warp of a warpgroup that reaches its wgmma before
// the others waits under, in Nsight Compute's stall reasons. One warpgroup a CTA: each group, warp w
// first runs `skew * w` dependent FFMAs, then the warpgroup issues four wgmma.m64n128k16 f16 -> f32
// (A and B from shared memory), commits and waits for them; with `sync` 1 the CTA then meets at
// __syncthreads (as Triton's cp.async pipelines do every iteration), with `sync` 2 it meets there
// before the wgmmas instead.
// Build: nvcc -arch=sm_90a -cubin -o microbench26.cubin microbench26.cu

#include "microbench8_wgmma.h"

extern "C" __global__ void __launch_bounds__(128) mb26_skew(const unsigned* tile_words, float* sink, int groups,
                                                            int skew, int sync) {
    __shared__ __align__(1024) unsigned char tile[12288];
    load_tile(tile, tile_words, 12288);
    int warp = threadIdx.x / 32;
    unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);
    unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
    unsigned a[4] = {tile_words[threadIdx.x], tile_words[threadIdx.x + 128], tile_words[threadIdx.x + 256],
                     tile_words[threadIdx.x + 384]};
    float d[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) d[j] = 0.f;
    float x = threadIdx.x * 1e-4f;
    int n = skew * warp;
    for (int g = 0; g < groups; ++g) {
        for (int k = 0; k < n; ++k) x = fmaf(x, 1.0001f, 0.5f);
        if (sync == 2) __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
        wgmma_f16_ss_n128(d, a, da, db); wgmma_f16_ss_n128(d, a, da, db);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (sync == 1) __syncthreads();
    }
    float s = x;
#pragma unroll
    for (int j = 0; j < 64; ++j) s += d[j];
    if (s == 12345.f) sink[blockIdx.x] = s;
}
