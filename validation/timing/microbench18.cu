// Eighteenth batch (run_microbench18.py): TMA box loads at the pace of the TMA unit and the L2.
//
// As microbench9's mb9_tma_pipe, a CTA keeps `stages` stages of `per_stage` boxes in flight in a ring
// of dynamic shared memory, each stage on one mbarrier. Unlike it:
// - a box's coordinates advance by an add and a mask (microbench9 computed them with a 64-bit
//   remainder and two divisions, and that code set its pace, one box per 515-909 cycles);
// - the boxes of a stage come from lane 0 of warp 0 (issuers 1) or from lane 0 of `per_stage` warps,
//   one box each (issuers 2), as Triton's TMA matmuls spread A's and B's boxes over warps;
// - `sharers` CTAs read one region of `region_boxes` boxes (the region is blockIdx.x / sharers), all
//   from its first box on (rotate 0: the same sectors asked for by many SMs at about the same time,
//   as microbench13 did for loads) or each from a box of its own (rotate 1).
// The tensor is 64 uint16 wide (128-byte rows, 128B swizzle), `box_rows` rows a box. Each issuing
// lane waits for a stage's mbarrier before it loads into that stage again; nothing reads the ring.
// clock64 at the CTA's start and end (clocks[2 * cta], [2 * cta + 1]).
// Build: nvcc -arch=sm_90a -cubin -o microbench18.cubin microbench18.cu
__constant__ __align__(64) unsigned char mb18_tmap[128];

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void load_box(unsigned dst, int row, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"(mb18_tmap), "r"(0), "r"(row), "r"(bar) : "memory");
}

extern "C" __global__ void mb18_tma(long long* clocks, int box_rows, int box_bytes, int region_boxes,
                                    int sharers, int rotate, int loads, int stages, int per_stage,
                                    int issuers) {
    extern __shared__ __align__(1024) unsigned char ring[];
    __shared__ __align__(8) unsigned long long bars[8];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int arrivals = issuers == 1 ? 1 : per_stage;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&bars[s])), "r"(arrivals));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    long long t_start = clock64();
    const bool issuing = lane == 0 && (issuers == 1 ? warp == 0 : warp < per_stage);
    if (issuing) {
        const int first = issuers == 1 ? 0 : warp;            // the box of each stage this lane loads first
        const int count = issuers == 1 ? per_stage : 1;       // and how many
        const int mask = region_boxes - 1;                    // region_boxes: a power of two
        const int region_row = (blockIdx.x / sharers) * region_boxes * box_rows;
        const int start = rotate ? (int)(blockIdx.x % sharers) : 0;
        const unsigned ring_base = smem_addr(ring);
        auto issue = [&](int n, int s) {                      // stage n of the loop into slot s
            unsigned bar = smem_addr(&bars[s]);
            asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}"
                         ::"r"(bar), "r"(count * box_bytes) : "memory");
            int box = start + n * per_stage + first;
            for (int j = 0; j < count; ++j, ++box)
                load_box(ring_base + (s * per_stage + first + j) * box_bytes,
                         region_row + (box & mask) * box_rows, bar);
        };
        int s = 0;
        for (int n = 0; n < stages && n < loads; ++n) issue(n, n);
        unsigned phase = 0;
        for (int n = 0; n < loads; ++n) {
            unsigned bar = smem_addr(&bars[s]);
            asm volatile("{\n.reg .pred done;\nWAIT:\n"
                         "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                         "@!done bra WAIT;\n}" ::"r"(bar), "r"(phase) : "memory");
            if (n + stages < loads) issue(n + stages, s);
            if (++s == stages) { s = 0; phase ^= 1; }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        clocks[2 * blockIdx.x] = t_start;
        clocks[2 * blockIdx.x + 1] = clock64();
    }
}
