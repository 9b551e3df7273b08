// Small kernels whose metrics can be counted by hand (tests/metrics).

extern "C" __global__ void copy_strided(const float* in, float* out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

extern "C" __global__ void copy_float4(const float4* in, float4* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

extern "C" __global__ void add_one(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1;
}

// One 32x32 tile, block (32, 32): warp y stores row y, then reads column y.
extern "C" __global__ void transpose_tile(const float* in, float* out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void transpose_tile_padded(const float* in, float* out) {
    __shared__ float tile[32][33];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// 64-bit shared loads at a stride of 2 elements: each half-warp hits every bank it uses twice.
extern "C" __global__ void shared_float2_stride2(const float2* in, float2* out) {
    __shared__ float2 s[64];
    s[threadIdx.x] = in[threadIdx.x];
    s[threadIdx.x + 32] = in[threadIdx.x + 32];
    __syncthreads();
    out[threadIdx.x] = s[2 * threadIdx.x];
}

// Every lane reads the same shared word: one wavefront.
extern "C" __global__ void shared_broadcast(const float* in, float* out) {
    __shared__ float s[32];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[7];
}

extern "C" __global__ void count_into(int* counter) {
    atomicAdd(counter, 1);             // result unused: a RED on the hardware
}

__device__ float heavy(float x, int n) {
    for (int i = 0; i < n; ++i) x = x * 1.000001f + 0.5f;
    return x;
}

extern "C" __global__ void branch_on_lane(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if (threadIdx.x % 2 == 0) v = heavy(v, n);
    else                      v = heavy(v + 1.f, n);
    out[i] = v;
}

extern "C" __global__ void branch_on_warp(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if ((threadIdx.x / 32) % 2 == 0) v = heavy(v, n);
    else                             v = heavy(v + 1.f, n);
    out[i] = v;
}
