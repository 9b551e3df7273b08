// Forty-fourth batch (run_microbench44.py): how many lines an SM keeps in flight, and streaming with
// few warps an SM. Set 4's chase_smem_40k (dependent random loads, L2-resident, 20 warps an SM under a
// 40 KB shared-memory reservation) ran 1.5x the model's time and longer than the same chase at 8 warps
// an SM (100 KB), as if the lines an SM waits for were bounded by what the carve-out leaves L1;
// set 4's grid-stride streams at 1 to 16 warps an SM ran 13-21% longer than the model's.
//
// mb44_chase: one CTA an SM of `blockDim.x` threads holding `dynamic shared` bytes; each thread
// follows a random permutation `steps` times (every lane its own line, or with `lane_line` set the
// warp's 32 lanes one 128-byte line: the permutation is over lines and the lane picks the word).
// mb44_stream<K, V>: one CTA an SM, a grid-stride loop whose iteration makes K independent loads of
// V floats a thread (restrict: all issue before the first use), then stores them (mode 1) or adds
// them to a register stored once (mode 0).

#include <cuda_runtime.h>

extern "C" __global__ void mb44_chase(int* out, const int* __restrict__ perm, unsigned mask, int steps,
                                      int lane_line) {
    extern __shared__ int pad44[];
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    unsigned p = ((t >> 5) * 2654435761u) & mask;
    if (!lane_line) p = (t * 2654435761u) & mask;
    for (int s = 0; s < steps; ++s) {
        if (lane_line) p = (unsigned)perm[(p & ~31u) | lane] & mask;
        else p = (unsigned)perm[p];
    }
    pad44[threadIdx.x] = (int)p;               // the reservation is touched; never read back
    out[t] = (int)p + pad44[threadIdx.x ^ 1] * 0;
}

template <int K, int V>
struct Vec44;
template <int K>
struct Vec44<K, 1> { typedef float T; };
template <int K>
struct Vec44<K, 4> { typedef float4 T; };

__device__ __forceinline__ float sum44(float v) { return v; }
__device__ __forceinline__ float sum44(float4 v) { return v.x + v.y + v.z + v.w; }

template <int K, int V>
__device__ __forceinline__ void stream44(typename Vec44<K, V>::T* __restrict__ out,
                                         const typename Vec44<K, V>::T* __restrict__ in, long long n, int mode) {
    typedef typename Vec44<K, V>::T T;
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.f;
    for (; i + (K - 1) * stride < n; i += K * stride) {
        T v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = in[i + k * stride];
        if (mode) {
#pragma unroll
            for (int k = 0; k < K; ++k) out[i + k * stride] = v[k];
        } else {
#pragma unroll
            for (int k = 0; k < K; ++k) acc += sum44(v[k]);
        }
    }
    if (!mode) reinterpret_cast<float*>(out)[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#define STREAM44(K, V)                                                                                  \
    extern "C" __global__ void mb44_stream_k##K##_v##V(typename Vec44<K, V>::T* __restrict__ out,      \
                                                       const typename Vec44<K, V>::T* __restrict__ in,  \
                                                       long long n, int mode) {                         \
        stream44<K, V>(out, in, n, mode);                                                               \
    }
STREAM44(1, 1)
STREAM44(4, 1)
STREAM44(16, 1)
STREAM44(1, 4)
STREAM44(4, 4)
STREAM44(16, 4)
