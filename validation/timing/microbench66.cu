// Sixty-sixth microbenchmark batch (run_microbench66.py): how long a pipelined cp.async stage takes to land
// when one CTA an SM keeps 1 or 2 stages in flight, as Triton's attention loop does. Set 3's attention
// launches, one CTA an SM, wait at the BAR.SYNC after their copies' DEPBAR for 41-47% of their samples in
// the two-stage configurations (a 16 KB stage of keys and values about 1,900 cycles after its copies
// start), where the model's walk has the copies' unloaded latency and the L2's rate.
// Each of 128 threads copies COPIES 16-byte words a stage with cp.async.cg (LDGSTS.BYPASS) into a ring of
// STAGES stages of shared memory, commits, waits until STAGES - 1 groups pend, meets at __syncthreads,
// reads a word of the stage and runs `work` dependent FFMAs, meets again, and issues the next stage.
// CTAs c of a group (c / sharers) read the same tiles in the same order (attention's CTAs of one head
// read the same keys and values); all regions together stay resident in L2.
#include <cstdint>

__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <int STAGES, int COPIES>
__device__ __forceinline__ void ring(const int4* __restrict__ base, int region_tiles, int sharers, int iters,
                                     int work, float* sink) {
    __shared__ __align__(128) int4 stage[STAGES][COPIES * 128];
    const int4* region = base + (long long)(blockIdx.x / sharers) * region_tiles * COPIES * 128;
    float x = threadIdx.x * 1e-3f;
    auto issue = [&](int n) {
        const int4* tile = region + (long long)(n % region_tiles) * COPIES * 128;
        int slot = n % STAGES;
#pragma unroll
        for (int k = 0; k < COPIES; ++k) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"(smem_u32(&stage[slot][k * 128 + threadIdx.x])), "l"(tile + k * 128 + threadIdx.x));
        }
        asm volatile("cp.async.commit_group;");
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) issue(s);
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
        issue(i + STAGES - 1);
        asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 1));
        __syncthreads();
        x += __int_as_float(stage[i % STAGES][(threadIdx.x * 7) % (COPIES * 128)].x & 0x3f7fffff);
#pragma unroll 1
        for (int w = 0; w < work; ++w) x = fmaf(x, 0.999f, 0.5f);
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;");
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

#define MB66(S, C) \
extern "C" __global__ void __launch_bounds__(128) mb66_s##S##_c##C(const int4* base, int region_tiles, int sharers, \
                                                                   int iters, int work, float* sink) { \
    ring<S, C>(base, region_tiles, sharers, iters, work, sink); \
}
MB66(2, 4)
MB66(2, 8)
MB66(3, 4)
MB66(3, 8)
