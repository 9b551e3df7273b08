"""Shared-memory scans (Hillis-Steele, Blelloch) and a bitonic sort, one
segment per block, against NumPy cumsum and sort."""

import numpy as np
import pytest


from kernel_corpus import cp, assert_all_written, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "scan_and_sort.cu"


def segmented(x, size, fn):
    return np.concatenate([fn(x[s:s + size]) for s in range(0, len(x), size)])


@pytest.mark.parametrize("threads", [32, 100, 256, 1024])
def test_hillis_steele(threads):
    n = 3 * threads + 11
    x = rng(threads).integers(-1000, 1000, n).astype(np.int32)
    out = sentinel(n, np.int32)
    kernel(SOURCE, "scan_hillis_steele")(((n + threads - 1) // threads,), (threads,),
                                         (cp.asarray(x), out, np.int32(n)), shared_mem=8 * threads)
    got = out.get()
    assert_all_written(got)
    np.testing.assert_array_equal(got, segmented(x, threads, np.cumsum))


@pytest.mark.parametrize("threads", [32, 128, 512])
def test_blelloch(threads):
    size = 2 * threads
    n = 4 * size - 7
    x = rng(threads + 1).integers(-(1 << 20), 1 << 20, n).astype(np.int32)
    blocks = (n + size - 1) // size
    out = sentinel(n, np.int32)
    totals = sentinel(blocks, np.int32)
    kernel(SOURCE, "scan_blelloch")((blocks,), (threads,), (cp.asarray(x), out, totals, np.int32(n)),
                                    shared_mem=4 * size)
    got = out.get()
    assert_all_written(got)
    np.testing.assert_array_equal(got, segmented(x, size, lambda s: np.cumsum(s) - s))
    np.testing.assert_array_equal(totals.get(), segmented(x, size, lambda s: [s.sum()]))


@pytest.mark.parametrize("threads", [64, 512, 1024])
def test_bitonic_sort(threads):
    n = 3 * threads - 5
    x = rng(threads + 2).integers(-(1 << 31), (1 << 31) - 1, n).astype(np.int32)
    x[5:40] = 17                                      # duplicates
    out = sentinel(n, np.int32)
    kernel(SOURCE, "bitonic_sort")(((n + threads - 1) // threads,), (threads,),
                                   (cp.asarray(x), out, np.int32(n)), shared_mem=4 * threads)
    got = out.get()
    assert_all_written(got)
    np.testing.assert_array_equal(got, segmented(x, threads, np.sort))
