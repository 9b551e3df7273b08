"""Cooperative groups through RawModule on sm_90: multi-warp tiles (reserved shared memory),
memcpy_async, and a cluster's distributed shared memory, against NumPy and the H200.

The kernels are in hopper_cuda.py; validation/hopper/run_on_h200.py ran them on an
H200 with the same inputs (h200.json records that each equalled NumPy there).
"""

import os

import numpy as np
import pytest

import warpsim as cp

import hopper_cuda

pytestmark = pytest.mark.nvrtc
H200 = os.path.join(os.path.dirname(__file__), "..", "..", "..", "validation", "hopper", "h200.npz")


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=hopper_cuda.SOURCE, options=("-std=c++17",))


def recorded(name):
    if not os.path.exists(H200):
        return None
    data = np.load(H200)
    return data[name] if name in data else None


@pytest.mark.parametrize("tile", [64, 128])
def test_reduce_over_a_tile_wider_than_a_warp(module, tile):
    """cg::reduce over thread_block_tile<64/128> keeps its scratch at %reserved_smem_offset_1."""
    assert "%reserved_smem_offset_1" in module.ptx
    values = np.random.default_rng(7).integers(-1000, 1000, 512).astype(np.int32)
    sums, maxima = cp.full(512, -7, cp.int32), cp.full(512, -7, cp.int32)
    module.get_function(f"tile{tile}_reduce")((2,), (256,), (cp.asarray(values), sums, maxima))
    groups = values.reshape(-1, tile)
    np.testing.assert_array_equal(sums.get(), np.repeat(groups.sum(axis=1), tile))
    np.testing.assert_array_equal(maxima.get(), np.repeat(groups.max(axis=1), tile))
    h200 = recorded(f"tile{tile}_reduce_sums")
    if h200 is not None:
        np.testing.assert_array_equal(sums.get(), h200)


def test_memcpy_async_of_a_block_tile(module):
    rng = np.random.default_rng(7)
    rng.integers(-1000, 1000, 512)                      # the H200 run drew these first
    n = 200
    data = rng.standard_normal(3 * n).astype(np.float32)
    out = cp.full(3 * n, np.nan, cp.float32)
    module.get_function("block_memcpy_async")((3,), (64,), (cp.asarray(data), out, np.int32(n)),
                                               shared_mem=4 * n)
    np.testing.assert_array_equal(out.get(), 2 * data.reshape(3, n)[:, ::-1].ravel())
    h200 = recorded("block_memcpy_async")
    if h200 is not None:
        np.testing.assert_array_equal(out.get(), h200)


def test_cluster_reads_its_neighbours_shared_memory(module):
    """__cluster_dims__(2,1,1): map_shared_rank (mapa) between two cluster.sync() (barrier.cluster)."""
    rng = np.random.default_rng(7)                      # the H200 run's inputs: its third draw
    rng.integers(-1000, 1000, 512), rng.standard_normal(600)
    values = rng.integers(0, 1 << 20, 4 * 128).astype(np.int32)
    out, ranks = cp.full(512, -1, cp.int32), cp.full(12, -1, cp.int32)
    module.get_function("cluster_neighbour")((4,), (128,), (cp.asarray(values), out, ranks))
    np.testing.assert_array_equal(out.get(), values.reshape(4, 128)[[1, 0, 3, 2]][:, ::-1].ravel())
    np.testing.assert_array_equal(ranks.get(), [0, 2, 0, 1, 2, 1, 0, 2, 0, 1, 2, 1])   # as on the H200
    h200 = recorded("cluster_neighbour")
    if h200 is not None:
        np.testing.assert_array_equal(out.get(), h200)


def test_cluster_grid_must_hold_whole_clusters(module):
    with pytest.raises(cp.LaunchError, match="whole number of clusters"):
        module.get_function("cluster_neighbour")((3,), (128,), (cp.zeros(384, cp.int32),
                                                               cp.zeros(384, cp.int32), cp.zeros(9, cp.int32)))
