// Twenty-eighth batch (run_microbench28.py): how a warpgroup's wgmmas queue at the tensor core, and
// what Nsight Compute calls the wait. One warpgroup a CTA, 1, 2 or 4 CTAs an SM (so 1, 2 or 4 warps
// of a sub-partition share its tensor core). Each group: N wgmma.m64nNk16 f16 -> f32 (A and B from
// shared memory) into one accumulator, a commit, and a wait that lets P groups pend (P = 0: the
// group's own wait; P = 1: Triton's pipelined K loop, which waits for the group before).
// Build: nvcc -arch=sm_90a -cubin -o microbench28.cubin microbench28.cu

#include "microbench8_wgmma.h"

template <int WIDTH> struct Acc;
template <> struct Acc<128> { static constexpr int regs = 64; };
template <> struct Acc<256> { static constexpr int regs = 128; };

template <int WIDTH>
__device__ __forceinline__ void mma(float (&d)[Acc<WIDTH>::regs], const unsigned (&a)[4], unsigned long long da,
                                    unsigned long long db);
template <> __device__ __forceinline__ void mma<128>(float (&d)[64], const unsigned (&a)[4], unsigned long long da,
                                                     unsigned long long db) { wgmma_f16_ss_n128(d, a, da, db); }
template <> __device__ __forceinline__ void mma<256>(float (&d)[128], const unsigned (&a)[4], unsigned long long da,
                                                     unsigned long long db) { wgmma_f16_ss_n256(d, a, da, db); }

template <int WIDTH, int N, int PENDING>
__device__ __forceinline__ void queue_body(const unsigned* tile_words, float* sink, int groups) {
    __shared__ __align__(1024) unsigned char tile[20480];
    load_tile(tile, tile_words, 20480);
    unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);
    unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);
    unsigned a[4] = {tile_words[threadIdx.x], tile_words[threadIdx.x + 128], tile_words[threadIdx.x + 256],
                     tile_words[threadIdx.x + 384]};
    float d[Acc<WIDTH>::regs];
#pragma unroll
    for (int j = 0; j < Acc<WIDTH>::regs; ++j) d[j] = 0.f;
    for (int g = 0; g < groups; ++g) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < N; ++k) mma<WIDTH>(d, a, da, db);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(PENDING) : "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < Acc<WIDTH>::regs; ++j) s += d[j];
    if (s == 12345.f) sink[blockIdx.x] = s;
}

#define MB28_KERNEL(W, N, P) \
    extern "C" __global__ void __launch_bounds__(128) mb28_w##W##_n##N##_p##P(const unsigned* t, float* s, int g) { \
        queue_body<W, N, P>(t, s, g); \
    }
#define MB28_FORMS(X) \
    X(128, 1, 0) X(128, 2, 0) X(128, 4, 0) X(128, 8, 0) X(128, 16, 0) \
    X(128, 2, 1) X(128, 4, 1) X(128, 8, 1) \
    X(256, 2, 0) X(256, 4, 0) X(256, 8, 0) \
    X(256, 2, 1) X(256, 4, 1)
MB28_FORMS(MB28_KERNEL)
