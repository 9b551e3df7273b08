// SASS-level counter validation: kernels run on an H200 under Nsight Compute
// (validation/sass_counters/run_on_device.py), whose counters a SASS executor
// must reproduce. Every kernel name starts with sc_. Launches and inputs are in
// cases.py. The cubin the GPU runs is built on the host from warpsim's NVRTC PTX
// with ptxas 13.0 (build_cubin.py), so its SASS is the one warpsim disassembles.

#include <cub/block/block_reduce.cuh>

// ---------------------------------------------------------------- loops

// Fixed trip count kept a loop in PTX (`#pragma unroll 1` -> .pragma "nounroll"):
// ptxas 13.0 keeps it a loop too (16 trips, one BRA each).
extern "C" __global__ void sc_fixed_loop(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i], acc = 1.f;
#pragma unroll 1
    for (int k = 0; k < 16; ++k) acc = acc * v + (float)k;
    out[i] = acc;
}

// The same loop with no pragma: NVVM unrolls it completely before ptxas sees it.
extern "C" __global__ void sc_fixed_loop_unrolled(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i], acc = 1.f;
    for (int k = 0; k < 16; ++k) acc = acc * v + (float)k;
    out[i] = acc;
}

// 64 iterations unrolled by 4 (`#pragma unroll 4`): 16 trips of a 4-FFMA body.
extern "C" __global__ void sc_fixed_loop_by4(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i], acc = 1.f;
#pragma unroll 4
    for (int k = 0; k < 64; ++k) acc = acc * v + (float)k;
    out[i] = acc;
}

// Lane-dependent trip count (length[i] random in 1..40).
extern "C" __global__ void sc_variable_loop(const int* length, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = x[i];
    int n = length[i];
    for (int k = 0; k < n; ++k) acc = acc * 0.5f + (float)k;
    out[i] = acc;
}

// ---------------------------------------------------------------- branches

// Short ternaries: ptxas makes them FSEL/SEL, no branch.
extern "C" __global__ void sc_select(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    float r = (v > 0.5f) ? v * 2.f : v + 1.f;
    float k = (threadIdx.x & 1) ? 3.f : 7.f;
    out[i] = r * k;
}

// A long data-dependent if/else (about half the lanes each way): BSSY/BSYNC.
extern "C" __global__ void sc_long_ifelse(const float* x, float* out, float* side) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    if (v > 0.5f) {
#pragma unroll
        for (int k = 0; k < 12; ++k) v = v * 1.0001f + 0.25f;
        side[i] = v;
    } else {
#pragma unroll
        for (int k = 0; k < 12; ++k) v = v * 0.9999f - 0.125f;
        v = sqrtf(fabsf(v));
    }
    out[i] = v;
}

// Early return (predicated EXIT); n leaves a partial warp and whole dead warps.
extern "C" __global__ void sc_early_return(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = x[i] * 2.f + 1.f;
}

// switch on a random selector 0..5 per lane.
extern "C" __global__ void sc_switch(const int* sel, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i], r;
    switch (sel[i]) {
        case 0: r = v * 2.f; break;
        case 1: r = sinf(v); break;
        case 2: r = v * v + 3.f; break;
        case 3: r = sqrtf(v); break;
        case 4: r = expf(v); break;
        default: r = -v; break;
    }
    out[i] = r;
}

// ---------------------------------------------------------------- the SIMT document's examples

__device__ float heavy(float x, int n) {
    for (int i = 0; i < n; ++i) x = x * 1.000001f + 0.5f;
    return x;
}

extern "C" __global__ void sc_branch_on_lane(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    if (threadIdx.x % 2 == 0) v = heavy(v, n);        // half the lanes
    else                      v = heavy(v + 1.f, n);  // the other half
    out[i] = v;
}

extern "C" __global__ void sc_branch_on_warp(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    if ((threadIdx.x / 32) % 2 == 0) v = heavy(v, n); // whole warp agrees
    else                             v = heavy(v + 1.f, n);
    out[i] = v;
}

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void sc_warp_sum(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum(x[i]);
    if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}

extern "C" __global__ void sc_block_sum(const float* x, float* out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.f;
    v = warp_sum(v);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    int nwarps = (blockDim.x + 31) / 32;
    if (warp == 0) {
        v = (lane < nwarps) ? partial[lane] : 0.f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

extern "C" __global__ void sc_cub_block_reduce(const float* x, float* out) {
    typedef cub::BlockReduce<float, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    float v = x[blockIdx.x * 128 + threadIdx.x];
    float s = BlockReduce(temp).Sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

// ---------------------------------------------------------------- atomics

// One counter, the same value from every thread: ptxas aggregates per warp.
extern "C" __global__ void sc_atomic_count(int* counter) {
    atomicAdd(counter, 1);
}

// One counter, a different integer from every thread.
extern "C" __global__ void sc_atomic_sum_int(const int* x, int* counter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(counter, x[i]);
}

// Distinct addresses, result unused (RED).
extern "C" __global__ void sc_atomic_distinct(const float* x, float* acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&acc[i], x[i]);
}

// Distinct addresses, old value kept (ATOM).
extern "C" __global__ void sc_atomic_distinct_ret(const float* x, float* acc, float* old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    old[i] = atomicAdd(&acc[i], x[i]);
}

// ---------------------------------------------------------------- shared memory

// Contiguous float4 (LDS.128) and consecutive float pairs (LDS.64). Block 256.
extern "C" __global__ void sc_shared_vec(const float* x, float* out) {
    __shared__ float s[1024];
    int t = threadIdx.x;
    const float* xb = x + blockIdx.x * 1024;
#pragma unroll
    for (int k = 0; k < 4; ++k) s[t + 256 * k] = xb[t + 256 * k];
    __syncthreads();
    float4 a = reinterpret_cast<const float4*>(s)[t];
    float b0 = s[2 * t], b1 = s[2 * t + 1];
    out[blockIdx.x * 256 + t] = (a.x + a.y) + (a.z + a.w) + b0 * b1;
}

// One warp per block stores element t*s and loads element (t^1)*s (same set of
// addresses, so the same banks): stride s in elements of 4, 8 or 16 bytes.
extern "C" __global__ void sc_shared32_stride(const float* x, float* out, int s) {
    __shared__ float sh[1024];
    int t = threadIdx.x, g = blockIdx.x * 32 + t;
    sh[t * s] = x[g];
    __syncthreads();
    out[g] = sh[(t ^ 1) * s];
}

extern "C" __global__ void sc_shared64_stride(const float2* x, float2* out, int s) {
    __shared__ float2 sh[1024];
    int t = threadIdx.x, g = blockIdx.x * 32 + t;
    sh[t * s] = x[g];
    __syncthreads();
    out[g] = sh[(t ^ 1) * s];
}

extern "C" __global__ void sc_shared128_stride(const float4* x, float4* out, int s) {
    __shared__ float4 sh[1024];
    int t = threadIdx.x, g = blockIdx.x * 32 + t;
    sh[t * s] = x[g];
    __syncthreads();
    out[g] = sh[(t ^ 1) * s];
}

// One warp per block fills elements 0..63 contiguously, then lane t loads element
// idx[t] (idx in 0..63): arbitrary patterns (broadcasts, quarter/half-warp groups).
#define SC_SHARED_INDEXED(NAME, T)                                                   \
    extern "C" __global__ void NAME(const int* idx, const T* x, T* out) {           \
        __shared__ T sh[64];                                                         \
        int t = threadIdx.x;                                                         \
        sh[t] = x[blockIdx.x * 64 + t];                                              \
        sh[t + 32] = x[blockIdx.x * 64 + t + 32];                                    \
        __syncthreads();                                                             \
        out[blockIdx.x * 32 + t] = sh[idx[t]];                                       \
    }
SC_SHARED_INDEXED(sc_shared32_indexed, float)
SC_SHARED_INDEXED(sc_shared64_indexed, float2)
SC_SHARED_INDEXED(sc_shared128_indexed, float4)

// ---------------------------------------------------------------- global memory

// out[i] = x[i * s]: load stride s floats, store coalesced.
extern "C" __global__ void sc_global_stride(const float* x, float* out, int s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = x[i * s];
}

// Transposed read of an n x n matrix, block (32, 8): lanes read down a column.
extern "C" __global__ void sc_transpose_read(const float* x, float* out, int n) {
    int col = blockIdx.x * 32 + threadIdx.x;
    int row = blockIdx.y * 8 + threadIdx.y;
    out[row * n + col] = x[col * n + row];
}
