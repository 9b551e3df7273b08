// Sixty-eighth microbenchmark batch (run_microbench68.py): how many CTAs asking for the same tiles at about
// the same time wait out the first one's HBM read, and for how long one cp.async round trip takes on this card.
// - mb68_ring: the sixty-sixth batch's cp.async ring (2 or 3 stages of 16 KB, one CTA an SM, a loop of
//   `work` FFMAs between stages that runs zero times here), streaming 64 tiles once from a cold L2. The CTAs
//   of a group of `sharers` read the same tiles; with `stagger` 1, CTA j of a group starts j tiles later, so
//   from its second stage on it reads a tile its neighbour asked for one stage earlier.
// - mb68_chase: one thread's 16-byte cp.async, commit, wait_group 0, the next address from the copied word
//   (the eighth batch's mb8_cpasync_lat), over `span` bytes `step` apart: L2-resident or each line from HBM.
#include <cstdint>

__device__ __forceinline__ unsigned smem_u32_68(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <int STAGES>
__device__ __forceinline__ void ring68(const int4* __restrict__ base, int region_tiles, int sharers, int stagger,
                                       int iters, int work, float* sink) {
    constexpr int COPIES = 8;
    __shared__ __align__(128) int4 stage[STAGES][COPIES * 128];
    const int4* region = base + (long long)(blockIdx.x / sharers) * region_tiles * COPIES * 128;
    const int first = stagger * (blockIdx.x % sharers);
    float x = threadIdx.x * 1e-3f;
    auto issue = [&](int n) {
        const int4* tile = region + (long long)((n + first) % region_tiles) * COPIES * 128;
        int slot = n % STAGES;
#pragma unroll
        for (int k = 0; k < COPIES; ++k) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"(smem_u32_68(&stage[slot][k * 128 + threadIdx.x])), "l"(tile + k * 128 + threadIdx.x));
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

extern "C" __global__ void __launch_bounds__(128) mb68_ring_s2(const int4* base, int region_tiles, int sharers,
                                                               int stagger, int iters, int work, float* sink) {
    ring68<2>(base, region_tiles, sharers, stagger, iters, work, sink);
}

extern "C" __global__ void __launch_bounds__(128) mb68_ring_s3(const int4* base, int region_tiles, int sharers,
                                                               int stagger, int iters, int work, float* sink) {
    ring68<3>(base, region_tiles, sharers, stagger, iters, work, sink);
}

extern "C" __global__ void mb68_chase(const unsigned char* src, float* sink, int iters, long long step,
                                      long long span) {
    __shared__ __align__(16) int4 slot[1];
    long long off = 0;
    if (threadIdx.x == 0) {
        for (int i = 0; i < iters; ++i) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_u32_68(slot)), "l"(src + off)
                         : "memory");
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 0;" ::: "memory");
            off = (off + step + (slot[0].x & 0)) % span;
        }
    }
    if (slot[0].x == 12345) sink[0] = 1.f;
}
