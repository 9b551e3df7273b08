// Thirty-sixth batch: the L2's rate for one word of each of 32 lines a request, the lines at a
// stride (1, 2, 3, 4, 8, 16 lines apart) or a random jitter (1 to 3 lines apart) from a base
// picked at random per warp and iteration, in an 8 MB array resident in L2: which line spacings
// reach the rate of lines picked at random (thirty-fifth batch) and which that of whole lines.
__device__ __forceinline__ unsigned mix(unsigned h) {
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
    return h;
}

extern "C" __global__ void mb36_spaced(const float* __restrict__ src, float* out, unsigned lines_mask,
                                       int iters, int stride, int jitter) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = t >> 5;
    float acc = 0.f;
#pragma unroll 8
    for (int it = 0; it < iters; ++it) {
        unsigned base = mix(warp * 0x9E3779B1u + it * 0x85EBCA77u);
        // jitter: lane l sits at sum of l gaps of 1..3 lines (a fixed pattern per warp and iteration)
        unsigned offset = jitter ? lane * 2 + (mix(base + lane) % 3) - 1 : lane * stride;
        unsigned line = (base + offset) & lines_mask;
        acc += __ldcg(src + (size_t)line * 32);
    }
    out[t] = acc;
}
