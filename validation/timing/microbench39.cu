// Thirty-ninth batch: the packed 16-bit pipes. Each thread runs C independent chains of one packed
// operation (HFMA2, HADD2, HMUL2 on __half2; HFMA2.BF16 on __nv_bfloat162) or, as the control, FFMA,
// `steps` times; CTAs of 128 threads, 132 x k of them (k = 1, 4, 16: 4 to 64 warps an SM). With C = 8
// a warp always has an instruction ready, so the cycles a sub-partition spends per instruction are the
// pipe's issue interval; with C = 1 and few warps, its latency. Set 4's t4_pipe_half2 (four HFMA2
// chains) ran at 57% issue active where the model, which issues HFMA2 like FFMA, said 90%.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

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
            if (OP == 0) v[c] = __hfma2(v[c], m, k);
            if (OP == 1) v[c] = __hadd2(v[c], k);
            if (OP == 2) v[c] = __hmul2(v[c], m);
        }
    }
    T acc = v[0];
#pragma unroll
    for (int c = 1; c < C; ++c) acc = __hadd2(acc, v[c]);
    out[t] = acc;
}

template <int C>
__device__ __forceinline__ void ffma_chains(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float m = in[0], k = in[1];
    float v[C];
#pragma unroll
    for (int c = 0; c < C; ++c) v[c] = in[2 + (t + c) % 64];
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int c = 0; c < C; ++c) v[c] = fmaf(v[c], m, k);
    }
    float acc = v[0];
#pragma unroll
    for (int c = 1; c < C; ++c) acc += v[c];
    out[t] = acc;
}

#define PACKED(name, T, OP, C) \
    extern "C" __global__ void mb39_##name##_c##C(T* out, const T* in, int steps) { chains<T, OP, C>(out, in, steps); }
PACKED(hfma2, __half2, 0, 1) PACKED(hfma2, __half2, 0, 8)
PACKED(hadd2, __half2, 1, 1) PACKED(hadd2, __half2, 1, 8)
PACKED(hmul2, __half2, 2, 1) PACKED(hmul2, __half2, 2, 8)
PACKED(bfma2, __nv_bfloat162, 0, 1) PACKED(bfma2, __nv_bfloat162, 0, 8)
extern "C" __global__ void mb39_ffma_c1(float* out, const float* in, int steps) { ffma_chains<1>(out, in, steps); }
extern "C" __global__ void mb39_ffma_c8(float* out, const float* in, int steps) { ffma_chains<8>(out, in, steps); }
