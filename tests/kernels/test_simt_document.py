"""The kernels of the SIMT execution document: divergent and uniform branches
around a heavy loop, warp and block sums (n not a multiple of the block)."""

import numpy as np
import pytest


from kernel_corpus import cp, assert_all_written, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "simt_document.cu"


def heavy_reference(x: np.ndarray, n: int) -> np.ndarray:
    """x = fma(x, 1.000001f, 0.5f) n times; the f64 sum is exact here, so one rounding."""
    x = x.astype(np.float32)
    a, b = np.float64(np.float32(1.000001)), np.float64(0.5)
    for _ in range(n):
        x = (x.astype(np.float64) * a + b).astype(np.float32)
    return x


@pytest.mark.parametrize("name", ["branch_on_lane", "branch_on_warp"])
def test_branch_kernels(name):
    blocks, threads, loops = 8, 128, 60
    total = blocks * threads
    out = sentinel(total, np.float32)
    kernel(SOURCE, name)((blocks,), (threads,), (out, np.int32(loops)))
    got = out.get()
    assert_all_written(got)
    i = np.arange(total)
    tid = i % threads
    even = (tid % 2 == 0) if name == "branch_on_lane" else ((tid // 32) % 2 == 0)
    start = np.where(even, i.astype(np.float32), i.astype(np.float32) + np.float32(1))
    np.testing.assert_array_equal(got, heavy_reference(start, loops))


def small_integers(n: int, salt: int) -> np.ndarray:
    """Integer-valued floats: every partial sum is exact, whatever the order."""
    return rng(salt).integers(-100, 101, n).astype(np.float32)


@pytest.mark.parametrize("threads", [32, 64, 96, 160, 256, 512, 1024])
def test_block_sum(threads):
    n = 3 * threads + 17                       # the last block is partly empty
    x = small_integers(n, threads)
    out = cp.zeros(1, dtype=np.float32)
    blocks = (n + threads - 1) // threads
    kernel(SOURCE, "block_sum")((blocks,), (threads,), (cp.asarray(x), out, np.int32(n)))
    assert out.get()[0] == x.sum(dtype=np.float64)


def test_block_sum_large_grid():
    n = (1 << 20) + 3                          # a million threads
    x = small_integers(n, 1)
    out = cp.zeros(1, dtype=np.float32)
    kernel(SOURCE, "block_sum")(((n + 255) // 256,), (256,), (cp.asarray(x), out, np.int32(n)))
    assert out.get()[0] == x.sum(dtype=np.float64)


def test_warp_sums():
    n = 32 * 40 + 5
    x = small_integers(n, 2)
    warps = (n + 31) // 32
    out = sentinel(warps, np.float32)
    kernel(SOURCE, "warp_sums")(((n + 127) // 128,), (128,), (cp.asarray(x), out, np.int32(n)))
    got = out.get()
    assert_all_written(got)
    padded = np.zeros(warps * 32, np.float32)
    padded[:n] = x
    np.testing.assert_array_equal(got, padded.reshape(-1, 32).sum(axis=1))
