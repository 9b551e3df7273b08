// Twenty-fourth batch: where a CTA's warps wait when their reads from HBM come before a barrier.
// Each CTA takes `tiles` tiles in turn. A tile: every thread reads k floats (all its loads issued
// before the first use), adds them, meets the CTA at a barrier, and (write 1) writes the sum where
// it read its first float. The data (rows x row_floats floats) is far beyond the L2.
//   layout 0, contiguous: a tile is one run of warps x k x 32 floats, each warp's k lines next to
//                         the next warp's;
//   layout 1, spread:     warp w of a tile reads k lines of row w of a block of `warps` rows, rows
//                         row_floats apart (a shared-memory transpose's tile reads so).
// Under ncu the barrier and long_scoreboard stalls say where the warps wait.

extern "C" __global__ void mb24_tiles(float* out, const float* in, int tiles, int k, int layout, int write,
                                      int row_floats) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    long long per_row = row_floats / (32 * k);           // tiles side by side in a block of rows
#pragma unroll 1
    for (int t = 0; t < tiles; ++t) {
        long long tile = (long long)blockIdx.x * tiles + t;
        long long first;
        if (layout == 0)
            first = (tile * warps + warp) * (long long)k * 32 + lane;
        else
            first = ((tile / per_row) * warps + warp) * (long long)row_floats + (tile % per_row) * k * 32 + lane;
        float v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j)
            if (j < k) v[j] = in[first + j * 32];
        float s = 0.f;
#pragma unroll
        for (int j = 0; j < 8; ++j)
            if (j < k) s += v[j];
        __syncthreads();
        if (write) out[first] = s;
    }
}
