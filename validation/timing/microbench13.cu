// Thirteenth batch: does the L2 serve the same sector to many SMs at once for less than one read each?
//
// Every CTA (8 warps) streams `chunks_per_cta` chunks of 4 KB (one 16-byte word a thread) out of a
// region of `region_chunks` chunks that `sharers` CTAs have in common (blockIdx.x / sharers picks the
// region). With `rotate` 0 the CTAs of a region read its chunks in the same order, so the same sectors
// are asked for from many SMs at about the same time; with `rotate` 1 each CTA starts at a chunk of its
// own. All regions together stay resident in L2 (the launch runs once untimed first).
// mb13_ldcg reads with ld.global.cg (L1 bypassed); mb13_cpasync copies with cp.async.cg (LDGSTS.BYPASS,
// as Triton's matmuls do) into a 4-chunk ring, waiting for each group of 4.
// ncu's lts__t_sectors against the sectors asked for, and the time, tell whether such requests merge.

extern "C" __global__ void mb13_ldcg(const int4* __restrict__ base, int region_chunks, int sharers,
                                     int rotate, int chunks_per_cta, int4* sink) {
    const int4* region = base + (long long)(blockIdx.x / sharers) * region_chunks * 256;
    int start = rotate ? (int)(blockIdx.x % region_chunks) : 0;
    int4 acc = make_int4(0, 0, 0, 0);
    for (int i = 0; i < chunks_per_cta; ++i) {
        int c = (i + start) % region_chunks;
        int4 v = __ldcg(region + c * 256 + threadIdx.x);
        acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
    }
    if (acc.x == 0x12345678 && acc.y == 0x9abcdef) sink[blockIdx.x] = acc;   // never true: keeps the loads
}

extern "C" __global__ void mb13_cpasync(const int4* __restrict__ base, int region_chunks, int sharers,
                                        int rotate, int chunks_per_cta, int4* sink) {
    __shared__ int4 ring[4][256];
    const int4* region = base + (long long)(blockIdx.x / sharers) * region_chunks * 256;
    int start = rotate ? (int)(blockIdx.x % region_chunks) : 0;
    int acc = 0;
    for (int i = 0; i < chunks_per_cta; i += 4) {
        for (int j = 0; j < 4; ++j) {
            int c = (i + j + start) % region_chunks;
            unsigned dst = (unsigned)__cvta_generic_to_shared(&ring[j][threadIdx.x]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(region + c * 256 + threadIdx.x));
        }
        asm volatile("cp.async.commit_group;");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        acc ^= ring[i & 3][threadIdx.x].x;
    }
    if (acc == 0x12345678) sink[blockIdx.x].x = acc;                           // never true
}
