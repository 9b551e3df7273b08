// Shared-memory scans and sort, one segment per block: Hillis-Steele
// (inclusive, double-buffered), Blelloch (exclusive, work-efficient, two
// elements per thread) and a bitonic sort.

extern "C" __global__ void scan_hillis_steele(const int* in, int* out, int n) {
    extern __shared__ int buffer[];                 // 2 * blockDim.x ints
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    int* src = buffer;
    int* dst = buffer + blockDim.x;
    src[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        dst[t] = t >= offset ? src[t] + src[t - offset] : src[t];
        __syncthreads();
        int* swap = src; src = dst; dst = swap;
    }
    if (i < n) out[i] = src[t];
}

// Each block scans 2 * blockDim.x elements; blockDim.x is a power of two.
extern "C" __global__ void scan_blelloch(const int* in, int* out, int* block_totals, int n) {
    extern __shared__ int temp[];
    int t = threadIdx.x, size = 2 * blockDim.x;
    int base = blockIdx.x * size;
    temp[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0;
    temp[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;
    int offset = 1;
    for (int d = size >> 1; d > 0; d >>= 1) {       // up-sweep
        __syncthreads();
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            temp[b] += temp[a];
        }
        offset <<= 1;
    }
    if (t == 0) {
        block_totals[blockIdx.x] = temp[size - 1];
        temp[size - 1] = 0;
    }
    for (int d = 1; d < size; d <<= 1) {           // down-sweep
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            int left = temp[a];
            temp[a] = temp[b];
            temp[b] += left;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) out[base + 2 * t] = temp[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = temp[2 * t + 1];
}

// Sorts each block's blockDim.x keys ascending (blockDim.x a power of two);
// a short last segment is padded with INT_MAX.
extern "C" __global__ void bitonic_sort(const int* in, int* out, int n) {
    extern __shared__ int keys[];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    keys[t] = i < n ? in[i] : 0x7fffffff;
    __syncthreads();
    for (unsigned k = 2; k <= blockDim.x; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned partner = t ^ j;
            if (partner > t) {
                int a = keys[t], b = keys[partner];
                bool ascending = (t & k) == 0;
                if ((a > b) == ascending) {
                    keys[t] = b;
                    keys[partner] = a;
                }
            }
            __syncthreads();
        }
    }
    if (i < n) out[i] = keys[t];
}
