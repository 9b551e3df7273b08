// Fourteenth batch (run_microbench14.py): the SM clock a kernel runs at, by how busy it keeps the tensor
// cores and with what data. The eighth batch timed wgmma on zero tiles at 1,980 MHz; set 3's Triton
// matmuls and attention ran at 1,610-1,780 MHz under ncu (sm__cycles_elapsed.avg.per_second), softmax
// and layer norm at 1,940-1,970.
//
// mb14_tensor: one CTA of two warpgroups per SM; each warpgroup issues groups of four
// wgmma.m64n256k16 f16 -> f32 on one accumulator from a tile filled with `tile` (random f16 or
// zeros), waits until at most one group is pending, then runs `spin` dependent FFMAs per thread: the
// tensor core is busy about 512 / (512 + spin x 4) of the time. mb14_ffma: FFMA chains only, 32 warps
// per SM. Thread 0 of each CTA writes clock64 and %globaltimer at its start and end (stamps[4 * cta ..]):
// their ratio is the SM clock.
// Build: nvcc -arch=sm_90a -cubin -o microbench14.cubin microbench14.cu

#include "microbench8_wgmma.h"

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#define STAMP(slot)                                               \
    if (threadIdx.x == 0) {                                       \
        stamps[4 * blockIdx.x + 2 * (slot)] = clock64();          \
        stamps[4 * blockIdx.x + 2 * (slot) + 1] = global_ns();    \
    }

extern "C" __global__ void __launch_bounds__(256) mb14_tensor(const unsigned* tile_words, long long* stamps,
                                                              float* sink, int iters, int spin) {
    __shared__ __align__(1024) unsigned char tile[12288];
    load_tile(tile, tile_words, 12288);
    unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);
    unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
    unsigned a[4] = {0u, 0u, 0u, 0u};
    float d[128];
#pragma unroll
    for (int j = 0; j < 128; ++j) d[j] = 0.f;
    float x = threadIdx.x * 1e-3f, y = 1.0001f;
    STAMP(0);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int i = 0; i < iters; ++i) {
        wgmma_f16_ss_n256(d, a, da, db);
        wgmma_f16_ss_n256(d, a, da, db);
        wgmma_f16_ss_n256(d, a, da, db);
        wgmma_f16_ss_n256(d, a, da, db);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        for (int s = 0; s < spin; ++s) x = fmaf(x, y, 1e-7f);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();
    STAMP(1);
    float s = x;
#pragma unroll
    for (int j = 0; j < 128; ++j) s += d[j];
    if (s == 12345.f) sink[blockIdx.x] = s;                 // keeps the work
}

extern "C" __global__ void mb14_ffma(long long* stamps, float* sink, int iters) {
    float a = threadIdx.x * 1e-3f, b = a + 1.f, c = a + 2.f, e = a + 3.f, y = 1.0001f;
    STAMP(0);
    for (int i = 0; i < iters; ++i) {
        a = fmaf(a, y, 1e-7f); b = fmaf(b, y, 1e-7f); c = fmaf(c, y, 1e-7f); e = fmaf(e, y, 1e-7f);
    }
    __syncthreads();
    STAMP(1);
    if (a + b + c + e == 12345.f) sink[blockIdx.x] = a;
}
