// Thirty-eighth batch: how many lines an SM keeps in flight. Each warp streams a region of its own a
// line a load (an int a lane), U independent loads in flight a warp (mb38_u1 ... mb38_u16), from HBM
// (every line read once) or from the L2 (window_mask 63: the warp cycles over 64 lines of its own,
// 16 times, so 15 reads in 16 hit the L2);
// grids of 16 or 132 CTAs, one an SM, of 1 to 32 warps. The bytes an SM moves a clock against the
// lines it has asked for say whether the SM, not HBM or the L2, caps the lines in flight.

template <int U>
__device__ __forceinline__ void stream(const int* __restrict__ in, int* out, int lines, unsigned window_mask,
                                       int zero) {
    unsigned lane = threadIdx.x & 31;
    unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    size_t base = (size_t)warp * lines;
    int acc = 0, dep = 0;
    for (int i = 0; i < lines; i += U) {
        int v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            size_t line = base + ((unsigned)(i + u + dep) & window_mask);
            v[u] = __ldcg(in + line * 32 + lane);
        }
        int s = 0;
#pragma unroll
        for (int u = 0; u < U; ++u) s += v[u];
        acc += s;
        dep = s & zero;            // zero is 0: the next U loads wait for these, so U are in flight
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void mb38_u1(const int* in, int* out, int lines, unsigned mask, int zero) { stream<1>(in, out, lines, mask, zero); }
extern "C" __global__ void mb38_u4(const int* in, int* out, int lines, unsigned mask, int zero) { stream<4>(in, out, lines, mask, zero); }
extern "C" __global__ void mb38_u16(const int* in, int* out, int lines, unsigned mask, int zero) { stream<16>(in, out, lines, mask, zero); }
