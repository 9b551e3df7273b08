"""Dynamic shared memory, local arrays indexed by data, recursion (per-thread
depths, mutual recursion) and a non-inlined function returning a struct."""

import math

import numpy as np
import pytest

from kernel_corpus import assert_all_written, cp, kernel, load, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "functions_and_memory.cu"


@pytest.mark.parametrize("threads", [64, 256, 1024])
def test_dynamic_shared(threads):
    n = 3 * threads - 10
    blocks = (n + threads - 1) // threads
    x = rng(threads).standard_normal(n).astype(np.float32)
    out = sentinel(n, np.float32)
    counts = sentinel(blocks, np.int32)
    kernel(SOURCE, "dynamic_shared")((blocks,), (threads,), (cp.asarray(x), out, counts, np.int32(n)),
                                     shared_mem=8 * threads)
    got = out.get()
    assert_all_written(got)
    padded = np.full(blocks * threads, -1, np.float32)
    padded[:n] = x
    expected = padded.reshape(blocks, threads)[:, ::-1].reshape(-1)[:n]
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(counts.get(), [min(threads, n - b * threads) for b in range(blocks)])


def test_local_array():
    n = 1500
    g = rng(1)
    x = g.integers(-1000, 1000, n).astype(np.int32)
    picks = g.integers(0, 1 << 30, n).astype(np.int32)
    out = sentinel(n, np.int32)
    kernel(SOURCE, "local_array")(((n + 127) // 128,), (128,), (cp.asarray(x), cp.asarray(picks), out, np.int32(n)))
    expected = []
    for v, p in zip(x.tolist(), picks.tolist()):
        table = [v * (k + 1) + k for k in range(24)]
        for k in range(4):
            q = (p >> (5 * k)) % 24
            table[q] += table[(q + 7) % 24]
        acc = 0
        for k in range(3):
            acc = acc * 31 + table[(p >> (8 * k)) % 24]
        expected.append(np.int64(acc).astype(np.int32))
    np.testing.assert_array_equal(out.get(), expected)
    if cp.__name__ == "warpsim":
        body = load(SOURCE).ptx.split(".entry local_array")[1].split(".entry")[0]
        assert "st.local" in body and "ld.local" in body, "the table should stay in local memory"


def test_recursion():
    n = 300
    depth = rng(2).integers(0, 40, n).astype(np.int32)
    depth[:5] = [0, 1, 2, 12, 20]
    fib, fact = sentinel(n, np.uint64), sentinel(n, np.uint64)
    parity = sentinel(n, np.int32)
    kernel(SOURCE, "recursion")(((n + 63) // 64,), (64,), (cp.asarray(depth), fib, fact, parity, np.int32(n)))
    fibs = [0, 1]
    while len(fibs) < 13:
        fibs.append(fibs[-1] + fibs[-2])
    np.testing.assert_array_equal(fib.get(), [fibs[d % 13] for d in depth])
    np.testing.assert_array_equal(fact.get(), [math.factorial(d % 21) for d in depth])
    np.testing.assert_array_equal(parity.get(), np.where(depth % 2 == 0, 2, 1))
    if cp.__name__ == "warpsim":
        ptx = load(SOURCE).ptx
        assert "call.uni" in ptx or "call " in ptx, "the recursive functions should stay calls"


def test_struct_return():
    n, per = 700, 9
    values = rng(3).standard_normal(n * per).astype(np.float32)
    means, spreads = sentinel(n, np.float64), sentinel(n, np.float32)
    counts, keys = sentinel(n, np.int32), sentinel(n, np.int64)
    kernel(SOURCE, "struct_return")(((n + 127) // 128,), (128,),
                                    (cp.asarray(values), np.int32(per), means, spreads, counts, keys, np.int32(n)))
    rows = values.reshape(n, per) + np.float32(0.5)
    skip = np.arange(n) % (per + 1)
    keep = np.arange(per)[None, :] != skip[:, None]
    used = keep.sum(axis=1)
    total = np.zeros(n)
    for k in range(per):                      # the same summation order as the kernel
        total = np.where(keep[:, k], total + rows[:, k].astype(np.float64), total)
    lo = np.where(keep, rows, np.inf).min(axis=1)
    hi = np.where(keep, rows, -np.inf).max(axis=1)
    np.testing.assert_array_equal(means.get(), total * 2.0 / used)
    np.testing.assert_array_equal(spreads.get(), (hi - lo).astype(np.float32))
    flag = ((np.arange(n) & 63) + used).astype(np.int8).astype(np.int32)
    np.testing.assert_array_equal(counts.get(), used | (flag << 16))
    np.testing.assert_array_equal(keys.get(), (np.arange(n, dtype=np.int64) << 33) * 3 + used)
