"""Warp primitives against a NumPy model of PTX's lane arithmetic: shuffles
(up, down, xor, idx, with widths below 32), votes, __activemask, match,
redux and __syncwarp."""

import numpy as np
import pytest


from kernel_corpus import cp, assert_all_written, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "warp_intrinsics.cu"
LANE = np.arange(32)


def shfl(values, source, in_range):
    """values (warps, 32); each lane reads lane `source` when in range, else keeps its own."""
    return values[:, np.where(in_range, source, LANE)]


def shfl_down(v, delta, width):
    j = LANE + delta
    return shfl(v, j, j <= LANE // width * width + width - 1)


def shfl_up(v, delta, width):
    j = LANE - delta
    return shfl(v, j, j >= LANE // width * width)


def shfl_xor(v, mask, width):
    j = LANE ^ mask
    return shfl(v, j, j <= LANE // width * width + width - 1)


def shfl_idx(v, src, width):
    return shfl(v, LANE // width * width + np.asarray(src) % width, np.ones(32, bool))


def shuffle_reference(x, width):
    v = x.reshape(-1, 32).astype(np.int64)
    down, every, scan = v.copy(), v.copy(), v.copy()
    offset = width // 2
    while offset:
        down = down + shfl_down(down, offset, width)
        every = every + shfl_xor(every, offset, width)
        offset //= 2
    offset = 1
    while offset < width:
        scan = scan + np.where(LANE % width >= offset, shfl_up(scan, offset, width), 0)
        offset *= 2
    flags = np.broadcast_to(LANE % width != width - 1, v.shape)
    rows = [down, every, scan, shfl_idx(v, 1, width), shfl_idx(v, LANE + 1, width), flags]
    return np.stack([r.reshape(-1) for r in rows]).astype(np.int32)


@pytest.mark.parametrize("width", [32, 16, 8, 4])
def test_shuffles(width):
    n = 512
    x = rng(width).integers(-(1 << 20), 1 << 20, n).astype(np.int32)
    out = sentinel((6, n), np.int32)
    kernel(SOURCE, f"shuffles_{width}")((n // 128,), (128,), (cp.asarray(x), out, np.int32(n)))
    got = out.get()
    assert_all_written(got)
    np.testing.assert_array_equal(got, shuffle_reference(x, width))


def test_shuffle_wide():
    n = 256
    g = rng(3)
    x = g.integers(-1000, 1000, n).astype(np.float64) * 0.25   # exact sums in any order
    y = g.standard_normal(n).astype(np.float32)
    sums, rotated = sentinel(n, np.float64), sentinel(n, np.float32)
    kernel(SOURCE, "shuffle_wide")((2,), (128,), (cp.asarray(x), cp.asarray(y), sums, rotated))
    np.testing.assert_array_equal(sums.get(), np.repeat(x.reshape(-1, 32).sum(axis=1), 32))
    np.testing.assert_array_equal(rotated.get(), shfl_idx(y.reshape(-1, 32), LANE + 5, 32).reshape(-1))


def test_shuffle_partial_masks():
    n = 256
    x = rng(4).integers(-1000, 1000, n).astype(np.int32)
    out = sentinel(n, np.int32)
    kernel(SOURCE, "shuffle_partial")((2,), (128,), (cp.asarray(x), out))
    v = x.reshape(-1, 32).astype(np.int64)
    low = v + shfl_down(v, 8, 16)
    low = low + shfl_down(low, 4, 16)
    expected = np.where(LANE < 16, low, v[:, 31:32])
    np.testing.assert_array_equal(out.get(), expected.reshape(-1))


def test_votes():
    n, threads, threshold = 1000, 128, 0
    blocks = (n + threads - 1) // threads
    total = blocks * threads
    x = rng(5).integers(-100, 100, total).astype(np.int32)
    x[:64] = np.abs(x[:64]) + 1                       # warps 0 and 1: all true
    x[64:96] = -np.abs(x[64:96]) - 1                  # warp 2: all false
    out = sentinel((6, n), np.uint32)
    kernel(SOURCE, "votes")((blocks,), (threads,), (cp.asarray(x), out, np.int32(n), np.int32(threshold)))
    got = out.get()
    assert_all_written(got)
    i = np.arange(total)
    valid = i < n
    value = np.where(valid, x, 0).reshape(-1, 32)
    weights = np.uint64(1) << LANE.astype(np.uint64)

    def ballot(bits):
        return np.repeat((bits.astype(np.uint64) * weights).sum(axis=1), 32).astype(np.uint32)

    pred = value > threshold
    tid = (i % threads).reshape(-1, 32)
    block = (i // threads).reshape(-1, 32)
    expected = np.stack([
        np.repeat(pred.all(axis=1), 32), np.repeat(pred.any(axis=1), 32), ballot(pred),
        np.where((tid % 3 == 0).reshape(-1), ballot(tid % 3 == 0), ~ballot(tid % 3 != 0)),
        np.where((block % 2 == 0).reshape(-1), 0xFFFFFFFF, 0),
        np.repeat(((value & 1) != 0).sum(axis=1), 32),
    ]).astype(np.uint32)
    np.testing.assert_array_equal(got, expected[:, :n])


def test_match():
    n = 256
    g = rng(6)
    warp = np.arange(n) // 32
    x = (g.integers(0, 6, n) + 1000 * (warp % 2) * g.integers(0, 2, n)).astype(np.int32)
    w = (g.integers(0, 4, n) << 40 | g.integers(0, 2, n)).astype(np.int64)
    out = sentinel((4, n), np.uint32)
    kernel(SOURCE, "matches")((2,), (128,), (cp.asarray(x), cp.asarray(w), out, np.int32(n)))
    got = out.get()
    assert_all_written(got)
    weights = np.uint64(1) << LANE.astype(np.uint64)

    def match_any(values):
        v = values.reshape(-1, 32)
        same = v[:, :, None] == v[:, None, :]
        return (same * weights).sum(axis=2).astype(np.uint32).reshape(-1)

    groups = (x // 1000).reshape(-1, 32)
    uniform = np.repeat((groups == groups[:, :1]).all(axis=1), 32)
    np.testing.assert_array_equal(got[0], match_any(x))
    np.testing.assert_array_equal(got[1], match_any(w))
    np.testing.assert_array_equal(got[2], np.where(uniform, 0xFFFFFFFF, 0))
    np.testing.assert_array_equal(got[3], uniform)


def test_redux():
    n = 256
    x = rng(7).integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    out = sentinel((9, n), np.uint32)
    kernel(SOURCE, "reductions")((2,), (128,), (cp.asarray(x), out, np.int32(n)))
    got = out.get()
    assert_all_written(got)
    s = x.reshape(-1, 32)
    u = s.view(np.uint32)

    def per_warp(values):
        return np.repeat(np.asarray(values).astype(np.int64), 32).astype(np.uint64).astype(np.uint32)

    odd_sum = per_warp(u[:, 1::2].astype(np.uint64).sum(axis=1) & 0xFFFFFFFF)
    expected = np.stack([
        per_warp(u.astype(np.uint64).sum(axis=1) & 0xFFFFFFFF),
        per_warp(s.min(axis=1)), per_warp(s.max(axis=1)),
        per_warp(u.min(axis=1)), per_warp(u.max(axis=1)),
        per_warp(np.bitwise_and.reduce(u | np.uint32(0x80402010), axis=1)),
        per_warp(np.bitwise_or.reduce(u & np.uint32(0x01020408), axis=1)),
        per_warp(np.bitwise_xor.reduce(u, axis=1)),
        np.where(np.arange(n) % 2 == 1, odd_sum, 0),
    ])
    np.testing.assert_array_equal(got, expected)


def test_syncwarp_reduce():
    n = 1024
    x = rng(8).integers(-(1 << 20), 1 << 20, n).astype(np.int32)
    out = sentinel(n // 32, np.int32)
    kernel(SOURCE, "syncwarp_reduce")((n // 256,), (256,), (cp.asarray(x), out))
    np.testing.assert_array_equal(out.get(), x.reshape(-1, 32).sum(axis=1))
