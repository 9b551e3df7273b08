// Kernels run under Nsight Compute on a real GPU (validation/ncu_metrics.py)
// and under warpsim (validation/compare_metrics.py); their metrics are
// compared in validation/metrics_comparison.md. Every kernel name starts with
// ws_ so ncu can be told to profile these and nothing else.

// ---------------------------------------------------------------- the document's examples

__device__ float heavy(float x, int n) {
    for (int i = 0; i < n; ++i) x = x * 1.000001f + 0.5f;
    return x;
}

extern "C" __global__ void ws_branch_on_lane(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if (threadIdx.x % 2 == 0) v = heavy(v, n);        // half the lanes
    else                      v = heavy(v + 1.f, n);  // the other half
    out[i] = v;                                       // warp runs both paths
}

extern "C" __global__ void ws_branch_on_warp(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i;
    if ((threadIdx.x / 32) % 2 == 0) v = heavy(v, n); // whole warp agrees
    else                             v = heavy(v + 1.f, n);
    out[i] = v;                                       // one path per warp
}

__device__ float warp_sum(float v) {
    unsigned mask = 0xffffffffu;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(mask, v, offset);
    return v;
}

extern "C" __global__ void ws_block_sum(const float* x, float* out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.f;
    v = warp_sum(v);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    int nwarps = (blockDim.x + 31) / 32;
    if (warp == 0) {
        v = (lane < nwarps) ? partial[lane] : 0.f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

// Example 2: per-thread loop lengths (31 lanes short, one lane long).
extern "C" __global__ void ws_variable_loop(const int* length, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.f;
    for (int k = 0; k < length[i]; ++k) acc = acc * 0.5f + (float)k;
    out[i] = acc;
}

// A block of 100 threads: four warps, the last with 4 live lanes.
extern "C" __global__ void ws_add_one(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1;
}

// ---------------------------------------------------------------- coalescing

extern "C" __global__ void ws_copy_strided(const float* in, float* out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[(long long)i * stride];
}

extern "C" __global__ void ws_copy_float2(const float2* in, float2* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

extern "C" __global__ void ws_copy_float4(const float4* in, float4* out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[(long long)i * stride];
}

extern "C" __global__ void ws_copy_byte(const unsigned char* in, unsigned char* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

// ---------------------------------------------------------------- shared memory

#define TILE 32

// Read column-wise from a 32x32 float tile: all lanes of a warp hit one bank.
extern "C" __global__ void ws_transpose_naive(const float* in, float* out, int n) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The same with one column of padding: the column lies across all 32 banks.
extern "C" __global__ void ws_transpose_padded(const float* in, float* out, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 64-bit shared accesses at a stride of `stride` elements (block of 32 threads).
extern "C" __global__ void ws_shared_float2(const float2* in, float2* out, int stride) {
    __shared__ float2 s[32 * 8];
    int t = threadIdx.x;
    for (int k = t; k < 32 * 8; k += blockDim.x) s[k] = in[blockIdx.x * 32 * 8 + k];
    __syncthreads();
    float2 v = s[(t * stride) % (32 * 8)];
    __syncthreads();
    s[(t * stride) % (32 * 8)] = make_float2(v.y, v.x);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t];
}

// 128-bit shared accesses at a stride of `stride` elements (block of 32 threads).
extern "C" __global__ void ws_shared_float4(const float4* in, float4* out, int stride) {
    __shared__ float4 s[32 * 8];
    int t = threadIdx.x;
    for (int k = t; k < 32 * 8; k += blockDim.x) s[k] = in[blockIdx.x * 32 * 8 + k];
    __syncthreads();
    float4 v = s[(t * stride) % (32 * 8)];
    __syncthreads();
    s[(t * stride) % (32 * 8)] = make_float4(v.w, v.z, v.y, v.x);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t];
}

// Every lane reads the same shared word (broadcast), then a 2-way conflict.
extern "C" __global__ void ws_shared_broadcast(const float* in, float* out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    s[t + 32] = in[blockIdx.x * 64 + t + 32];
    __syncthreads();
    float a = s[5];                         // one word for all lanes: 1 wavefront
    float b = s[(t * 2) % 64];              // words 0,2,..,62: banks hit twice
    out[blockIdx.x * 32 + t] = a + b;
}
