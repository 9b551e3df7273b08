// Twenty-fifth batch: register-bank conflicts. FMA chains over K values held in registers; ptxas
// allocates the chain's register and the K values, and the SASS says which FFMAs read two sources
// from one bank (even or odd registers). Run at 1, 2 and 4+ warps a sub-partition.
template <int K>
__device__ __forceinline__ void chain(float* out, const float* in, int iters) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float r[K];
#pragma unroll
    for (int k = 0; k < K; ++k) r[k] = in[(t + k * 4099) & 65535];
    float x = 0.5f;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < K; ++k) x = fmaf(x, r[k], 0.25f);
    }
    out[t] = x;
}
#define CHAIN(K) extern "C" __global__ void mb25_chain_##K(float* out, const float* in, int iters) { chain<K>(out, in, iters); }
CHAIN(8) CHAIN(24) CHAIN(32) CHAIN(40) CHAIN(48) CHAIN(56) CHAIN(64) CHAIN(72) CHAIN(80) CHAIN(96)

// Two chains side by side: x and y each take the K values in turn (two FFMAs a value, independent).
template <int K>
__device__ __forceinline__ void chain2(float* out, const float* in, int iters) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float r[K];
#pragma unroll
    for (int k = 0; k < K; ++k) r[k] = in[(t + k * 4099) & 65535];
    float x = 0.5f, y = 0.75f;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < K; ++k) { x = fmaf(x, r[k], 0.25f); y = fmaf(r[k], y, x); }
    }
    out[t] = x + y;
}
#define CHAIN2(K) extern "C" __global__ void mb25_pair_##K(float* out, const float* in, int iters) { chain2<K>(out, in, iters); }
CHAIN2(16) CHAIN2(32) CHAIN2(64) CHAIN2(96)
