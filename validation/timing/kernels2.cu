// The second validation set (cases2.py launches them): kernels of the same kinds as kernels.cu
// but written apart from it, with other shapes, sizes and occupancies, so that the timing model
// is checked on kernels it was not shaped on. Every kernel name starts with t2_ (ncu filters on
// it). Built with nvcc -arch=sm_90.

// The transposes' tile (a template: outside the extern "C" block)
// TILE x TILE tiles, blocks of TILE x ROWS threads, each thread ROWS-strided rows.
#define T2_TILE 32
template <int PAD>
__device__ void t2_transpose_tile(float* out, const float* in, int N) {
    __shared__ float tile[T2_TILE][T2_TILE + PAD];
    int x = blockIdx.x * T2_TILE + threadIdx.x;
    int y = blockIdx.y * T2_TILE + threadIdx.y;
    for (int j = 0; j < T2_TILE; j += blockDim.y) tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * N + x];
    __syncthreads();
    x = blockIdx.y * T2_TILE + threadIdx.x;
    y = blockIdx.x * T2_TILE + threadIdx.y;
    for (int j = 0; j < T2_TILE; j += blockDim.y) out[(long long)(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}


extern "C" {

// ------------------------------------------------------------------ divergence
// Lanes whose (lane & mask) is zero run an FMA chain, the others a chain of adds and
// multiplies: mask 0 keeps every warp on one side, masks 1..16 split each warp in two,
// mask 32 splits the CTA by warp (no divergence).
__global__ void t2_branch_mask(float* out, const float* in, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if ((threadIdx.x & mask) == 0) {
#pragma unroll 4
        for (int k = 0; k < n; ++k) v = fmaf(v, 0.9995f, 0.25f);
    } else {
#pragma unroll 4
        for (int k = 0; k < n; ++k) v = (v + 0.125f) * 0.9985f;
    }
    out[i] = v;
}

// A loop whose body switches on (key + round) % ways: the path changes every round, so a
// warp runs up to `ways` paths per round and reconverges after each.
__global__ void t2_switch_in_loop(float* out, const float* in, int rounds, int ways, int by_warp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int key = by_warp ? (threadIdx.x >> 5) : threadIdx.x;
    float v = in[i];
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
        switch ((key + r) % ways) {
            case 0: v = fmaf(v, 0.999f, 0.5f); v = fmaf(v, 0.999f, 0.5f); break;
            case 1: v = (v + 0.25f) * 0.998f; v = (v + 0.25f) * 0.998f; break;
            case 2: v = fmaf(v, 0.997f, 0.75f); v = v * 0.999f + 0.125f; break;
            case 3: v = (v - 0.5f) * 0.996f + 1.0f; v = fmaf(v, 0.9991f, 0.3f); break;
            case 4: v = fmaf(v, 0.9993f, 0.6f); v = (v + 0.1f) * 0.9992f; break;
            case 5: v = (v + 0.2f) * 0.9994f; v = fmaf(v, 0.9989f, 0.4f); break;
            case 6: v = fmaf(v, 0.9987f, 0.9f); v = v * 0.9996f + 0.2f; break;
            default: v = (v + 0.3f) * 0.9982f; v = fmaf(v, 0.9997f, 0.05f); break;
        }
    }
    out[i] = v;
}

// Per-thread trip counts: lengths[i] iterations of a dependent chain with a load per step.
__global__ void t2_var_trip(float* out, const float* in, const int* lengths, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    int len = lengths[i];
#pragma unroll 1
    for (int k = 0; k < len; ++k) v = fmaf(v, 0.9993f, 0.5f) * 0.9999f;
    out[i] = v;
}

// ------------------------------------------------- streaming at any occupancy
// Grid-stride y = 2x + 1: the number of resident warps sets the loads in flight.
__global__ void t2_stream(float* out, const float* in, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = 2.0f * in[i] + 1.0f;
}

// The same with four independent loads in flight per thread.
__global__ void t2_stream_ilp4(float* out, const float* in, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        float a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        out[i] = 2.0f * a + 1.0f;
        out[i + stride] = 2.0f * b + 1.0f;
        out[i + 2 * stride] = 2.0f * c + 1.0f;
        out[i + 3 * stride] = 2.0f * d + 1.0f;
    }
    for (; i < n; i += stride) out[i] = 2.0f * in[i] + 1.0f;
}

// float4 loads and stores, grid-stride.
__global__ void t2_stream_vec4(float4* out, const float4* in, long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = in[i];
        out[i] = make_float4(2.f * v.x + 1.f, 2.f * v.y + 1.f, 2.f * v.z + 1.f, 2.f * v.w + 1.f);
    }
}

// One element per thread, triad a + s b: the block-size sweep.
__global__ void t2_triad(float* c, const float* a, const float* b, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + s * b[i];
}

// ------------------------------------------------------------------ atomics
// mode 0: one address; 1: one address per warp; 2: one per CTA; 3: i % spread (distinct lanes).
__device__ __forceinline__ int t2_slot(int i, int mode, int spread) {
    switch (mode) {
        case 0: return 0;
        case 1: return i >> 5;
        case 2: return blockIdx.x;
        default: return i % spread;
    }
}

// Result unused: ptxas emits RED.
__global__ void t2_red_int(int* acc, const int* in, int n, int mode, int spread) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[t2_slot(i, mode, spread)], in[i]);
}

__global__ void t2_red_float(float* acc, const float* in, int n, int mode, int spread) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[t2_slot(i, mode, spread)], in[i]);
}

// Result used: ATOMG returns the old value.
__global__ void t2_atom_ret(int* acc, int* old, const int* in, int n, int mode, int spread) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) old[i] = atomicAdd(&acc[t2_slot(i, mode, spread)], in[i]) >= 0 ? 1 : 0;
}

// Shared-memory histogram of 256 bins per CTA, then merged into the global one.
__global__ void t2_histogram_smem(int* hist, const unsigned char* data, int n) {
    __shared__ int bins[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&hist[b], bins[b]);
}

// ------------------------------------------------------------- strided access
__global__ void t2_strided_store(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(long long)i * stride] = in[i] * 3.0f;
}

__global__ void t2_strided_load(float* out, const float* in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride] * 3.0f;
}

// Column access of a row-major matrix: thread i walks column i.
__global__ void t2_column_sum(float* out, const float* in, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += in[(long long)r * cols + c];
    out[c] = s;
}

// Row access: one thread per row (every lane a different row: 32 lines per request).
__global__ void t2_row_sum(float* out, const float* in, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += in[(long long)r * cols + c];
    out[r] = s;
}

// -------------------------------------------------------------- transposes
__global__ void t2_transpose_conflicts(float* out, const float* in, int N) { t2_transpose_tile<0>(out, in, N); }
__global__ void t2_transpose_pad(float* out, const float* in, int N) { t2_transpose_tile<1>(out, in, N); }

// Through global memory only: reads coalesced, writes strided by N.
__global__ void t2_transpose_global(float* out, const float* in, int N) {
    int x = blockIdx.x * T2_TILE + threadIdx.x;
    int y = blockIdx.y * T2_TILE + threadIdx.y;
    for (int j = 0; j < T2_TILE; j += blockDim.y) out[(long long)x * N + y + j] = in[(long long)(y + j) * N + x];
}

// ----------------------------------------------------- reductions and barriers
// Tree reduction in shared memory (blockDim a power of two), one partial per CTA.
__global__ void t2_reduce_tree(float* out, const float* in, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x;
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    s[t] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Warp shuffles, then one atomic per warp into a single float.
__global__ void t2_reduce_shfl_atomic(float* out, const float* in, int n) {
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

// A 1D 3-point stencil through shared memory, repeated `rounds` times with barriers.
__global__ void t2_stencil_rounds(float* out, const float* in, int rounds) {
    extern __shared__ float s[];
    int t = threadIdx.x, b = blockDim.x;
    int i = blockIdx.x * b + t;
    float v = in[i];
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
        s[t] = v;
        __syncthreads();
        float l = s[t == 0 ? b - 1 : t - 1], rr = s[t == b - 1 ? 0 : t + 1];
        v = 0.25f * l + 0.5f * v + 0.25f * rr;
        __syncthreads();
    }
    out[i] = v;
}

// ------------------------------------------------------ compute at any block size
__global__ void t2_fma_chains(float* out, const float* in, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i], b = a + 1.f, c = a + 2.f, d = a + 3.f;
#pragma unroll 4
    for (int k = 0; k < steps; ++k) {
        a = fmaf(a, 0.9999f, 0.01f); b = fmaf(b, 0.9998f, 0.02f);
        c = fmaf(c, 0.9997f, 0.03f); d = fmaf(d, 0.9996f, 0.04f);
    }
    out[i] = a + b + c + d;
}

// Shared-memory tiled matmul with 32 x 32 tiles (blocks of 32 x 32 threads).
__global__ void t2_matmul32(float* C, const float* A, const float* B, int N) {
    __shared__ float As[32][32], Bs[32][32];
    int r = blockIdx.y * 32 + threadIdx.y, c = blockIdx.x * 32 + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < N; k0 += 32) {
        As[threadIdx.y][threadIdx.x] = A[r * N + k0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + c];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    C[r * N + c] = acc;
}

}  // extern "C"
