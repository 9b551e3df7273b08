// Fifty-third microbenchmark batch (run_microbench53.py): how fast warps stream reads from HBM by how
// many bytes each keeps in flight. A grid-stride read of 64 MB, each thread loading K elements of W bytes
// (a float or a float4) an iteration, K independent loads in flight, summing them; 8 to 64 warps an SM.
// A thread writes its sum once at the end (to a sink no one reads), so HBM sees the reads alone.
template <typename T, int K>
__device__ void mb53_body(float* sink, const T* __restrict__ src, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += K * stride) {
        T v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            long long j = i + k * stride;
            if (j < n) v[k] = src[j]; else v[k] = T();
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if constexpr (sizeof(T) == 4) acc += v[k];
            else acc += v[k].x + v[k].y + v[k].z + v[k].w;
        }
    }
    sink[(long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" {
__global__ void mb53_f1_k1(float* sink, const float* src, long long n) { mb53_body<float, 1>(sink, src, n); }
__global__ void mb53_f1_k2(float* sink, const float* src, long long n) { mb53_body<float, 2>(sink, src, n); }
__global__ void mb53_f1_k4(float* sink, const float* src, long long n) { mb53_body<float, 4>(sink, src, n); }
__global__ void mb53_f4_k1(float* sink, const float4* src, long long n) { mb53_body<float4, 1>(sink, src, n); }
__global__ void mb53_f4_k2(float* sink, const float4* src, long long n) { mb53_body<float4, 2>(sink, src, n); }
}
