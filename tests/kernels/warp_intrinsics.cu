// Warp-level primitives: every shuffle kind (with width < 32 too), votes,
// __activemask in divergent code, match, redux, and __syncwarp.

// out rows: 0 down-sum (lane 0 of each width segment holds the total),
// 1 xor all-reduce, 2 up inclusive scan, 3 idx broadcast of segment lane 1,
// 4 idx rotate by one inside the segment, 5 in-range flags of shfl.down by 1.
template <int WIDTH>
__device__ void shuffles(const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = x[i];
    int down = v, all = v, scan = v;
    for (int offset = WIDTH / 2; offset > 0; offset >>= 1) {
        down += __shfl_down_sync(0xffffffffu, down, offset, WIDTH);
        all += __shfl_xor_sync(0xffffffffu, all, offset, WIDTH);
    }
    for (int offset = 1; offset < WIDTH; offset <<= 1) {
        int other = __shfl_up_sync(0xffffffffu, scan, offset, WIDTH);
        if (lane % WIDTH >= offset) scan += other;
    }
    out[0 * n + i] = down;
    out[1 * n + i] = all;
    out[2 * n + i] = scan;
    out[3 * n + i] = __shfl_sync(0xffffffffu, v, 1, WIDTH);
    out[4 * n + i] = __shfl_sync(0xffffffffu, v, lane + 1, WIDTH);
    int flag;
    asm("{ .reg .pred p; .reg .b32 r;\n"
        "  shfl.sync.down.b32 r|p, %1, 1, %2, 0xffffffff;\n"
        "  selp.b32 %0, 1, 0, p; }" : "=r"(flag) : "r"(v), "r"(((32 - WIDTH) << 8) | 0x1f));
    out[5 * n + i] = flag;
}

extern "C" __global__ void shuffles_32(const int* x, int* out, int n) { shuffles<32>(x, out, n); }
extern "C" __global__ void shuffles_16(const int* x, int* out, int n) { shuffles<16>(x, out, n); }
extern "C" __global__ void shuffles_8(const int* x, int* out, int n) { shuffles<8>(x, out, n); }
extern "C" __global__ void shuffles_4(const int* x, int* out, int n) { shuffles<4>(x, out, n); }

// 64-bit and float shuffles: a double butterfly sum and a float rotation.
extern "C" __global__ void shuffle_wide(const double* x, const float* y, double* sums, float* rotated) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = x[i];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    sums[i] = v;
    rotated[i] = __shfl_sync(0xffffffffu, y[i], (threadIdx.x + 5) % 32);
}

// Shuffle among the lanes of a divergent branch, naming only them.
extern "C" __global__ void shuffle_partial(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = x[i];
    if (lane < 16) {
        v += __shfl_down_sync(0x0000ffffu, v, 8, 16);
        v += __shfl_down_sync(0x0000ffffu, v, 4, 16);
    } else {
        v = __shfl_sync(0xffff0000u, v, 31);
    }
    out[i] = v;
}

// rows: 0 all, 1 any, 2 ballot, 3 activemask in a branch on lane % 3,
// 4 uniform-branch activemask, 5 popc(ballot) of a lane-dependent predicate.
extern "C" __global__ void votes(const int* x, unsigned* out, int n, int threshold) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool valid = i < n;
    int v = valid ? x[i] : 0;
    unsigned full = __activemask();
    bool pred = v > threshold;
    unsigned all = __all_sync(full, pred);
    unsigned any = __any_sync(full, pred);
    unsigned ballot = __ballot_sync(full, pred);
    unsigned active;
    if (threadIdx.x % 3 == 0) active = __activemask();
    else active = ~__activemask();
    unsigned uniform = 0;
    if (blockIdx.x % 2 == 0) uniform = __activemask();
    if (!valid) return;
    out[0 * n + i] = all;
    out[1 * n + i] = any;
    out[2 * n + i] = ballot;
    out[3 * n + i] = active;
    out[4 * n + i] = uniform;
    out[5 * n + i] = __popc(__ballot_sync(__activemask(), (v & 1) != 0));
}

extern "C" __global__ void matches(const int* x, const long long* w, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pred;
    out[0 * n + i] = __match_any_sync(0xffffffffu, x[i]);
    out[1 * n + i] = __match_any_sync(0xffffffffu, w[i]);
    out[2 * n + i] = __match_all_sync(0xffffffffu, x[i] / 1000, &pred);
    out[3 * n + i] = pred;
}

// rows: add, min, max (signed and unsigned), and, or, xor; a partial mask last.
extern "C" __global__ void reductions(const int* x, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    unsigned u = (unsigned)v;
    out[0 * n + i] = __reduce_add_sync(0xffffffffu, u);
    out[1 * n + i] = (unsigned)__reduce_min_sync(0xffffffffu, v);
    out[2 * n + i] = (unsigned)__reduce_max_sync(0xffffffffu, v);
    out[3 * n + i] = __reduce_min_sync(0xffffffffu, u);
    out[4 * n + i] = __reduce_max_sync(0xffffffffu, u);
    out[5 * n + i] = __reduce_and_sync(0xffffffffu, u | 0x80402010u);
    out[6 * n + i] = __reduce_or_sync(0xffffffffu, u & 0x01020408u);
    out[7 * n + i] = __reduce_xor_sync(0xffffffffu, u);
    unsigned odd = 0;
    if (threadIdx.x & 1) odd = __reduce_add_sync(0xaaaaaaaau, u);
    out[8 * n + i] = odd;
}

// The classic warp-synchronous shared-memory reduction, made legal with __syncwarp.
extern "C" __global__ void syncwarp_reduce(const int* x, int* out) {
    __shared__ int s[256];
    int t = threadIdx.x, lane = t % 32;
    s[t] = x[blockIdx.x * blockDim.x + t];
    __syncwarp();
    for (int offset = 16; offset > 0; offset >>= 1) {
        int other = lane < offset ? s[t + offset] : 0;
        __syncwarp();
        s[t] += other;
        __syncwarp();
    }
    if (lane == 0) out[(blockIdx.x * blockDim.x + t) / 32] = s[t];
}
