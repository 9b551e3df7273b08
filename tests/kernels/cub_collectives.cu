// CUB block- and warp-wide collectives (from the CCCL headers NVRTC sees).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/warp/warp_reduce.cuh>

constexpr int THREADS = 128;
constexpr int ITEMS = 4;

struct MaxOp {                       // cub::Max is gone from newer CCCL; spell it out
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

extern "C" __global__ void block_reduce(const int* in, int* sums, int* maxima, int n) {
    using Reduce = cub::BlockReduce<int, THREADS>;
    __shared__ typename Reduce::TempStorage storage;
    int i = blockIdx.x * THREADS + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int total = Reduce(storage).Sum(v);
    __syncthreads();
    int valid = min(THREADS, n - (int)blockIdx.x * THREADS);
    int largest = Reduce(storage).Reduce(v, MaxOp(), valid);
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = total;
        maxima[blockIdx.x] = largest;
    }
}

extern "C" __global__ void block_scan(const int* in, int* exclusive, int* inclusive, int* totals, int n) {
    using Scan = cub::BlockScan<int, THREADS>;
    __shared__ typename Scan::TempStorage storage;
    int i = blockIdx.x * THREADS + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int before, total;
    Scan(storage).ExclusiveSum(v, before, total);
    __syncthreads();
    int upto;
    Scan(storage).InclusiveScan(v, upto, MaxOp());
    if (i < n) {
        exclusive[i] = before;
        inclusive[i] = upto;
    }
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

extern "C" __global__ void warp_reduce(const float* in, float* sums, int* odd_counts, int n) {
    using Reduce = cub::WarpReduce<float>;
    using Count = cub::WarpReduce<int, 16>;            // logical warps of 16 lanes
    __shared__ typename Reduce::TempStorage storage[THREADS / 32];
    __shared__ typename Count::TempStorage count_storage[THREADS / 16];
    int i = blockIdx.x * THREADS + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    float total = Reduce(storage[threadIdx.x / 32]).Sum(v);
    int odd = Count(count_storage[threadIdx.x / 16]).Sum(i < n && (i & 1));
    if (threadIdx.x % 32 == 0) sums[i / 32] = total;
    if (threadIdx.x % 16 == 0) odd_counts[i / 16] = odd;
}

// Each block sorts THREADS * ITEMS keys (with values), ascending.
extern "C" __global__ void radix_sort(const int* keys_in, const int* values_in, int* keys_out,
                                      int* values_out) {
    using Sort = cub::BlockRadixSort<int, THREADS, ITEMS, int>;
    __shared__ typename Sort::TempStorage storage;
    int keys[ITEMS], values[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
    for (int k = 0; k < ITEMS; ++k) {
        keys[k] = keys_in[base + k];
        values[k] = values_in[base + k];
    }
    Sort(storage).Sort(keys, values);
    for (int k = 0; k < ITEMS; ++k) {
        keys_out[base + k] = keys[k];
        values_out[base + k] = values[k];
    }
}
