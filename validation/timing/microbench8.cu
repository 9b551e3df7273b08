// Eighth batch (run_microbench8.py): Hopper's tensor cores and async copies, sm_90a.
//   wgmma m64nNk (f16, bf16, tf32, e4m3; A from shared memory or registers): latency (one in flight)
//     and issue interval (groups of four on one accumulator, as a K loop issues them);
//   mma.sync m16n8k16 f16 -> f32: latency and throughput;
//   ldmatrix / stmatrix .x4: latency and throughput;
//   TMA (cp.async.bulk.tensor.2d) loads by box shape: latency and bandwidth, L2-resident or not;
//   cp.async.cg 16-byte copies into shared memory: bandwidth by active SMs, latency;
//   mbarrier: arrive + try_wait by one thread, and a two-warp ping-pong.
// Every kernel writes clock64 at its start and end per CTA (clocks[2 * cta], [2 * cta + 1]) after
// a __syncthreads, so a CTA's cycles exclude its launch; the runner also times launches by events.
// Build: nvcc -arch=sm_90a -cubin -o microbench8.cubin microbench8.cu (build.sh).

#include "microbench8_wgmma.h"
#include "microbench_mbarrier.h"

#define CLOCK_START()                       \
    __syncthreads();                        \
    long long t_start = clock64();
#define CLOCK_END()                                                          \
    __syncthreads();                                                         \
    if (threadIdx.x == 0) {                                                  \
        clocks[2 * blockIdx.x] = t_start;                                    \
        clocks[2 * blockIdx.x + 1] = clock64();                              \
    }

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// group == 1: one wgmma, commit, wait for it (latency: issue to result, per iteration).
// group == 4: four wgmmas on one accumulator, commit, wait until at most one group is pending
// (the issue interval, as a K loop keeps the tensor core busy).
#define MB8_WGMMA_KERNEL(KIND, SRC, N)                                                         \
    extern "C" __global__ void __launch_bounds__(128)                                          \
        mb8_wgmma_##KIND##_##SRC##_n##N(long long* clocks, float* sink, int iters, int group) {  \
        __shared__ __align__(1024) unsigned char tile[12288];                                  \
        for (int i = threadIdx.x; i < 12288 / 4; i += blockDim.x) ((unsigned*)tile)[i] = 0u;    \
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                           \
        unsigned long long da = wgmma_desc(smem_addr(tile), 128, 256);                         \
        unsigned long long db = wgmma_desc(smem_addr(tile + 4096), 128, 256);                  \
        unsigned a[4] = {0u, 0u, 0u, 0u};                                                      \
        float d[N / 2];                                                                        \
        _Pragma("unroll") for (int j = 0; j < N / 2; ++j) d[j] = 0.f;                          \
        CLOCK_START();                                                                         \
        wgmma_fence();                                                                         \
        if (group == 1) {                                                                      \
            for (int i = 0; i < iters; ++i) {                                                  \
                wgmma_##KIND##_##SRC##_n##N(d, a, da, db);                                     \
                wgmma_commit();                                                                \
                wgmma_wait<0>();                                                               \
            }                                                                                  \
        } else {                                                                               \
            for (int i = 0; i < iters; ++i) {                                                  \
                wgmma_##KIND##_##SRC##_n##N(d, a, da, db);                                     \
                wgmma_##KIND##_##SRC##_n##N(d, a, da, db);                                     \
                wgmma_##KIND##_##SRC##_n##N(d, a, da, db);                                     \
                wgmma_##KIND##_##SRC##_n##N(d, a, da, db);                                     \
                wgmma_commit();                                                                \
                wgmma_wait<1>();                                                               \
            }                                                                                  \
            wgmma_wait<0>();                                                                   \
        }                                                                                      \
        CLOCK_END();                                                                           \
        float s = 0.f;                                                                         \
        _Pragma("unroll") for (int j = 0; j < N / 2; ++j) s += d[j];                           \
        if (s == 12345.f) sink[threadIdx.x] = s;                                               \
    }

MB8_WGMMA_FORMS(MB8_WGMMA_KERNEL)

// ---- mma.sync m16n8k16 f16 -> f32: CHAINS independent accumulators per warp
template <int CHAINS>
__device__ void mma_sync_loop(long long* clocks, float* sink, int iters) {
    unsigned a[4] = {threadIdx.x, 0u, 0u, 0u}, b[2] = {0u, 0u};
    float d[CHAINS][4];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) d[c][0] = d[c][1] = d[c][2] = d[c][3] = 0.f;
    CLOCK_START();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                         "{%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    CLOCK_END();
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    if (s == 12345.f) sink[threadIdx.x] = s;
}

extern "C" __global__ void mb8_mma_sync_lat(long long* clocks, float* sink, int iters) {
    mma_sync_loop<1>(clocks, sink, iters);
}
extern "C" __global__ void mb8_mma_sync_thr(long long* clocks, float* sink, int iters) {
    mma_sync_loop<8>(clocks, sink, iters);
}

// ---- ldmatrix / stmatrix .x4 (four 8x8 b16 matrices per warp, lane l names row l: 512 bytes)
// lat: each ldmatrix's address depends on the last one's data (zeros); thr: four independent ones.
extern "C" __global__ void mb8_ldsm(long long* clocks, float* sink, int iters, int dependent) {
    __shared__ __align__(128) unsigned char buf[8 * 4096];
    for (int i = threadIdx.x; i < 8 * 1024; i += blockDim.x) ((unsigned*)buf)[i] = 0u;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned base = smem_addr(buf) + (warp & 7) * 4096 + lane * 16;
    unsigned acc = 0u, r0, r1, r2, r3;
    CLOCK_START();
    if (dependent) {
        unsigned addr = base;
        for (int i = 0; i < iters; ++i) {
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
            addr = base + (r0 & 0x100u);
            acc ^= r1;
        }
    } else {
        for (int i = 0; i < iters; ++i) {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                             : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(base + j * 1024) : "memory");
                acc ^= r0 ^ r1 ^ r2 ^ r3;
            }
        }
    }
    CLOCK_END();
    if (acc == 12345u) sink[threadIdx.x] = (float)acc;
}

extern "C" __global__ void mb8_stsm(long long* clocks, float* sink, int iters) {
    __shared__ __align__(128) unsigned char buf[8 * 4096];
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned base = smem_addr(buf) + (warp & 7) * 4096 + lane * 16;
    unsigned v = threadIdx.x;
    CLOCK_START();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                         :: "r"(base + j * 1024), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
        v += 4;
    }
    CLOCK_END();
    if (((unsigned*)buf)[threadIdx.x] == 12345u) sink[threadIdx.x] = 1.f;
}

// ---- TMA: thread 0 of each CTA keeps `stages` box loads in flight into a ring of dynamic shared
// memory, each completing on its stage's mbarrier; CTA c loads tiles c, c + grid, ... (row-major
// over tiles_x x tiles_y boxes, wrapping), `loads` of them. stages == 1 with one CTA: the latency.
// The map in constant memory, as a __grid_constant__ parameter would be (the first batch's map in
// global memory was fetched again by every copy: one box in flight per CTA).
__constant__ __align__(64) unsigned char mb8_tmap_const[128];

extern "C" __global__ void mb8_tma_load(const void* tmap_arg, long long* clocks, long long* lat, int tiles_x,
                                        int tiles_y, int box_x, int box_y, int box_bytes, int loads, int stages) {
    extern __shared__ __align__(1024) unsigned char ring[];
    __shared__ __align__(8) unsigned long long bars[8];
    const void* tmap = tmap_arg ? tmap_arg : (const void*)mb8_tmap_const;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[s]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    CLOCK_START();
    if (threadIdx.x == 0) {
        int tiles = tiles_x * tiles_y;
        long long lat_sum = 0, issued_at[8];
        auto issue = [&](int n, int s) {
            int t = (int)(((long long)blockIdx.x + (long long)n * gridDim.x) % tiles);
            int x = (t % tiles_x) * box_x, y = (t / tiles_x) * box_y;
            unsigned bar = smem_addr(&bars[s]);
            mbar_expect_tx(bar, (unsigned)box_bytes);
            issued_at[s] = clock64();
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                         "[%0], [%1, {%2, %3}], [%4];"
                         ::"r"(smem_addr(ring + s * box_bytes)), "l"(tmap), "r"(x), "r"(y), "r"(bar) : "memory");
        };
        for (int n = 0; n < stages && n < loads; ++n) issue(n, n);
        for (int n = 0; n < loads; ++n) {
            int s = n % stages;
            mbar_wait(smem_addr(&bars[s]), (unsigned)((n / stages) & 1));
            lat_sum += clock64() - issued_at[s];
            if (n + stages < loads) issue(n + stages, s);
        }
        lat[blockIdx.x] = lat_sum;
    }
    CLOCK_END();
}

// ---- cp.async.cg 16-byte copies: each thread copies `per` x 16 bytes per round into a ring of
// `stages` rounds (blockDim.x x per x 16 bytes each), waiting for the round three back; CTA c reads its
// own `region` bytes of src, `passes` times. In flight per CTA: 4 x per x blockDim.x x 16 bytes.
extern "C" __global__ void mb8_cpasync_bw(const int4* src, long long* clocks, float* sink, long long region,
                                          int passes, int stages, int per) {
    extern __shared__ __align__(128) int4 ring4[];
    const int4* mine = src + blockIdx.x * (region / 16);
    long long rounds = region / (16LL * blockDim.x * per);
    CLOCK_START();
    long long n = 0;
    for (int p = 0; p < passes; ++p) {
        for (long long r = 0; r < rounds; ++r, ++n) {
            for (int j = 0; j < per; ++j) {
                unsigned dst = smem_addr(&ring4[((n % stages) * per + j) * blockDim.x + threadIdx.x]);
                const int4* from = mine + (r * per + j) * blockDim.x + threadIdx.x;
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(from) : "memory");
            }
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 3;" ::: "memory");
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    CLOCK_END();
    if (ring4[threadIdx.x].x == 12345) sink[0] = 1.f;
}

// one thread: copy 16 bytes, wait for it, `iters` times over addresses `step` bytes apart
extern "C" __global__ void mb8_cpasync_lat(const unsigned char* src, long long* clocks, float* sink, int iters,
                                           long long step, long long span) {
    __shared__ __align__(16) int4 slot[1];
    CLOCK_START();
    long long off = 0;
    if (threadIdx.x == 0) {
        for (int i = 0; i < iters; ++i) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(slot)), "l"(src + off) : "memory");
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 0;" ::: "memory");
            off = (off + step + (slot[0].x & 0)) % span;
        }
    }
    CLOCK_END();
    if (slot[0].x == 12345) sink[0] = 1.f;
}

// ---- mbarrier round trips. mode 0: thread 0 arrives on a one-arrival barrier and waits for the
// phase it completed. mode 1: warp 0 and warp 1 (lane 0 of each) hand a token back and forth over
// two barriers (full / empty), as a producer and a consumer warp of a pipeline do.
extern "C" __global__ void mb8_mbarrier(long long* clocks, float* sink, int iters, int mode) {
    __shared__ __align__(8) unsigned long long bars[2];
    unsigned full = smem_addr(&bars[0]), empty = smem_addr(&bars[1]);
    if (threadIdx.x == 0) {
        mbar_init(full, 1);
        mbar_init(empty, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    CLOCK_START();
    if (mode == 0) {
        if (threadIdx.x == 0)
            for (int i = 0; i < iters; ++i) {
                mbar_arrive(full);
                mbar_wait(full, (unsigned)(i & 1));
            }
    } else if ((threadIdx.x & 31) == 0 && threadIdx.x < 64) {
        bool producer = threadIdx.x == 0;
        for (int i = 0; i < iters; ++i) {
            if (producer) {
                mbar_arrive(full);
                mbar_wait(empty, (unsigned)(i & 1));
            } else {
                mbar_wait(full, (unsigned)(i & 1));
                mbar_arrive(empty);
            }
        }
    }
    CLOCK_END();
    if (iters < 0) sink[0] = 1.f;
}

// ---- cp.async, lean: PER 16-byte copies per thread per round into a ring of four rounds, int
// counters (the first batch's 64-bit ring index cost more than the copies' latency), waiting until
// at most WAIT groups are pending: WAIT 3 keeps four rounds in flight (bandwidth), WAIT 0 one
// (a group's latency by its bytes: PER x 512 bytes per warp).
template <int PER, int WAIT>
__device__ void cpasync_ring(const int4* src, long long* clocks, float* sink, int rounds, int passes) {
    extern __shared__ __align__(128) int4 lean_ring[];
    const int4* mine = src + (size_t)blockIdx.x * rounds * PER * blockDim.x + threadIdx.x;
    unsigned base = smem_addr(lean_ring) + threadIdx.x * 16;
    CLOCK_START();
    for (int p = 0; p < passes; ++p) {
        for (int r = 0; r < rounds; ++r) {
            unsigned slot = base + (unsigned)((r & 3) * PER) * blockDim.x * 16;
#pragma unroll
            for (int j = 0; j < PER; ++j)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                             ::"r"(slot + j * blockDim.x * 16), "l"(mine + (r * PER + j) * blockDim.x) : "memory");
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group %0;" ::"n"(WAIT) : "memory");
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    CLOCK_END();
    if (lean_ring[threadIdx.x].x == 12345) sink[0] = 1.f;
}

#define MB8_CPASYNC(PER, WAIT)                                                                          \
    extern "C" __global__ void mb8_cpasync_p##PER##_w##WAIT(const int4* src, long long* clocks, float* sink, \
                                                           int rounds, int passes) {                       \
        cpasync_ring<PER, WAIT>(src, clocks, sink, rounds, passes);                                     \
    }
MB8_CPASYNC(1, 3)
MB8_CPASYNC(4, 3)
MB8_CPASYNC(8, 3)
MB8_CPASYNC(1, 0)
MB8_CPASYNC(2, 0)
MB8_CPASYNC(4, 0)
MB8_CPASYNC(8, 0)
