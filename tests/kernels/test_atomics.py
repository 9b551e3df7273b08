"""Atomics: histogram (shared then global), warp-aggregated compaction, CAS
loops (float max, wrapping multiply), and every integer atomic on int,
unsigned and 64-bit values, global and shared.

Where several lanes hit one address the final value is checked against
NumPy, and the old values the atomics returned are checked to form one
sequential history: the values seen before each operation, plus the final
value, are the values left after each operation, plus the initial one.
"""

import numpy as np
import pytest


from kernel_corpus import cp, assert_all_written, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "atomics.cu"


def check_history(init, values, olds, final, step):
    """olds (one per operation) chain from init to final under step(old, value)."""
    afters = step(olds, values)
    before = np.sort(np.concatenate([olds, np.atleast_1d(final)]))
    after = np.sort(np.concatenate([np.atleast_1d(init).astype(olds.dtype), afters]))
    np.testing.assert_array_equal(before, after, err_msg="returned old values are no sequential history")


def test_histogram():
    n = 40_000
    data = rng(1).integers(0, 256, n).astype(np.uint8)
    data[:3000] = 7                                  # one heavily contended bin
    bins = cp.zeros(256, dtype=np.uint32)
    kernel(SOURCE, "histogram")((12,), (256,), (cp.asarray(data), np.int32(n), bins))
    np.testing.assert_array_equal(bins.get(), np.bincount(data, minlength=256))


@pytest.mark.parametrize("n", [5000, 31, 4096])
def test_warp_aggregated_compaction(n):
    x = rng(n).integers(-1000, 1000, n).astype(np.int32)
    threshold = 250
    keep = x > threshold
    out = sentinel(n, np.int32)
    count = cp.zeros(1, dtype=np.int32)
    slot_of = sentinel(n, np.int32)
    kernel(SOURCE, "compact")(((n + 127) // 128,), (128,),
                              (cp.asarray(x), np.int32(n), np.int32(threshold), out, count, slot_of))
    kept, got, slots = int(count.get()[0]), out.get(), slot_of.get()
    assert kept == keep.sum()
    assert_all_written(got[:kept])
    assert not (got[kept:] != np.array(-559038737, np.int32)).any(), "wrote past the kept elements"
    assert_all_written(slots)
    np.testing.assert_array_equal(slots[~keep], -1)
    np.testing.assert_array_equal(np.sort(slots[keep]), np.arange(kept))
    np.testing.assert_array_equal(got[slots[keep]], x[keep])
    # Within a warp the keepers take consecutive slots in lane order.
    warp_of = np.flatnonzero(keep) // 32
    kept_slots = slots[keep]
    same_warp = warp_of[1:] == warp_of[:-1]
    np.testing.assert_array_equal(kept_slots[1:][same_warp], kept_slots[:-1][same_warp] + 1)


def test_cas_loops():
    n, groups = 2000, 8
    g = rng(2)
    x = g.standard_normal(n).astype(np.float32)
    factors = g.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) | np.uint32(1)
    maxima = cp.full(groups, -np.inf, dtype=np.float32)
    products = cp.ones(groups, dtype=np.uint32)
    products64 = cp.ones(groups, dtype=np.uint64)
    kernel(SOURCE, "cas_loops")(((n + 255) // 256,), (256,),
                                (cp.asarray(x), cp.asarray(factors), np.int32(n), np.int32(groups),
                                 maxima, products, products64))
    group = np.arange(n) % groups
    for k in range(groups):
        assert maxima.get()[k] == x[group == k].max()
        assert products.get()[k] == np.multiply.reduce(factors[group == k].astype(np.uint64)) % (1 << 32)
        wide = factors[group == k].astype(np.uint64) | np.uint64(1 << 32)
        assert products64.get()[k] == np.multiply.reduce(wide, dtype=np.uint64)


S32_STEPS = [
    ("add", lambda o, v: o + ((v & 0xFFFF) | 1)),
    ("sub", lambda o, v: o - ((v & 0xFF) | 1)),
    ("min", np.minimum),
    ("max", np.maximum),
    ("exch", lambda o, v: v.copy()),
    ("and", lambda o, v: o & (v | 0x01010101)),
    ("or", lambda o, v: o | (v & 0x10204081)),
    ("xor", lambda o, v: o ^ v),
]


def u32_steps(index_in_group):
    return [
        ("inc", lambda o, v: np.where(o >= 13, 0, o + 1).astype(np.uint32)),
        ("dec", lambda o, v: np.where((o == 0) | (o > 13), 13, o - 1).astype(np.uint32)),
        ("min", np.minimum),
        ("max", np.maximum),
        ("add", lambda o, v: o + v),
        ("cas", lambda o, v, k=index_in_group: np.where(o == k, k + 1, o).astype(np.uint32)),
    ]


def sequential_final(init, values, step):
    value = np.array([init], dtype=values.dtype)
    for v in values:
        value = step(value, np.array([v], dtype=values.dtype))
    return value[0]


@pytest.mark.parametrize("groups", [1, 3, 64])
def test_int_atomics(groups):
    n = 2000
    x = rng(groups).integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    x[::97] = np.int32(-(1 << 31))                   # INT_MIN as an operand
    s32_init = np.array([5, 1000, (1 << 31) - 1, -(1 << 31), 77, -1, 0, 12345], np.int32)
    u32_init = np.array([0, 13, 0xFFFFFFFF, 0, 0xFFFFFF00, 0], np.uint32)
    s32 = cp.asarray(np.repeat(s32_init, groups))
    u32 = cp.asarray(np.repeat(u32_init, groups))
    old = sentinel((14, n), np.int32)
    kernel(SOURCE, "int_atomics")(((n + 255) // 256,), (256,),
                                  (cp.asarray(x), np.int32(n), np.int32(groups), s32, u32, old))
    olds, s32_final, u32_final = old.get(), s32.get().reshape(8, groups), u32.get().reshape(6, groups)
    assert_all_written(olds)
    group = np.arange(n) % groups
    for g in range(groups):
        lanes = group == g
        for row, (name, step) in enumerate(S32_STEPS):
            final = s32_final[row, g]
            check_history(s32_init[row], x[lanes], olds[row, lanes], final, step)
            if name != "exch":
                assert final == sequential_final(s32_init[row], x[lanes], step), name
            else:
                assert final in x[lanes]
        k = np.arange(n)[lanes] // groups
        for row, (name, step) in enumerate(u32_steps(k)):
            o = olds[8 + row, lanes].view(np.uint32)
            v = x[lanes].view(np.uint32)
            final = u32_final[row, g]
            check_history(u32_init[row], v, o, final, step)
            if name == "cas":                           # lane k swaps only after lane k-1 did
                assert final >= 1 and (o == k).sum() == final
            else:
                assert final == sequential_final(u32_init[row], v, step), name


S64_STEPS = [
    ("add", lambda o, v: o + v),
    ("exch", lambda o, v: v.copy()),
    ("and", lambda o, v: o & (v | np.uint64(0x0101010101010101))),
    ("or", lambda o, v: o | (v & np.uint64(0x1020408010204080))),
    ("xor", lambda o, v: o ^ v),
    ("min", np.minimum),
    ("max", np.maximum),
]


def test_int64_atomics():
    n, groups = 1500, 4
    x = rng(64).integers(-(1 << 63), (1 << 63) - 1, n, dtype=np.int64)
    u_init = np.array([1, 2, (1 << 64) - 1, 0, 0x5555, (1 << 64) - 1, 0, 0], np.uint64)
    s_init = np.array([(1 << 63) - 1, -(1 << 63)], np.int64)
    u64 = cp.asarray(np.repeat(u_init, groups))
    s64 = cp.asarray(np.repeat(s_init, groups))
    old = sentinel((10, n), np.uint64)
    kernel(SOURCE, "int64_atomics")(((n + 127) // 128,), (128,),
                                    (cp.asarray(x), np.int32(n), np.int32(groups), u64, s64, old))
    olds, u_final, s_final = old.get(), u64.get().reshape(8, groups), s64.get().reshape(2, groups)
    assert_all_written(olds)
    group = np.arange(n) % groups
    with np.errstate(over="ignore"):
        for g in range(groups):
            lanes = group == g
            v = x[lanes].view(np.uint64)
            for row, (name, step) in enumerate(S64_STEPS):
                check_history(u_init[row], v, olds[row, lanes], u_final[row, g], step)
                if name != "exch":
                    assert u_final[row, g] == sequential_final(u_init[row], v, step), name
            for row, step in enumerate((np.minimum, np.maximum)):
                o = olds[7 + row, lanes].view(np.int64)
                check_history(s_init[row], x[lanes], o, s_final[row, g], step)
                assert s_final[row, g] == step.reduce(x[lanes])
            k = (np.arange(n)[lanes] // groups).astype(np.uint64)
            check_history(np.uint64(0), v, olds[9, lanes], u_final[7, g],
                          lambda o, _v: np.where(o == k, k + np.uint64(1), o).astype(np.uint64))
            assert u_final[7, g] >= 1 and (olds[9, lanes] == k).sum() == u_final[7, g]


@pytest.mark.parametrize("threads", [256, 96])
def test_shared_atomics(threads):
    n = 5 * threads - 40
    x = rng(threads).integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    blocks = (n + threads - 1) // threads
    result = sentinel((blocks, 14), np.int32)
    kernel(SOURCE, "shared_atomics")((blocks,), (threads,), (cp.asarray(x), np.int32(n), result))
    got = result.get()
    assert_all_written(got)
    for b in range(blocks):
        v = x[b * threads:(b + 1) * threads]
        u = v.view(np.uint32)
        count = len(v)
        expected = [
            np.add.reduce(v, dtype=np.int32), min(v.min(), (1 << 31) - 1), max(v.max(), -(1 << 31)),
            np.bitwise_xor.reduce(v), np.bitwise_and.reduce(v | 0x11111111), np.bitwise_or.reduce(v & 0x01020408),
            1234, 99, count % 7, (-count) % 7, np.uint32(u.min()).view(np.int32),
        ]
        wide = int(u.astype(np.uint64).sum())
        expected += [np.uint32(wide & 0xFFFFFFFF).view(np.int32), wide >> 32, threads]
        np.testing.assert_array_equal(got[b], np.array(expected, dtype=np.int64).astype(np.int32))
