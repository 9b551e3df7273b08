// Fifty-fifth microbenchmark batch (run_microbench55.py): does a line the L2 fetches from HBM take the
// L2's time twice, once to write it in and once to read it out? Full-occupancy grid-stride streams (2,112
// CTAs of 256 threads: 64 warps an SM) that read, or write, one float an element while each thread also
// reads K floats of a 4 MB table by ld.global.cg (L1 passed by, L2 hits after the first touch; K fixed
// at compile time, so a thread's K loads are in flight together). The table's reads load the L2 alone;
// the stream's fills, if they cost the L2 a read's time, add to them.
template <int K>
__device__ __forceinline__ float table_reads(const float* __restrict__ hot, long long i) {
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < K; ++j) acc += __ldcg(hot + ((i + (long long)j * 3104) & ((1 << 20) - 1)));
    return acc;
}
template <int K>
__device__ void hits(float* sink, const float* __restrict__ hot, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += table_reads<K>(hot, i);
    sink[(long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
template <int K>
__device__ void read(float* sink, const float* __restrict__ x, const float* __restrict__ hot, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += x[i] + table_reads<K>(hot, i);
    sink[(long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
template <int K>
__device__ void write(float* z, const float* __restrict__ hot, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = (float)(i & 1023) + table_reads<K>(hot, i);
}
extern "C" {
__global__ void mb55_hits1(float* s, const float* __restrict__ h, long long n) { hits<1>(s, h, n); }
__global__ void mb55_hits2(float* s, const float* __restrict__ h, long long n) { hits<2>(s, h, n); }
__global__ void mb55_hits4(float* s, const float* __restrict__ h, long long n) { hits<4>(s, h, n); }
__global__ void mb55_read0(float* s, const float* __restrict__ x, const float* __restrict__ h, long long n) { read<0>(s, x, h, n); }
__global__ void mb55_read1(float* s, const float* __restrict__ x, const float* __restrict__ h, long long n) { read<1>(s, x, h, n); }
__global__ void mb55_read2(float* s, const float* __restrict__ x, const float* __restrict__ h, long long n) { read<2>(s, x, h, n); }
__global__ void mb55_read3(float* s, const float* __restrict__ x, const float* __restrict__ h, long long n) { read<3>(s, x, h, n); }
__global__ void mb55_read4(float* s, const float* __restrict__ x, const float* __restrict__ h, long long n) { read<4>(s, x, h, n); }
__global__ void mb55_write0(float* z, const float* __restrict__ h, long long n) { write<0>(z, h, n); }
__global__ void mb55_write1(float* z, const float* __restrict__ h, long long n) { write<1>(z, h, n); }
__global__ void mb55_write2(float* z, const float* __restrict__ h, long long n) { write<2>(z, h, n); }
__global__ void mb55_write4(float* z, const float* __restrict__ h, long long n) { write<4>(z, h, n); }
}
