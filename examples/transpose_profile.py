"""Bank conflicts of a shared-memory transpose, and the padding that removes them:
`python examples/transpose_profile.py` (or `warpsim profile python examples/transpose_profile.py`)."""

import numpy as np

import warpsim as cp

SOURCE = r"""
template <int PAD>
__global__ void transpose(const float* in, float* out, int n) {
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
"""
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"

if __name__ == "__main__":
    n = 128
    module = cp.RawModule(code=SOURCE, name_expressions=("transpose<0>", "transpose<1>"))
    x = np.random.default_rng(0).random((n, n), dtype=np.float32)
    for pad in (0, 1):
        out = cp.zeros((n, n), dtype=cp.float32)
        with cp.profile() as prof:
            module.get_function(f"transpose<{pad}>")((n // 32, n // 32), (32, 32), (cp.asarray(x), out, np.int32(n)))
        assert np.array_equal(out.get(), x.T)
        print(f"padding {pad}: {prof.launches[0].metrics[CONFLICTS]:,.0f} shared-load bank conflicts")
