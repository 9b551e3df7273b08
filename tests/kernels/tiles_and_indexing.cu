// Shared-memory tiling and thread indexing: tiled matrix multiply, naive and
// shared-memory transposes (bank-conflicted and padded), 3-D grids and blocks,
// and a block of 100 threads.

#define TILE 16

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C,
                                        int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx, bk = t * TILE + ty;
        As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
        Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void matmul_tiled_f64(const double* A, const double* B, double* C,
                                            int M, int N, int K) {
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    double acc = 0.0;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx, bk = t * TILE + ty;
        As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.0;
        Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.0;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// in: rows x cols, out: cols x rows.
extern "C" __global__ void transpose_naive(const int* in, int* out, int rows, int cols) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

#define TDIM 32
#define ROWS 8

// 32x8 threads move a 32x32 tile through shared memory; PAD 0 conflicts on
// the column reads, PAD 1 does not.
template <int PAD>
__device__ void transpose_tile(const int* in, int* out, int rows, int cols) {
    __shared__ int tile[TDIM][TDIM + PAD];
    int x = blockIdx.x * TDIM + threadIdx.x;
    int y = blockIdx.y * TDIM + threadIdx.y;
    for (int j = 0; j < TDIM; j += ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TDIM + threadIdx.x;
    y = blockIdx.x * TDIM + threadIdx.y;
    for (int j = 0; j < TDIM; j += ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transpose_shared(const int* in, int* out, int rows, int cols) {
    transpose_tile<0>(in, out, rows, cols);
}

extern "C" __global__ void transpose_padded(const int* in, int* out, int rows, int cols) {
    transpose_tile<1>(in, out, rows, cols);
}

// Every thread of a 3-D grid of 3-D blocks writes its coordinates at its
// global (z, y, x) position of a volume of nz x ny x nx.
extern "C" __global__ void index_3d(int4* coords, int* linear, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int at = (z * ny + y) * nx + x;
    int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    int thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    coords[at] = make_int4(x, y, z, block);
    linear[at] = thread | (blockDim.x << 10) | (blockDim.y << 17) | (blockDim.z << 24);
}

// A block of 100 threads: four warps, the last with four live lanes.
extern "C" __global__ void block_of_100(const int* in, int* out, unsigned* lane_info) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned active = __activemask();
    out[i] = in[i] * 3 + (int)(threadIdx.x / 32);
    lane_info[i] = lane | (__popc(active) << 8) | ((blockDim.x) << 16);
}
