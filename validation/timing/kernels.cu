// Validation kernels for the timing model (validation/timing/cases.py launches them).
// Every kernel name starts with tv_ (ncu filters on it). Built with nvcc -arch=sm_90.

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

// Two loop bodies that differ in their operations, so the compiler cannot
// merge the two sides of a branch into one loop.
__device__ __forceinline__ float loop_a(float x, int n) {
#pragma unroll 1
    for (int i = 0; i < n; ++i) x = fmaf(x, 0.999f, 0.5f);
    return x;
}
__device__ __forceinline__ float loop_b(float x, int n) {
#pragma unroll 1
    for (int i = 0; i < n; ++i) x = (x + 0.25f) * 0.998f;
    return x;
}

__device__ __forceinline__ float rsqrt_approx(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

extern "C" {

// ------------------------------------------------------------------ divergence
__global__ void tv_branch_on_lane(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if (threadIdx.x % 2 == 0) v = loop_a(v, n);
    else                      v = loop_b(v, n);
    out[i] = v;
}

__global__ void tv_branch_on_warp(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if ((threadIdx.x / 32) % 2 == 0) v = loop_a(v, n);
    else                             v = loop_b(v, n);
    out[i] = v;
}

// n-way switch on (lane % ways): case k multiplies by its own constant and adds
// its own offset, in a loop of its own (32 loops in the SASS).
#define SW_CASE(k)                                                          \
    case k:                                                                 \
        _Pragma("unroll 1") for (int j = 0; j < n; ++j)                     \
            v = fmaf(v, 0.999f - (k) * 1e-4f, 0.5f + (k) * 0.01f);          \
        break;

__global__ void tv_switch(float* out, const float* in, int n, int ways) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    switch ((threadIdx.x % 32) % ways) {
        SW_CASE(0) SW_CASE(1) SW_CASE(2) SW_CASE(3) SW_CASE(4) SW_CASE(5) SW_CASE(6) SW_CASE(7)
        SW_CASE(8) SW_CASE(9) SW_CASE(10) SW_CASE(11) SW_CASE(12) SW_CASE(13) SW_CASE(14) SW_CASE(15)
        SW_CASE(16) SW_CASE(17) SW_CASE(18) SW_CASE(19) SW_CASE(20) SW_CASE(21) SW_CASE(22) SW_CASE(23)
        SW_CASE(24) SW_CASE(25) SW_CASE(26) SW_CASE(27) SW_CASE(28) SW_CASE(29) SW_CASE(30) SW_CASE(31)
    }
    out[i] = v;
}

// Variable-length loops: thread i iterates lengths[i] times.
__global__ void tv_var_loop(float* out, const float* in, const int* lengths) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    int n = lengths[i];
#pragma unroll 1
    for (int j = 0; j < n; ++j) v = fmaf(v, 0.999f, 0.5f);
    out[i] = v;
}

// ------------------------------------------------- latency hiding, occupancy
// Each thread sums `per_thread` floats, one load in flight at a time
// (the add waits for the load, so the next load cannot issue before it).
__global__ void tv_gather_sum(float* out, const float* in, int per_thread) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.f;
#pragma unroll 1
    for (int k = 0; k < per_thread; ++k) acc += in[t + k * stride];
    out[t] = acc;
}

// The same, with dynamic shared memory reserved (and touched) to limit CTAs per SM.
__global__ void tv_gather_sum_smem(float* out, const float* in, int per_thread) {
    extern __shared__ float pad[];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.f;
#pragma unroll 1
    for (int k = 0; k < per_thread; ++k) acc += in[t + k * stride];
    pad[threadIdx.x] = acc;
    __syncthreads();
    out[t] = pad[threadIdx.x];
}

// Register-limited occupancy: K values (from a 64K-float table) held in registers
// across a loop; each iteration is one dependent chain of K FMAs through them (ILP 1).
#define OCC_REGS(K)                                                               \
    __global__ void tv_occ_regs_##K(float* out, const float* in, int iters) {     \
        int t = blockIdx.x * blockDim.x + threadIdx.x;                            \
        float r[K];                                                               \
        _Pragma("unroll") for (int k = 0; k < K; ++k) r[k] = in[(t + k * 4099) & 65535]; \
        float x = 0.5f;                                                           \
        _Pragma("unroll 1") for (int it = 0; it < iters; ++it) {                  \
            _Pragma("unroll") for (int k = 0; k < K; ++k) x = fmaf(x, r[k], 0.25f); \
        }                                                                         \
        out[t] = x;                                                               \
    }
OCC_REGS(16)
OCC_REGS(64)
OCC_REGS(128)
OCC_REGS(192)

// ------------------------------------------------------------------ ILP, pipes
#define ILP_KERNEL(N)                                                               \
    __global__ void tv_ilp_##N(float* out, const float* in, int steps) {            \
        int t = blockIdx.x * blockDim.x + threadIdx.x;                              \
        float x[N];                                                                 \
        _Pragma("unroll") for (int k = 0; k < N; ++k) x[k] = in[t] + k;             \
        _Pragma("unroll 1") for (int s = 0; s < steps; ++s) {                       \
            _Pragma("unroll") for (int u = 0; u < 8 / N; ++u)                       \
            _Pragma("unroll") for (int k = 0; k < N; ++k) x[k] = fmaf(x[k], 0.999f, 0.5f); \
        }                                                                           \
        float s = 0.f;                                                              \
        _Pragma("unroll") for (int k = 0; k < N; ++k) s += x[k];                    \
        out[t] = s;                                                                 \
    }
ILP_KERNEL(1)
ILP_KERNEL(2)
ILP_KERNEL(4)
ILP_KERNEL(8)

__global__ void tv_fp32_bound(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[t], b = a + 1.f, c = a + 2.f, d = a + 3.f;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f);
        c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
    }
    out[t] = a + b + c + d;
}

__global__ void tv_fp64_bound(double* out, const double* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double a = in[t], b = a + 1.0, c = a + 2.0, d = a + 3.0;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        a = fma(a, 0.999, 0.5); b = fma(b, 0.999, 0.5);
        c = fma(c, 0.999, 0.5); d = fma(d, 0.999, 0.5);
    }
    out[t] = a + b + c + d;
}

__global__ void tv_sfu_bound(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[t] + 1.f, b = a + 1.f, c = a + 2.f, d = a + 3.f;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        a = rsqrt_approx(a) + 1.f; b = rsqrt_approx(b) + 1.f;
        c = rsqrt_approx(c) + 1.f; d = rsqrt_approx(d) + 1.f;
    }
    out[t] = a + b + c + d;
}

__global__ void tv_sfu_exp_bound(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[t], b = a * 0.5f, c = a * 0.25f, d = a * 0.125f;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        a = __expf(-a); b = __expf(-b); c = __expf(-c); d = __expf(-d);
    }
    out[t] = a + b + c + d;
}

__global__ void tv_int_bound(unsigned* out, const unsigned* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a = in[t], b = a ^ 0x9e3779b9u, c = a + 12345u, d = a * 3u;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        a = (a ^ (a << 5)) + b; b = (b ^ (b >> 3)) + c;
        c = (c ^ (c << 7)) + d; d = (d ^ (d >> 11)) + a;
    }
    out[t] = a ^ b ^ c ^ d;
}

// ------------------------------------------------------------ shared memory
// Each lane reads s[(lane * stride) % 1024 + warp] n times (volatile: no hoisting).
__global__ void tv_bank_stride(float* out, const float* in, int n, int stride) {
    __shared__ float s[1024 + 32];
    for (int i = threadIdx.x; i < 1024 + 32; i += blockDim.x) s[i] = in[(blockIdx.x * 7 + i) % 4096];
    __syncthreads();
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    volatile float* p = &s[(lane * stride) % 1024 + warp];
    float acc = 0.f;
#pragma unroll 4
    for (int k = 0; k < n; ++k) acc += *p;
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Transposes of an N x N float matrix (N a multiple of 32), blocks of 32 x 8.
__global__ void tv_transpose_naive(float* out, const float* in, int N) {
    int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8) out[(long long)x * N + y0 + j] = in[(long long)(y0 + j) * N + x];
}

__global__ void tv_transpose_smem(float* out, const float* in, int N) {
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = in[(long long)(y + j) * N + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8) out[(long long)(y + j) * N + x] = tile[threadIdx.x][j];
}

__global__ void tv_transpose_padded(float* out, const float* in, int N) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = in[(long long)(y + j) * N + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8) out[(long long)(y + j) * N + x] = tile[threadIdx.x][j];
}

// ------------------------------------------------------------------ atomics
// out[i & mask] += in[i]; mask 0: one address, 31: 32 addresses, -1: distinct.
__global__ void tv_atomic_add(int* out, const int* in, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[i & mask], in[i]);
}

// ------------------------------------------------------- elementwise, strides
__global__ void tv_axpy(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void tv_strided_copy(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride];
}

// ------------------------------------------------------------------ matmul
// C = A B, N x N row-major, N a multiple of 16; blocks of 16 x 16.
__global__ void tv_matmul_naive(float* C, const float* A, const float* B, int N) {
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.f;
    for (int k = 0; k < N; ++k) acc += A[r * N + k] * B[k * N + c];
    C[r * N + c] = acc;
}

__global__ void tv_matmul_tiled(float* C, const float* A, const float* B, int N) {
    __shared__ float As[16][16], Bs[16][16];
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < N; k0 += 16) {
        As[threadIdx.y][threadIdx.x] = A[r * N + k0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + c];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[r * N + c] = acc;
}

// ------------------------------------------------------------------ barriers
// n rounds: write own slot, barrier, read the neighbour's, barrier.
__global__ void tv_barrier_loop(float* out, const float* in, int n) {
    __shared__ float s[1024];
    int t = threadIdx.x;
    float x = in[blockIdx.x * blockDim.x + t];
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
        s[t] = x;
        __syncthreads();
        x = 0.5f * x + 0.25f * s[(t + 1) % blockDim.x];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = x;
}

// ------------------------------------------------------------ waves and tails
// One CTA per SM (the launch reserves enough dynamic shared memory); 4 FMA chains.
__global__ void tv_wave(float* out, const float* in, int steps) {
    extern __shared__ float pad[];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[t], b = a + 1.f, c = a + 2.f, d = a + 3.f;
#pragma unroll 1
    for (int s = 0; s < steps; ++s) {
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f);
        c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
    }
    pad[threadIdx.x] = a + b + c + d;
    __syncthreads();
    out[t] = pad[threadIdx.x];
}

// ------------------------------------------------------------------ reductions
// Grid-stride sum; warp shuffle reduction; one atomicAdd per warp.
__global__ void tv_reduce_warp(float* out, const float* in, int n) {
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0) atomicAdd(out, acc);
}

// Grid-stride sum; shared-memory tree per block (256 threads); one atomicAdd per block.
__global__ void tv_reduce_block(float* out, const float* in, int n) {
    __shared__ float s[256];
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = 128; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// CUB: per-block grid-stride partial sums reduced with cub::BlockReduce (256 threads);
// out[blockIdx.x] = the block's sum.
__global__ void tv_cub_block_reduce(float* out, const float* in, int n) {
    typedef cub::BlockReduce<float, 256> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    float total = Reduce(tmp).Sum(acc);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// CUB: inclusive prefix sum of each 1024-element tile (256 threads x 4 items, blocked).
__global__ void tv_cub_block_scan(int* out, const int* in) {
    typedef cub::BlockScan<int, 256> Scan;
    __shared__ typename Scan::TempStorage tmp;
    int base = blockIdx.x * 1024 + threadIdx.x * 4;
    int items[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) items[k] = in[base + k];
    Scan(tmp).InclusiveSum(items, items);
#pragma unroll
    for (int k = 0; k < 4; ++k) out[base + k] = items[k];
}

}  // extern "C"
