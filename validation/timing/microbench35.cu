// Thirty-fifth batch: the L2's throughput for loads scattered over lines at random, over data
// resident in the L2 (2, 8, 32 MB) or not (512 MB). Each warp request's lanes go in groups of
// `group` (1, 2, 8, 32): a group reads consecutive words of one line picked at random (a hash of
// the warp, the iteration and the group), so a request touches 32 / group lines. `cg` reads with
// ld.global.cg (past L1). Loads are independent of each other, so many are in flight.
__device__ __forceinline__ unsigned mix(unsigned h) {
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
    return h;
}

extern "C" __global__ void mb35_scatter(const float* __restrict__ src, float* out, unsigned lines_mask,
                                        int iters, int group, int cg) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = t >> 5;
    unsigned g = lane / group, word = lane % group;
    float acc = 0.f;
#pragma unroll 8
    for (int it = 0; it < iters; ++it) {
        unsigned line = mix(warp * 0x9E3779B1u + it * 0x85EBCA77u + g * 0xC2B2AE3Du) & lines_mask;
        const float* p = src + (size_t)line * 32 + word;
        acc += cg ? __ldcg(p) : p[0];
    }
    out[t] = acc;
}
