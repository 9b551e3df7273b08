"""Cooperative launches from the CuPy API: kernel(..., enable_cooperative_groups=True) runs the whole
grid together, so CUDA's own cooperative_groups grid.sync() orders the blocks; a grid larger
than can be resident at once is refused as the driver refuses it."""

import numpy as np
import pytest

import warpsim as cp
from warpsim import errors

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void rotate_sums(const int *x, int *y, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) y[i] = x[i] * 3;
    grid.sync();
    // each block sums the next block's part, which only that block wrote
    int first = ((blockIdx.x + 1) % gridDim.x) * blockDim.x;
    if (threadIdx.x == 0) {
        int s = 0;
        for (int k = 0; k < blockDim.x && first + k < n; k++) s += y[first + k];
        out[blockIdx.x] = s;
    }
    grid.sync();
    if (grid.thread_rank() == 0) {
        int t = 0;
        for (int b = 0; b < gridDim.x; b++) t += out[b];
        out[gridDim.x] = t;
    }
}
"""


@pytest.fixture(scope="module")
def rotate_sums():
    return cp.RawModule(code=SOURCE, options=("-std=c++17",)).get_function("rotate_sums")


def test_grid_sync_orders_every_block(rotate_sums):
    rng = np.random.default_rng(5)
    blocks, threads = 7, 64
    n = blocks * threads - int(rng.integers(1, threads))
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    y, out = cp.zeros(n, dtype=cp.int32), cp.zeros(blocks + 1, dtype=cp.int32)
    rotate_sums((blocks,), (threads,), (cp.asarray(x), y, out, np.int32(n)), enable_cooperative_groups=True)
    np.testing.assert_array_equal(y.get(), x * 3)
    parts = np.add.reduceat(x * 3, np.arange(0, n, threads))
    expected = np.roll(parts, -1)
    np.testing.assert_array_equal(out.get()[:blocks], expected)
    assert out.get()[blocks] == (x * 3).sum()


def test_grid_sync_without_a_cooperative_launch_traps(rotate_sums):
    y, out = cp.zeros(64, dtype=cp.int32), cp.zeros(3, dtype=cp.int32)
    with pytest.raises(errors.TrapError, match="needs a cooperative launch"):
        rotate_sums((2,), (32,), (y, y, out, np.int32(64)))


def test_more_blocks_than_fit_at_once_are_refused(rotate_sums):
    y, out = cp.zeros(1, dtype=cp.int32), cp.zeros(1, dtype=cp.int32)
    with pytest.raises(errors.CooperativeLaunchTooLarge, match="resident at once on 132 SMs") as caught:
        rotate_sums((132 * 2 + 1,), (1024,), (y, y, out, np.int32(0)), enable_cooperative_groups=True)
    assert caught.value.cuda_error == "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"
    assert out.get()[0] == 0
