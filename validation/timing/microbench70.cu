// Seventieth microbenchmark batch (run_microbench70.py): whether a persistent CTA's later passes wait on
// HBM for their copies as its first pass does. A cp.async ring of 2 or 3 stages of 16 KB (8 KB of an
// "A" panel tile, 8 KB of a "B" panel tile), 128 threads a CTA, runs over the CTA's jobs one after the
// other as one flat loop of stages (job j = blockIdx.x + p * gridDim.x for the CTA's pass p, as a
// persistent matmul's tiles), each job streaming `k_tiles` stages: A panel (j / nb) % m_mod, B panel
// j % nb, plus p * nb where `b_fresh` gives each pass panels of its own.
// - fresh: later passes read new A panels and the B panels of pass 0 (other CTAs read them a pass ago)
// - reread: later passes read A and B panels other CTAs read a pass ago (m_mod 8)
// - all fresh: every pass reads new panels
// The same jobs as one CTA each (gridDim.x = jobs) run in one wave, every reader of a panel in step.
#include <cstdint>

__device__ __forceinline__ unsigned smem_u32_70(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <int STAGES>
__device__ __forceinline__ void stream70(const int4* __restrict__ a, const int4* __restrict__ b, int jobs, int nb,
                                         int m_mod, int b_fresh, int k_tiles, float* sink) {
    constexpr int HALF = 4;                       // 16-byte copies a thread makes of each panel a stage
    constexpr int TILE = HALF * 128;              // int4s of an 8 KB panel tile
    __shared__ __align__(128) int4 stage[STAGES][2 * TILE];
    const int mine = (jobs - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;
    const int total = mine * k_tiles;
    float x = threadIdx.x * 1e-3f;
    auto issue = [&](int s) {
        if (s < total) {
            const int p = s / k_tiles, kk = s % k_tiles;
            const int j = blockIdx.x + p * gridDim.x;
            const int m = (j / nb) % m_mod, n = j % nb + (b_fresh ? p * nb : 0);
            const int4* at = a + ((long long)m * k_tiles + kk) * TILE;
            const int4* bt = b + ((long long)n * k_tiles + kk) * TILE;
            const int slot = s % STAGES;
#pragma unroll
            for (int k = 0; k < HALF; ++k) {
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                             :: "r"(smem_u32_70(&stage[slot][k * 128 + threadIdx.x])), "l"(at + k * 128 + threadIdx.x));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                             :: "r"(smem_u32_70(&stage[slot][TILE + k * 128 + threadIdx.x])),
                             "l"(bt + k * 128 + threadIdx.x));
            }
        }
        asm volatile("cp.async.commit_group;");
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) issue(s);
#pragma unroll 1
    for (int i = 0; i < total; ++i) {
        issue(i + STAGES - 1);
        asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 1));
        __syncthreads();
        x += __int_as_float(stage[i % STAGES][(threadIdx.x * 7) % (2 * TILE)].x & 0x3f7fffff);
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;");
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void __launch_bounds__(128) mb70_stream_s2(const int4* a, const int4* b, int jobs, int nb,
                                                                 int m_mod, int b_fresh, int k_tiles, float* sink) {
    stream70<2>(a, b, jobs, nb, m_mod, b_fresh, k_tiles, sink);
}

extern "C" __global__ void __launch_bounds__(128) mb70_stream_s3(const int4* a, const int4* b, int jobs, int nb,
                                                                 int m_mod, int b_fresh, int k_tiles, float* sink) {
    stream70<3>(a, b, jobs, nb, m_mod, b_fresh, k_tiles, sink);
}
