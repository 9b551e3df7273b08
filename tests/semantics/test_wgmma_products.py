"""semantics.wgmma's batched warpgroup products give each warp the bits of its own product.

wgmma.mma_async multiplies every warp at the instruction at once, stacking the warps
that share a B (one CTA, one descriptor) into one taller product. These tests hold that
to each warp's product alone (one 2-D np.matmul of its 16 x K A and K x N B) on inputs of
every exponent (subnormals and the largest values, where the order of the additions
shows in the bits), and the accumulator placement to accumulator_offsets' table.
"""

import numpy as np
import pytest

from warpsim.semantics.wgmma import (accumulator_offsets, lane_view, register_a, register_a_offsets, to_float,
                                     warp_products, warpgroup_mma)


def any_exponent(rng, shape, atype):
    """Float64 values of random bit patterns of the input type (infinities and NaNs replaced)."""
    with np.errstate(invalid="ignore"):
        return _finite(_any_bits(rng, shape, atype))


def _finite(x):
    x[~np.isfinite(x)] = 1.0
    return x


def _any_bits(rng, shape, atype):
    if atype == "f16":
        x = rng.integers(0, 1 << 16, size=shape, dtype=np.uint16).view(np.float16).astype(np.float64)
    elif atype == "bf16":
        bits = rng.integers(0, 1 << 16, size=shape, dtype=np.uint32) << 16
        x = bits.view(np.float32).astype(np.float64)
    else:                                            # tf32: 10 mantissa bits
        bits = rng.integers(0, 1 << 32, size=shape, dtype=np.uint64).astype(np.uint32) & np.uint32(0xFFFFE000)
        x = bits.view(np.float32).astype(np.float64)
    return x


def each_warp_alone(A, B, b_of_warp):
    return np.stack([A[w] @ B[b].T for w, b in enumerate(b_of_warp)])


@pytest.mark.parametrize("atype, k", [("f16", 16), ("bf16", 16), ("tf32", 8)])
@pytest.mark.parametrize("n", [8, 64, 256])
@pytest.mark.parametrize("layout", ["warpgroups", "shuffled", "uneven", "own"])
def test_warp_products_equal_each_warps_own_product(atype, k, n, layout):
    rng = np.random.default_rng(n + k)
    groups = 6
    if layout == "warpgroups":
        b_of_warp = np.repeat(np.arange(groups), 4)
    elif layout == "shuffled":
        b_of_warp = rng.permutation(np.repeat(np.arange(groups), 4))
    elif layout == "uneven":
        b_of_warp = np.array([0, 0, 0, 0, 1, 1, 2, 3, 3, 3, 4, 5, 5, 5, 5])
    else:
        b_of_warp = np.arange(groups)
    A = any_exponent(rng, (len(b_of_warp), 16, k), atype)
    B = any_exponent(rng, (groups, n, k), atype)
    got = warp_products(A, B, b_of_warp)
    want = each_warp_alone(A, B, b_of_warp)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


def test_products_of_shared_b_round_like_each_warps_own():
    """The one stacked product differs from a float64 sum in another order on these inputs,
    so the test above can tell."""
    rng = np.random.default_rng(7)
    A = any_exponent(rng, (64, 16, 16), "f16")
    B = any_exponent(rng, (16, 64, 16), "f16")
    exact = each_warp_alone(A, B, np.repeat(np.arange(16), 4))
    backwards = each_warp_alone(A[:, :, ::-1], B[:, :, ::-1], np.repeat(np.arange(16), 4))
    assert not np.array_equal(exact, backwards)


@pytest.mark.parametrize("n", [8, 32, 256])
def test_lane_view_places_as_accumulator_offsets(n):
    products = np.random.default_rng(n).standard_normal((5, 16, n))
    want = np.take(products.reshape(5, 16 * n), accumulator_offsets(n), axis=1).reshape(5 * 32, n // 2)
    assert np.array_equal(lane_view(products).reshape(5 * 32, n // 2), want)
    paired = lane_view(products.view(np.complex128), paired=True)
    assert np.array_equal(np.ascontiguousarray(paired).view(np.float64).reshape(5 * 32, n // 2), want)


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("accumulate", ["all", "none", "some"])
@pytest.mark.parametrize("lanes", ["whole", "partial"])
def test_warpgroup_mma_adds_old_accumulators_per_thread(dtype, accumulate, lanes):
    rng = np.random.default_rng(3)
    warps, n, k = 8, 16, 16
    A = any_exponent(rng, (warps, 16, k), "f16") * 1e-3
    A[0, 0] = -0.0                                   # a -0.0 product: +0.0 once scale-d's zero is added
    B = rng.standard_normal((2, n, k)).astype(np.float16).astype(np.float64)
    b_of_warp = np.repeat(np.arange(2), 4)
    row, lane = np.repeat(np.arange(warps), 32), np.tile(np.arange(32), warps)
    if lanes == "partial":
        keep = rng.random(len(lane)) < 0.6
        row, lane = row[keep], lane[keep]
    flags = {"all": np.ones(len(lane), bool), "none": np.zeros(len(lane), bool),
             "some": rng.random(len(lane)) < 0.5}[accumulate]
    kind = np.float32 if dtype == "f32" else np.float16
    old_values = rng.standard_normal((len(lane), n // 2)).astype(kind)
    old_words = np.ascontiguousarray(old_values).view(np.uint32 if dtype == "f32" else np.uint16)
    if dtype == "f16":
        old_words = np.ascontiguousarray(old_words).view(np.uint32)
    got = warpgroup_mma(A, B, -1, 1, row, lane, n, dtype, flags, old_words, b_of_warp)
    products = each_warp_alone(-A, B, b_of_warp).reshape(warps, 16 * n)[row[:, None], accumulator_offsets(n)[lane]]
    want = (products + np.where(flags[:, None], old_values.astype(np.float64), 0.0)).astype(kind)
    assert np.array_equal(np.ascontiguousarray(got).view(kind), want)


@pytest.mark.parametrize("atype, k", [("f16", 16), ("bf16", 16), ("e4m3", 32), ("e5m2", 32)])
@pytest.mark.parametrize("lanes", ["whole", "partial"])
def test_register_a_places_each_lanes_elements(atype, k, lanes):
    """A from registers equals register_a_offsets' placement, element by element (the whole-warp
    transpose and the scatter of partial warps alike)."""
    rng = np.random.default_rng(k)
    warps = 5
    row, lane = np.repeat(np.arange(warps), 32), np.tile(np.arange(32), warps)
    if lanes == "partial":
        keep = rng.random(len(lane)) < 0.7
        row, lane = row[keep], lane[keep]
    words = rng.integers(0, 1 << 32, size=(len(lane), 4), dtype=np.uint64).astype(np.uint32)
    per_register = 2 if k == 16 else 4
    elements = words.view(np.uint16 if per_register == 2 else np.uint8)
    with np.errstate(invalid="ignore"):
        got = register_a(words, row, lane, warps, k, atype)
        want = np.zeros((warps, 16 * k))
        want[row[:, None], register_a_offsets(per_register)[lane]] = to_float(elements, atype)
    assert np.array_equal(np.ascontiguousarray(got).reshape(warps, 16 * k).view(np.uint64), want.view(np.uint64))
