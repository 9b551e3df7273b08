// Fifty-fourth microbenchmark batch (run_microbench54.py): full-occupancy streams of one float a
// thread (grid-stride, 2,112 CTAs of 256 threads: 64 warps an SM on an H100) by their size, 1M to 64M
// elements, and by what they do with HBM: read only (a thread's sum written once to a sink), write
// only, copy, and z = x y + 1 (two reads a write). What the L2 keeps of the writes, and what a short
// stream costs beyond its bytes.
extern "C" {
__global__ void mb54_read(float* sink, const float* __restrict__ x, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += x[i];
    sink[(long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void mb54_write(float* z, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) z[i] = (float)(i & 1023);
}
__global__ void mb54_copy(float* z, const float* __restrict__ x, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) z[i] = 2.0f * x[i];
}
__global__ void mb54_fma(float* z, const float* __restrict__ x, const float* __restrict__ y, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) z[i] = x[i] * y[i] + 1.0f;
}
}
