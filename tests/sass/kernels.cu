// Kernels whose SASS the tests in this folder check (one shape each).

extern "C" __global__ void unrolled_sum(const float* x, float* out) {
    float total = 0.0f;
    for (int k = 0; k < 8; ++k)          // ptxas unrolls: no backward branch
        total += x[threadIdx.x * 8 + k];
    out[threadIdx.x] = total;
}

extern "C" __global__ void ternary(const int* a, const int* b, int* out) {
    int i = threadIdx.x;
    out[i] = a[i] > b[i] ? 7 : 11;       // a SEL, no branch
}

extern "C" __global__ void predicated(const float* a, const float* b, float* out) {
    int i = threadIdx.x;
    out[i] = a[i] > b[i] ? a[i] * b[i] : a[i] + b[i];   // FMUL, then @!P0 FADD over it
}

extern "C" __global__ void long_branch(const float* x, float* out, int n) {
    int i = threadIdx.x;
    float v = x[i];
    if (v > 0.0f) {                      // too long to predicate: BSSY, BRA, BSYNC
        for (int k = 0; k < n; ++k)
            v = v * 1.0001f + __sinf(v);
    } else {
        v = __expf(v) * __cosf(v) + __logf(v * v + 1.0f);
        out[i + 1] = v;
    }
    out[i] = v;
}

extern "C" __global__ void early_return(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;                  // a predicated EXIT
    y[i] = 2.0f * x[i];
}

extern "C" __global__ void shared_vector(const float* x, float* out) {
    __shared__ float tile[256];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    int base = (threadIdx.x & 63) * 4;  // four contiguous floats: one LDS.128
    out[threadIdx.x] = tile[base] + tile[base + 1] + tile[base + 2] + tile[base + 3];
}

extern "C" __global__ void shfl_reduce(const float* x, float* out) {
    float v = x[blockIdx.x * 32 + threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, offset);
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

extern "C" __global__ void histogram(const int* keys, int* bins, int* total) {
    int key = keys[blockIdx.x * blockDim.x + threadIdx.x];
    int old = atomicAdd(&bins[key & 15], 1);   // result used: ATOMG
    atomicAdd(total, old);                     // result unused: RED
}
