// Dynamic shared memory, per-thread local arrays, recursion and non-inlined
// device functions (several arguments, a struct returned by value).

// Reverses each block's segment through dynamic shared memory, and carves a
// second (int) array out of the same allocation after the floats.
extern "C" __global__ void dynamic_shared(const float* in, float* out, int* counts, int n) {
    extern __shared__ float buffer[];
    int* tally = (int*)(buffer + blockDim.x);
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buffer[t] = i < n ? in[i] : -1.f;
    tally[t] = i < n ? 1 : 0;
    __syncthreads();
    int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
    if (j < n) out[j] = buffer[t];
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) tally[t] += tally[t + stride];
        __syncthreads();
    }
    if (t == 0) counts[blockIdx.x] = tally[0];
}

// A per-thread array indexed by data: it has to live in local memory.
extern "C" __global__ void local_array(const int* in, const int* picks, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int table[24];
    for (int k = 0; k < 24; ++k) table[k] = in[i] * (k + 1) + k;
    for (int k = 0; k < 4; ++k) {
        int p = (picks[i] >> (5 * k)) % 24;
        table[p] += table[(p + 7) % 24];
    }
    int acc = 0;
    for (int k = 0; k < 3; ++k) acc = acc * 31 + table[(picks[i] >> (8 * k)) % 24];
    out[i] = acc;
}

__device__ __noinline__ unsigned long long fibonacci(int n) {
    if (n < 2) return (unsigned long long)n;
    return fibonacci(n - 1) + fibonacci(n - 2);
}

__device__ __noinline__ unsigned long long factorial(int n, unsigned long long acc_unused) {
    if (n <= 1) return 1;
    unsigned long long below = factorial(n - 1, acc_unused + 1);
    return below * (unsigned long long)n;
}

// Mutual recursion: is_even / is_odd on the thread's depth.
__device__ __noinline__ bool is_odd(int n);
__device__ __noinline__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }

extern "C" __global__ void recursion(const int* depth, unsigned long long* fib,
                                     unsigned long long* fact, int* parity, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int d = depth[i];
    fib[i] = fibonacci(d % 13);
    fact[i] = factorial(d % 21, 0);
    parity[i] = is_even(d) ? 2 : 1;
}

struct Summary {
    double mean;
    float spread;
    int count;
    char flag;
    long long key;
};

__device__ __noinline__ Summary summarize(const float* values, int count, float bias, double scale,
                                          char flag, long long key, int skip) {
    Summary s;
    double total = 0.0;
    float lo = 1e30f, hi = -1e30f;
    int used = 0;
    for (int k = 0; k < count; ++k) {
        if (k == skip) continue;
        float v = values[k] + bias;
        total += v;
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
        ++used;
    }
    s.mean = used ? total * scale / used : 0.0;
    s.spread = hi - lo;
    s.count = used;
    s.flag = (char)(flag + used);
    s.key = key * 3 + used;
    return s;
}

extern "C" __global__ void struct_return(const float* values, int per_thread, double* means,
                                         float* spreads, int* counts, long long* keys, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Summary s = summarize(values + i * per_thread, per_thread, 0.5f, 2.0, (char)(i & 63),
                          (long long)i << 33, i % (per_thread + 1));
    means[i] = s.mean;
    spreads[i] = s.spread;
    counts[i] = s.count | (s.flag << 16);
    keys[i] = s.key;
}
