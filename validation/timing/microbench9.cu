// Ninth batch (run_microbench9.py): TMA box loads as a pipelined matmul issues them, sm_90a.
// Thread 0 of each CTA keeps `stages` stages in flight into a ring of dynamic shared memory; a stage
// is `per_stage` boxes issued back to back onto one mbarrier (expect_tx of their bytes first), as a
// Triton or CUTLASS K loop loads A's and B's tiles. CTA c loads tiles c, c + grid, ... (row-major over
// tiles_x x tiles_y boxes, wrapping). The tensor map is in constant memory, as a __grid_constant__
// parameter's would be (map_mode 0), in global memory written by the host (1), or in global memory
// written by the kernel itself with tensormap.cp_fenceproxy, then fenced, as Triton's
// tl.make_tensor_descriptor leaves it (2).
// Every kernel writes clock64 at its start and end per CTA (clocks[2 * cta], [2 * cta + 1]).
// Build: nvcc -arch=sm_90a -cubin -o microbench9.cubin microbench9.cu (build.sh).
#include "microbench_mbarrier.h"

__constant__ __align__(64) unsigned char mb9_tmap_const[128];

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void mb9_tma_pipe(const void* tmap_global,
                                        void* tmap_scratch, long long* clocks, long long* lat, int tiles_x,
                                        int tiles_y, int box_x, int box_y, int box_bytes, int loads, int stages,
                                        int per_stage, int map_mode) {
    extern __shared__ __align__(1024) unsigned char ring[];
    __shared__ __align__(128) unsigned char map_copy[128];
    __shared__ __align__(8) unsigned long long bars[8];
    const void* tmap = mb9_tmap_const;
    if (map_mode == 1) tmap = tmap_global;
    if (map_mode == 2) {                              // the kernel's own copy, as in-kernel descriptors are
        char* mine = (char*)tmap_scratch + 128 * blockIdx.x;
        if (threadIdx.x < 32) {
            ((unsigned*)map_copy)[threadIdx.x] = ((const unsigned*)mb9_tmap_const)[threadIdx.x];
            __syncwarp();
            asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
                         "[%0], [%1], 128;" ::"l"(mine), "r"(smem_addr(map_copy)) : "memory");
            asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(mine) : "memory");
        }
        tmap = mine;
    }
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[s]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    long long t_start = clock64();
    if (threadIdx.x == 0) {
        int tiles = tiles_x * tiles_y;
        long long lat_sum = 0, issued_at[8];
        auto issue = [&](int n, int s) {
            unsigned bar = smem_addr(&bars[s]);
            mbar_expect_tx(bar, (unsigned)(box_bytes * per_stage));
            issued_at[s] = clock64();
            for (int j = 0; j < per_stage; ++j) {
                int t = (int)(((long long)blockIdx.x + ((long long)n * per_stage + j) * gridDim.x) % tiles);
                int x = (t % tiles_x) * box_x, y = (t / tiles_x) * box_y;
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                             "[%0], [%1, {%2, %3}], [%4];"
                             ::"r"(smem_addr(ring + (s * per_stage + j) * box_bytes)), "l"(tmap), "r"(x), "r"(y),
                               "r"(bar) : "memory");
            }
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
    __syncthreads();
    if (threadIdx.x == 0) {
        clocks[2 * blockIdx.x] = t_start;
        clocks[2 * blockIdx.x + 1] = clock64();
    }
}
