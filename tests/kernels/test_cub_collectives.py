"""CUB collectives compiled from the CCCL headers: BlockReduce, BlockScan,
WarpReduce (full and 16-lane logical warps) and BlockRadixSort."""

import numpy as np
import pytest

from kernel_corpus import assert_all_written, cp, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "cub_collectives.cu"
THREADS, ITEMS = 128, 4


def per_block(x, size, fn):
    return np.array([fn(x[s:s + size]) for s in range(0, len(x), size)])


def test_block_reduce():
    n = 5 * THREADS - 37
    x = rng(1).integers(-(1 << 20), 1 << 20, n).astype(np.int32)
    blocks = (n + THREADS - 1) // THREADS
    sums, maxima = sentinel(blocks, np.int32), sentinel(blocks, np.int32)
    kernel(SOURCE, "block_reduce")((blocks,), (THREADS,), (cp.asarray(x), sums, maxima, np.int32(n)))
    np.testing.assert_array_equal(sums.get(), per_block(x, THREADS, np.sum))
    np.testing.assert_array_equal(maxima.get(), per_block(x, THREADS, np.max))


def test_block_scan():
    n = 4 * THREADS - 5
    x = rng(2).integers(-1000, 1000, n).astype(np.int32)
    blocks = (n + THREADS - 1) // THREADS
    exclusive, inclusive = sentinel(n, np.int32), sentinel(n, np.int32)
    totals = sentinel(blocks, np.int32)
    kernel(SOURCE, "block_scan")((blocks,), (THREADS,), (cp.asarray(x), exclusive, inclusive, totals, np.int32(n)))
    got_ex, got_in = exclusive.get(), inclusive.get()
    assert_all_written(got_ex)
    assert_all_written(got_in)
    np.testing.assert_array_equal(got_ex, np.concatenate([np.cumsum(s) - s for s in np.split(x, range(THREADS, n, THREADS))]))
    np.testing.assert_array_equal(got_in, np.concatenate([np.maximum.accumulate(s) for s in np.split(x, range(THREADS, n, THREADS))]))
    np.testing.assert_array_equal(totals.get(), per_block(x, THREADS, np.sum))


def test_warp_reduce():
    blocks = 3
    n = blocks * THREADS - 20
    x = (rng(3).integers(-1000, 1000, n) * 0.5).astype(np.float32)
    sums = sentinel(blocks * THREADS // 32, np.float32)
    odd = sentinel(blocks * THREADS // 16, np.int32)
    kernel(SOURCE, "warp_reduce")((blocks,), (THREADS,), (cp.asarray(x), sums, odd, np.int32(n)))
    padded = np.zeros(blocks * THREADS, np.float32)
    padded[:n] = x
    np.testing.assert_array_equal(sums.get(), padded.reshape(-1, 32).sum(axis=1))
    index = np.arange(blocks * THREADS)
    np.testing.assert_array_equal(odd.get(), ((index < n) & (index % 2 == 1)).reshape(-1, 16).sum(axis=1))


def test_block_radix_sort():
    blocks = 3
    size = THREADS * ITEMS
    keys = rng(4).integers(-(1 << 31), (1 << 31) - 1, blocks * size).astype(np.int32)
    keys[:50] = 12345                                  # ties keep their order (a stable sort)
    values = np.arange(blocks * size, dtype=np.int32)
    keys_out, values_out = sentinel(blocks * size, np.int32), sentinel(blocks * size, np.int32)
    kernel(SOURCE, "radix_sort")((blocks,), (THREADS,), (cp.asarray(keys), cp.asarray(values), keys_out, values_out))
    order = np.concatenate([b * size + np.argsort(keys[b * size:(b + 1) * size], kind="stable") for b in range(blocks)])
    np.testing.assert_array_equal(keys_out.get(), keys[order])
    np.testing.assert_array_equal(values_out.get(), values[order])
