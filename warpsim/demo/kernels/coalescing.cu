// Coalescing (simt-execution.md, "Operational guidance"): the warp is the unit
// of memory access. One warp's 32 loads are served in 32-byte sectors: lanes
// reading adjacent floats share sectors (4 per request), lanes striding apart
// each need their own (up to 32).
extern "C" __global__ void copy_strided(const float* in, float* out, int stride, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride];
}

// Transpose of a rows x cols matrix, the naive way: the reads are coalesced
// (adjacent lanes, adjacent columns of one row), the writes stride by `rows`.
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y;
    if (r < rows && c < cols) out[(long long)c * rows + r] = in[(long long)r * cols + c];
}

// The fix: stage a 32x32 tile in shared memory so both the global read and the
// global write map adjacent lanes to adjacent addresses (+1 column: no bank conflicts).
extern "C" __global__ void transpose_tiled(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[32][33];
    int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y;
    if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[(long long)r * cols + c];
    __syncthreads();
    int tc = blockIdx.y * 32 + threadIdx.x, tr = blockIdx.x * 32 + threadIdx.y;
    if (tr < cols && tc < rows) out[(long long)tr * rows + tc] = tile[threadIdx.x][threadIdx.y];
}
