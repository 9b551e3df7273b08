// Kernels for the sanitizer tests: each has one bug (or none), named in its comment.

// Clean: the classic shared-memory tree reduction, a barrier after every step.
extern "C" __global__ void tree_reduce(const int* x, int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (int stride = 64; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// RAW across warps: no __syncthreads() between the write and another warp's read.
extern "C" __global__ void missing_barrier(const int* x, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = x[t];                        // write
    out[t] = s[63 - t];                 // read of another warp's word
}

// WAR: each thread reads its neighbour's word and its own, then overwrites its own.
extern "C" __global__ void neighbour_overwrite(const int* x, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    int a = s[(t + 1) % 64];            // read by the neighbour below
    int b = s[t];                       // read by the owner: the last reader
    s[t] = a + b;                       // write while the neighbour may still read
    __syncthreads();
    out[t] = s[t];
}

// Clean: shared atomics from every thread, read after the barrier.
extern "C" __global__ void shared_histogram(const int* x, int* out) {
    __shared__ int bins[8];
    int t = threadIdx.x;
    if (t < 8) bins[t] = 0;
    __syncthreads();
    atomicAdd(&bins[x[t] & 7], 1);
    __syncthreads();
    if (t < 8) out[t] = bins[t];
}

// Clean: neighbouring threads write different bytes of one word.
extern "C" __global__ void byte_array(char* out) {
    __shared__ char s[64];
    int t = threadIdx.x;
    s[t] = (char)t;
    __syncthreads();
    out[t] = s[63 - t];
}

// Divergent barrier: half of warp 0 waits at __syncthreads(), the other half goes on.
extern "C" __global__ void half_barrier(int* out) {
    int t = threadIdx.x;
    if (t < 16) __syncthreads();
    out[t] = t;
}

// Divergent barrier: odd and even lanes wait at different __syncthreads().
extern "C" __global__ void two_barriers(int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t % 2) { s[t] = 1; __syncthreads(); }
    else       { s[t] = 2; __syncthreads(); }
    out[t] = s[t ^ 1];
}

// Clean: out-of-range threads return before the barrier (exited threads do not take part).
extern "C" __global__ void early_exit(int* out, int n) {
    __shared__ int s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    s[threadIdx.x] = i;
    __syncthreads();
    out[i] = s[threadIdx.x % 8];
}

// Wrong mask: a full-mask shuffle after half the warp returned.
extern "C" __global__ void shuffle_after_return(int* out) {
    int t = threadIdx.x;
    if (t >= 16) return;
    out[t] = __shfl_down_sync(0xffffffff, t, 1);
}

// Clean: warp shuffle reduction of the whole warp.
extern "C" __global__ void warp_sum(const int* x, int* out) {
    int v = x[threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x == 0) out[0] = v;
}

// Reads its input: uninitialized when the input was never written.
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

// Out of bounds when the grid has more threads than the array has elements.
extern "C" __global__ void fill(int* y) {
    y[blockIdx.x * blockDim.x + threadIdx.x] = 7;
}
