"""cp.async.bulk, cp.async.bulk.tensor and mbarrier transaction counts from hand-written PTX.

The bulk probe ran on an H200 too (validation/hopper/h200.npz: the same flags and output).
Tensor maps come from warpsim.machine.isa.bulk_copy.encode_tiled (the GPU's layout), and
the tensor probe is checked against NumPy: the box, zero or NaN outside the tensor, rows
swizzled as the map says, and the box stored back with the parts outside the tensor dropped.
"""

import os

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.isa.bulk_copy import encode_tiled

from hopper_ptx import BULK, CLUSTER_BULK, box_of, swizzled, tensor_probe

H200 = os.path.join(os.path.dirname(__file__), "..", "..", "..", "validation", "hopper", "h200.npz")


def test_bulk_copies_complete_transactions_on_the_mbarrier():
    src = np.random.default_rng(3).integers(0, 1 << 30, 128).astype(np.uint32)
    dst, flags = cp.full(128, 7, cp.uint32), cp.full(2, 9, cp.uint32)
    cp.RawModule(ptx=BULK).get_function("bulk_probe")((1,), (64,), (cp.asarray(src), dst, flags))
    np.testing.assert_array_equal(dst.get(), (3 * src.astype(np.uint64)).astype(np.uint32))
    # 256 of the 512 announced bytes leave the phase open; all of them complete it
    np.testing.assert_array_equal(flags.get(), [0, 1])
    if os.path.exists(H200) and "bulk_flags" in np.load(H200):
        np.testing.assert_array_equal(flags.get(), np.load(H200)["bulk_flags"])


@pytest.mark.parametrize("shape, box, coords, swizzle, fill", [
    ((40, 24), (8, 16), (20, 30), "none", "zero"),          # past the end of both dimensions
    ((5, 6, 32), (32, 4, 2), (0, -2, 4), "128B", "nan"),    # 3-D, before the start, NaN fill, swizzled rows
    ((70,), (16,), (60,), "64B", "zero"),                   # 1-D
], ids=["2d-edges", "3d-128B-nan", "1d-64B"])
def test_tensor_copy_box_against_numpy(shape, box, coords, swizzle, fill):
    rng = np.random.default_rng(5)
    tensor = rng.standard_normal(shape).astype(np.float32)
    target = np.full(shape, -1.0, np.float32)
    dims = list(reversed(shape))
    strides = [4 * int(np.prod(shape[len(shape) - d:])) for d in range(1, len(shape))]
    elements = int(np.prod(box))
    src, dst = cp.asarray(tensor), cp.asarray(target)
    tmap = encode_tiled(src.data.ptr, 4, dims, strides, list(box), swizzle_mode=swizzle, oob_fill=fill)
    tmap_out = encode_tiled(dst.data.ptr, 4, dims, strides, list(box), swizzle_mode=swizzle)
    out = cp.full(elements, 12345.0, cp.float32)
    coords5 = np.array(list(coords) + [0] * (5 - len(coords)), np.int32)
    module = cp.RawModule(ptx=tensor_probe(len(shape), elements))
    module.get_function("tensor_probe")((1,), (64,), (tmap, cp.asarray(coords5), out, tmap_out))
    want, inside = box_of(tensor, coords, box, np.nan if fill == "nan" else 0.0)
    raw = out.get()
    # undo the swizzle: box element e sits at byte swizzled(4 e) of the 1024-aligned box
    where = np.array([swizzled(4 * e, swizzle) // 4 for e in range(elements)])
    np.testing.assert_array_equal(raw[where].reshape(want.shape), want)
    stored = target.copy()
    index = tuple(g[inside] for g in np.meshgrid(*[np.arange(box[len(shape) - 1 - a]) + coords[len(shape) - 1 - a]
                                                   for a in range(len(shape))], indexing="ij"))
    stored[index] = want[inside]
    np.testing.assert_array_equal(dst.get(), stored)


def test_tensor_maps_are_checked_as_the_driver_does():
    with pytest.raises(ValueError, match="16-byte aligned"):
        encode_tiled(0x1008, 4, [64], [], [16])
    with pytest.raises(ValueError, match="strides"):
        encode_tiled(0x1000, 4, [10, 10], [40], [8, 8])
    with pytest.raises(ValueError, match="swizzle"):
        encode_tiled(0x1000, 2, [64, 64], [128], [32, 8], swizzle_mode="128B")


def test_bytes_that_are_no_tensor_map_are_named():
    module = cp.RawModule(ptx=tensor_probe(1, 16))
    with pytest.raises(cp.LaunchError, match="global address is 0"):
        module.get_function("tensor_probe")((1,), (64,), (bytes(128), cp.zeros(5, cp.int32),
                                                          cp.zeros(16, cp.float32), bytes(128)))


def test_bulk_copy_into_the_neighbour_cta_completes_on_its_mbarrier():
    """shared::cta -> shared::cluster: the bytes land in CTA 1 and complete on CTA 1's mbarrier."""
    src = np.random.default_rng(4).integers(0, 1 << 30, 64).astype(np.uint32)
    out = cp.full(64, 7, cp.uint32)
    cp.RawModule(ptx=CLUSTER_BULK).get_function("cluster_bulk")((2,), (32,), (cp.asarray(src), out))
    np.testing.assert_array_equal(out.get(), src)


BARRIER_COPY = r"""
#include <cuda/barrier>
extern "C" __global__ void tile_sums(const float* in, float* out, int tiles) {
    // a quarter of the threads copy 16 bytes each a step with cuda::memcpy_async on a cuda::barrier
    // (cp.async.bulk completing on its mbarrier), all of them sum the tile after arrive_and_wait
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(16) float tile[256];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    float acc = 0.f;
    for (int t = 0; t < tiles; ++t) {
        if (threadIdx.x < 64)
            cuda::memcpy_async(tile + 4 * threadIdx.x, in + (blockIdx.x * tiles + t) * 256 + 4 * threadIdx.x,
                               sizeof(float4), bar);
        bar.arrive_and_wait();
        acc += tile[threadIdx.x] * tile[255 - threadIdx.x];
        bar.arrive_and_wait();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""


@pytest.mark.parametrize("level", [None, "sass"])
def test_lanes_bulk_copies_on_a_cuda_barrier(level):
    """libcu++'s memcpy_async on a cuda::barrier (cuda-samples' globalToShmemAsyncCopy kernel 2): the
    copies of 64 lanes move and complete in one step; the sums equal NumPy's."""
    blocks, tiles = 3, 4
    x = np.random.default_rng(12).standard_normal(blocks * tiles * 256).astype(np.float32)
    out = cp.zeros(blocks * 256, dtype=np.float32)
    kernel = cp.RawModule(code=BARRIER_COPY, options=("-arch=sm_90", "-std=c++17")).get_function("tile_sums")
    if level is None:
        kernel((blocks,), (256,), (cp.asarray(x), out, np.int32(tiles)))
    else:
        with cp.settings(sass_verify=False), cp.profile(level=level) as prof:
            kernel((blocks,), (256,), (cp.asarray(x), out, np.int32(tiles)))
        assert prof[0].execution == "sass"
    t = x.reshape(blocks, tiles, 256).astype(np.float64)
    acc = np.zeros((blocks, 256), np.float32)
    for k in range(tiles):                      # an fma a step: the f64 product is exact
        acc = (acc + t[:, k] * t[:, k, ::-1]).astype(np.float32)
    np.testing.assert_allclose(out.get().reshape(blocks, 256), acc, rtol=1e-5)
