// Thirtieth batch (run_microbench30.py): do the L2's merges of many SMs' reads of one sector at once
// (the thirteenth batch: cp.async.cg and ld.global.cg) hold for TMA box loads?
// Thread 0 of each CTA keeps `stages` box loads (cp.async.bulk.tensor.2d) in flight into a ring of
// dynamic shared memory, each completing on its stage's mbarrier. CTAs c of a group (g = c / sharers;
// consecutive CTAs, so on different SMs) load the same tiles at the same steps: tile g + (n % rounds)
// groups at the n-th load, `rounds` tiles a group, so every load of a CTA in flight is a different box.
// The tensor map in constant memory, as a __grid_constant__ parameter's would be.
// Build: nvcc -arch=sm_90a -cubin -o microbench30.cubin microbench30.cu

#include "microbench8_wgmma.h"
#include "microbench_mbarrier.h"

__constant__ __align__(64) unsigned char mb30_tmap_const[128];

extern "C" __global__ void mb30_tma_shared(int sharers, int rounds, int box_y, int box_bytes, int loads, int stages,
                                           int* sink) {
    extern __shared__ __align__(1024) unsigned char ring[];
    __shared__ __align__(8) unsigned long long bars[8];
    const void* tmap = (const void*)mb30_tmap_const;
    int groups = gridDim.x / sharers, g = blockIdx.x / sharers;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[s]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        auto issue = [&](int n, int s) {
            int y = (g + (n % rounds) * groups) * box_y;
            unsigned bar = smem_addr(&bars[s]);
            mbar_expect_tx(bar, (unsigned)box_bytes);
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                         "[%0], [%1, {%2, %3}], [%4];"
                         ::"r"(smem_addr(ring + s * box_bytes)), "l"(tmap), "r"(0), "r"(y), "r"(bar) : "memory");
        };
        for (int n = 0; n < stages && n < loads; ++n) issue(n, n);
        int acc = 0;
        for (int n = 0; n < loads; ++n) {
            int s = n % stages;
            mbar_wait(smem_addr(&bars[s]), (unsigned)((n / stages) & 1));
            acc ^= ((int*)(ring + s * box_bytes))[n & 31];
            if (n + stages < loads) issue(n + stages, s);
        }
        if (acc == 0x12345678) sink[blockIdx.x] = acc;                      // never true: keeps the loads
    }
}
