"""The walk of one warp through the SASS (timing/walk.py): which scoreboards a block starts with."""

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import predict

SOURCE = r"""
extern "C" __global__ void tiles(float* out, const float* in, int tiles, int loads, int write) {
    #pragma unroll 1
    for (int t = 0; t < tiles; ++t) {
        long long i = ((long long)blockIdx.x * tiles + t) * blockDim.x * 4 + threadIdx.x;
        float v[4];
        #pragma unroll
        for (int j = 0; j < 4; ++j)
            if (j < loads) v[j] = in[i + j * blockDim.x];
        __syncthreads();
        if (write) {               // the loads' only use: without the write nothing waits for them here
            float s = 0.f;
            #pragma unroll
            for (int j = 0; j < 4; ++j)
                if (j < loads) s += v[j];
            out[i] = s;
        }
    }
}
"""
TILES, BLOCK, CTAS = 16, 256, 1024


@pytest.fixture(scope="module")
def launch():
    k = ws.RawModule(code=SOURCE).get_function("tiles")
    n = TILES * BLOCK * CTAS * 4
    x = ws.asarray(np.random.default_rng(8).random(n, dtype=np.float32))
    out = ws.zeros(n, dtype=np.float32)

    def run(write):
        params = pack_arguments(k.kernel_name, k.params, (out, x, np.int32(TILES), np.int32(1), np.int32(write)))
        return predict(k.loaded_module, k.kernel_name, (CTAS,), (BLOCK,), params, 0, gpu="h200", max_ctas=4)
    return run, out, x


def test_a_load_waited_for_only_at_the_next_iteration_counts(launch):
    """Without the write nothing waits for the load in its iteration: the next load into its register
    waits at the loop's head, which the taken path reaches from the loads' block, not from the write
    before it in the code (the twenty-fourth batch's reads: the H200 counts long_scoreboard there,
    8.2 an issue)."""
    run, out, x = launch
    reads = run(0)
    assert reads.stalls["long_scoreboard"] > 10.0
    copies = run(1)
    assert reads.time_s > 0.8 * copies.time_s       # the same loads, one store a thread fewer
    np.testing.assert_allclose(out.get()[:BLOCK], x.get()[:BLOCK])
