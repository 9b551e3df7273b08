// Fifty-second microbenchmark batch (run_microbench52.py): achieved occupancy and the top stall reason by
// what bounds a kernel. Three families, every one a plain kernel of the kinds users write:
//   chains:  four independent chains a thread of one pipe's instruction (FFMA, DFMA, MUFU.EX2, IMAD with
//            a shift, HFMA2), one wave and two and a half waves, at 2 to 16 CTAs an SM: how a busy pipe's
//            warps leave the SM at a wave's end;
//   atomics: one atomicAdd a thread (RED, or ATOMG where the old value is kept) to one address, one a
//            warp, 32 in one line, 1,024 and 2^20 words: where the warps wait while the L2 serializes;
//   streams: z = x y + 1 one element a thread and grid-stride at 64 warps an SM, 1M to 64M elements; a
//            copy whose stores land `stride` words apart: full-occupancy streams by size and width.
#include <cuda_fp16.h>

template <int P>
__device__ float mb52_chain_body(float x, int steps) {
    if (P == 0) {            // FFMA
        float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
#pragma unroll 4
        for (int s = 0; s < steps; ++s) {
            a = fmaf(a, 0.9992f, 0.4f); b = fmaf(b, 0.9992f, 0.4f);
            c = fmaf(c, 0.9992f, 0.4f); d = fmaf(d, 0.9992f, 0.4f);
        }
        return a + b + c + d;
    } else if (P == 1) {     // DFMA
        double a = x, b = a + 0.25, c = a + 0.5, d = a + 0.75;
#pragma unroll 4
        for (int s = 0; s < steps; ++s) {
            a = fma(a, 0.9992, 0.4); b = fma(b, 0.9992, 0.4);
            c = fma(c, 0.9992, 0.4); d = fma(d, 0.9992, 0.4);
        }
        return (float)(a + b + c + d);
    } else if (P == 2) {     // MUFU.EX2: v = 2^-v contracts to its fixed point
        float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
#pragma unroll 4
        for (int s = 0; s < steps; ++s) {
            a = exp2f(-a); b = exp2f(-b); c = exp2f(-c); d = exp2f(-d);
        }
        return a + b + c + d;
    } else if (P == 3) {     // IMAD and a shift-xor
        unsigned a = __float_as_uint(x), b = a ^ 0x5bd1e995u, c = a + 7u, d = a * 5u;
#pragma unroll 4
        for (int s = 0; s < steps; ++s) {
            a = a * 1664525u + 1013904223u; a ^= a >> 13;
            b = b * 1664525u + 1013904223u; b ^= b >> 13;
            c = c * 1664525u + 1013904223u; c ^= c >> 13;
            d = d * 1664525u + 1013904223u; d ^= d >> 13;
        }
        return (float)(a ^ b ^ c ^ d);
    } else {                 // HFMA2
        const __half2 m = __float2half2_rn(0.99f), k = __float2half2_rn(0.01f);
        __half2 a = __float2half2_rn(x), b = __hadd2(a, __float2half2_rn(0.25f));
        __half2 c = __hadd2(a, __float2half2_rn(0.5f)), d = __hadd2(a, __float2half2_rn(0.75f));
#pragma unroll 4
        for (int s = 0; s < steps; ++s) {
            a = __hfma2(a, m, k); b = __hfma2(b, m, k); c = __hfma2(c, m, k); d = __hfma2(d, m, k);
        }
        __half2 r = __hadd2(__hadd2(a, b), __hadd2(c, d));
        return __low2float(r) + __high2float(r);
    }
}

// The word thread i adds to: 0 one address, 1 one a warp, 2 lane i % 32 of one line, 3 1,024 words
// (i % 1024), 4 2^20 words (a multiplicative hash of i).
__device__ __forceinline__ unsigned mb52_slot(unsigned i, int mode) {
    switch (mode) {
    case 0: return 0u;
    case 1: return i >> 5;
    case 2: return i & 31u;
    case 3: return i & 1023u;
    default: return (i * 2654435761u) >> 12;
    }
}

extern "C" {
__global__ void mb52_ffma(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = mb52_chain_body<0>(in[t], steps);
}
__global__ void mb52_dfma(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = mb52_chain_body<1>(in[t], steps);
}
__global__ void mb52_mufu(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = mb52_chain_body<2>(in[t], steps);
}
__global__ void mb52_imad(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = mb52_chain_body<3>(in[t], steps);
}
__global__ void mb52_hfma2(float* out, const float* in, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = mb52_chain_body<4>(in[t], steps);
}

__global__ void mb52_red(int* acc, const int* in, int n, int mode) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[mb52_slot(i, mode)], in[i]);
}

__global__ void mb52_atom_ret(int* acc, int* old, const int* in, int n, int mode) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) old[i] = atomicAdd(&acc[mb52_slot(i, mode)], in[i]);
}

__global__ void mb52_fma_each(float* z, const float* x, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = fmaf(x[i], y[i], 1.0f);
}

__global__ void mb52_fma_stride(float* z, const float* x, const float* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        z[i] = fmaf(x[i], y[i], 1.0f);
}

__global__ void mb52_store_strided(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(long long)i * stride] = in[i] + 1.0f;
}
}
