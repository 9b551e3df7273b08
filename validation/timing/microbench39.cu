// Thirty-ninth batch: the packed 16-bit pipes. Each thread runs C independent chains of one packed
// operation (HFMA2, HADD2, HMUL2 on __half2; HFMA2.BF16 on __nv_bfloat162) or, as the control, FFMA,
// `steps` times; CTAs of 128 threads, 132 x k of them (k = 1, 4, 16: 4 to 64 warps an SM). With C = 8
// a warp always has an instruction ready, so the cycles a sub-partition spends per instruction are the
// pipe's issue interval; with C = 1 and few warps, its latency. Set 4's t4_pipe_half2 (four HFMA2
// chains) ran at 57% issue active where the model, which issues HFMA2 like FFMA, said 90%.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ __half2 fma_of(__half2 a, __half2 b, __half2 c) { return __hfma2(a, b, c); }
__device__ __forceinline__ __nv_bfloat162 fma_of(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __hfma2(a, b, c);
}
__device__ __forceinline__ float fma_of(float a, float b, float c) { return fmaf(a, b, c); }
template <typename T> __device__ __forceinline__ T add_of(T a, T b) { return __hadd2(a, b); }
template <> __device__ __forceinline__ float add_of(float a, float b) { return a + b; }
template <typename T> __device__ __forceinline__ T mul_of(T a, T b) { return __hmul2(a, b); }

// OP 0: a * m + k (HFMA2, HFMA2.BF16 or FFMA by T); 1: a + k (HADD2); 2: a * m (HMUL2)
template <typename T, int OP, int C>
__device__ __forceinline__ void chains(T* out, const T* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const T m = in[0], k = in[1];            // read from memory: ptxas cannot fold them
    T v[C];
#pragma unroll
    for (int c = 0; c < C; ++c) v[c] = in[2 + (t + c) % 64];
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            if constexpr (OP == 0) v[c] = fma_of(v[c], m, k);
            if constexpr (OP == 1) v[c] = add_of(v[c], k);
            if constexpr (OP == 2) v[c] = mul_of(v[c], m);
        }
    }
    T acc = v[0];
#pragma unroll
    for (int c = 1; c < C; ++c) acc = add_of(acc, v[c]);
    out[t] = acc;
}

#define PACKED(name, T, OP, C) \
    extern "C" __global__ void mb39_##name##_c##C(T* out, const T* in, int steps) { chains<T, OP, C>(out, in, steps); }
PACKED(hfma2, __half2, 0, 1) PACKED(hfma2, __half2, 0, 8)
PACKED(hadd2, __half2, 1, 1) PACKED(hadd2, __half2, 1, 8)
PACKED(hmul2, __half2, 2, 1) PACKED(hmul2, __half2, 2, 8)
PACKED(bfma2, __nv_bfloat162, 0, 1) PACKED(bfma2, __nv_bfloat162, 0, 8)
PACKED(ffma, float, 0, 1) PACKED(ffma, float, 0, 8)

// Part two: shared-memory loads of 4, 8 and 16 bytes a lane, every lane of a warp reading one
// element (a broadcast: 1, 1 and 2 wavefronts on the H200, validation/shared_wavefronts) or lane i
// its own element i (1, 2 and 4 wavefronts), 8 independent loads a step, 64 warps an SM. The cycles an
// SM spends per load say whether a 16-byte broadcast costs its 2 wavefronts or a pass per 128 bytes
// its lanes receive (4): the timing model charges the latter, from set 1's matmul_tiled_512 (-5%,
// -24% at the wavefronts alone), and is 15-20% slow on the 32 x 32 tiled matmuls of sets 2 and 4.
template <typename T, int DISTINCT>
__device__ __forceinline__ void shared_loads(float* out, int steps) {
    __shared__ T s[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) {
        float v = 1.0f + 0.001f * i;
        T* p = s + i;
        float* f = reinterpret_cast<float*>(p);
        for (int c = 0; c < (int)(sizeof(T) / 4); ++c) f[c] = v + c;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    float acc = 0.f;
    for (int step = 0; step < steps; ++step) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            int at = DISTINCT ? lane + 32 * ((step + u) & 15) : ((step * 8 + u) & 511);
            T v = s[at];
            const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
            for (int c = 0; c < (int)(sizeof(T) / 4); ++c) acc += f[c];
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#define SHARED(name, T, D) \
    extern "C" __global__ void mb39_lds_##name(float* out, int steps) { shared_loads<T, D>(out, steps); }
SHARED(w4_bcast, float, 0) SHARED(w4_distinct, float, 1)
SHARED(w8_bcast, float2, 0) SHARED(w8_distinct, float2, 1)
SHARED(w16_bcast, float4, 0) SHARED(w16_distinct, float4, 1)
