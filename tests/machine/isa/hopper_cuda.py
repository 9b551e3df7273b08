"""CUDA C++ kernels for the Hopper tests: cooperative groups' multi-warp tiles and clusters.

Compiled through NVRTC for sm_90, run on warpsim by tests/machine/isa/ and on an
H200 by validation/hopper/run_on_h200.py (the same source, the same inputs).
`cg::reduce` over a thread_block_tile wider than a warp keeps its barrier and
partial results in the reserved shared memory (%reserved_smem_offset_1);
`cg::memcpy_async` copies a block's tile asynchronously; a `__cluster_dims__`
kernel reads its neighbour CTA's shared memory (distributed shared memory)
through `cluster.map_shared_rank` between two `cluster.sync()`s.
"""

SOURCE = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

template <int Tile>
__device__ void tile_reductions(const int* in, int* sums, int* maxima) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    sums[i] = cg::reduce(tile, v, cg::plus<int>());
    maxima[i] = cg::reduce(tile, v, cg::greater<int>());
}

extern "C" __global__ void tile64_reduce(const int* in, int* sums, int* maxima) {
    tile_reductions<64>(in, sums, maxima);
}
extern "C" __global__ void tile128_reduce(const int* in, int* sums, int* maxima) {
    tile_reductions<128>(in, sums, maxima);
}

extern "C" __global__ void block_memcpy_async(const float* in, float* out, int n) {
    extern __shared__ float tile[];
    cg::thread_block block = cg::this_thread_block();
    const float* src = in + blockIdx.x * n;
    cg::memcpy_async(block, tile, src, sizeof(float) * n);
    cg::wait(block);
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        out[blockIdx.x * n + j] = 2.0f * tile[n - 1 - j];
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_neighbour(const int* in, int* out, int* ranks) {
    __shared__ int values[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    values[threadIdx.x] = in[i];
    cluster.sync();
    int* theirs = cluster.map_shared_rank(values, rank ^ 1);
    out[i] = theirs[blockDim.x - 1 - threadIdx.x];
    if (threadIdx.x == 0) {
        ranks[3 * blockIdx.x] = rank;
        ranks[3 * blockIdx.x + 1] = cluster.num_blocks();
        ranks[3 * blockIdx.x + 2] = cluster.block_index().x;
    }
    cluster.sync();
}
"""

KERNELS = ("tile64_reduce", "tile128_reduce", "block_memcpy_async", "cluster_neighbour")
