"""machine/compiled/aligned_sum.py gives semantics.wgmma.aligned_accumulate's bytes.

Random bit patterns of every exponent (subnormals, the largest values, infinities and NaNs,
which the compiled path hands back to the NumPy rule), normal values with accumulators far
above or below the products, and "edge" operands made to hit the rule's corners (subnormal
inputs that lead, zero sums of negative terms, sums that cancel, accumulators of zero of
either sign); whole and partial warps, warps sharing a B, f16 and bf16 inputs, N from 8 to
256: every accumulator word equal, zeros' signs and NaN payloads included.
"""

import numpy as np
import pytest

from warpsim.machine.compiled.aligned_sum import compiled_accumulate
from warpsim.semantics.wgmma import aligned_accumulate


def input_values(rng, shape, atype, finite):
    bits = rng.integers(0, 1 << 16, size=shape).astype(np.uint16)
    with np.errstate(invalid="ignore"):
        values = (bits.view(np.float16).astype(np.float64) if atype == "f16"
                  else (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
    if finite:
        values[~np.isfinite(values)] = -0.0
    return values


def normal_values(rng, shape, atype):
    if atype == "f16":
        return rng.standard_normal(shape).astype(np.float16).astype(np.float64)
    bits = rng.standard_normal(shape).astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(np.float32).astype(np.float64)


EDGE_INPUTS = {"f16": [0.0, -0.0, 2.0 ** -24, -2.0 ** -24, 2.0 ** -15, -3 * 2.0 ** -16, 2.0 ** -14, 1.0, -1.0,
                        0.5, 1.5, 65504.0],
               "bf16": [0.0, -0.0, 2.0 ** -133, -2.0 ** -130, 2.0 ** -127, 2.0 ** -126, 1.0, -1.0, 0.5, 1.5,
                        2.0 ** 100, -2.0 ** -100, 2.0 ** -75]}                # tiny sums: toward zero to -0
EDGE_ACCUMULATORS = [0.0, -0.0, 2.0 ** -149, -2.0 ** -140, 2.0 ** -30, -1.0, 1.0, 2.0 ** 20, -2.0 ** 26]


def accumulator_words(rng, shape, finite, spread):
    if spread == "edge":
        return rng.choice(np.array(EDGE_ACCUMULATORS, np.float32), size=shape)
    if spread == "bits":
        old = rng.integers(0, 1 << 32, size=shape, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:                                   # running sums 2^-30 .. 2^30 around the products
        old = (rng.standard_normal(shape) * 2.0 ** rng.integers(-30, 30, shape)).astype(np.float32)
    if finite:
        old[~np.isfinite(old)] = -0.0
    return old


@pytest.mark.parametrize("atype", ["f16", "bf16"])
@pytest.mark.parametrize("finite", [True, False])
@pytest.mark.parametrize("spread", ["bits", "scaled", "edge"])
@pytest.mark.parametrize("n, lanes", [(8, "whole"), (64, "partial"), (256, "whole")])
def test_compiled_accumulate_equals_the_numpy_rule(atype, finite, spread, n, lanes):
    rng = np.random.default_rng([n, len(atype), finite, len(spread)])
    warps, groups = 8, 2
    A = input_values(rng, (warps, 16, 16), atype, finite)
    B = input_values(rng, (groups, n, 16), atype, finite)
    if spread == "scaled":                  # normal values: products of nearby exponents, long carries
        A, B = (normal_values(rng, x.shape, atype) for x in (A, B))
    if spread == "edge":
        A, B = (rng.choice(np.array(EDGE_INPUTS[atype]), size=x.shape) for x in (A, B))
        A[2, :, 1::2] = A[2, :, 0::2]           # warp 2's products cancel in pairs: zero sums of
        B[:, :, 1::2] = -B[:, :, 0::2]          # nonzero terms
    A[0, 3] = -A[0, 3]                      # a row of the products' other sign
    A[1, 5] = 0.0                           # zero rows: the accumulator alone, -0 against +0
    row = np.repeat(np.arange(warps), 32)
    lane = np.tile(np.arange(32), warps)
    if lanes == "partial":
        keep = rng.random(len(row)) < 0.75
        row, lane = row[keep], lane[keep]
    old = accumulator_words(rng, (len(row), n // 2), finite, spread)
    if spread == "edge" and atype == "bf16":    # warp 3: one tiny product a sum, below f32's subnormals
        A[3, :, 0], A[3, :, 1:] = -2.0 ** -100, 0.0                # for the tiny B (toward zero: -0, then +0)
        old[row == 3] = 0.0
    b_of_warp = rng.integers(0, groups, warps)
    with np.errstate(all="ignore"):
        want = aligned_accumulate(A, B, b_of_warp, row, lane, n, old, atype)
        got = compiled_accumulate(A, B, b_of_warp, row, lane, n, old, atype)
    assert got.dtype == np.uint32 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    with np.errstate(all="ignore"):             # the register file's layout: registers by threads
        by_register = compiled_accumulate(A, B, b_of_warp, row, lane, n, np.ascontiguousarray(old.T), atype,
                                          registers_first=True)
    np.testing.assert_array_equal(by_register, want.T)


@pytest.mark.parametrize("warps", [31, 32, 70])
def test_warps_across_the_gathered_groups_of_32_keep_their_own_accumulators(warps):
    """The accumulators go between the register file and the tiles 32 warps at a time (WARP_GROUP):
    whole groups, a group of one warp more, and a partial last group keep every warp's words."""
    rng = np.random.default_rng(warps)
    n, groups = 64, 5
    A = normal_values(rng, (warps, 16, 16), "f16")
    B = normal_values(rng, (groups, n, 16), "f16")
    row, lane = np.repeat(np.arange(warps), 32), np.tile(np.arange(32), warps)
    old = accumulator_words(rng, (len(row), n // 2), True, "scaled")
    b_of_warp = np.sort(rng.integers(0, groups, warps))
    with np.errstate(all="ignore"):
        want = aligned_accumulate(A, B, b_of_warp, row, lane, n, old, "f16")
        got = compiled_accumulate(A, B, b_of_warp, row, lane, n, np.ascontiguousarray(old.T), "f16",
                                  registers_first=True)
    np.testing.assert_array_equal(got, want.T)


def test_a_subnormal_accumulator_counts_at_f32s_smallest_normal_exponent():
    """C = 2^-149 sets E = -126, so eight products of 1.5 2^-152 cut to zero and C stays; counted at its
    own exponent (-149) C would keep them, 2.5 2^-149, and round toward zero to 2 2^-149."""
    A = np.zeros((1, 16, 16))
    B = np.zeros((1, 8, 16))
    A[0, :, :8], B[0, :, :8] = 1.5 * 2.0 ** -76, 2.0 ** -76
    row, lane = np.zeros(32, np.int64), np.arange(32)
    old = np.full((32, 4), 2.0 ** -149, np.float32)
    want = aligned_accumulate(A, B, np.zeros(1, np.int64), row, lane, 8, old, "bf16")
    got = compiled_accumulate(A, B, np.zeros(1, np.int64), row, lane, 8, old, "bf16")
    assert (want.view(np.float32) == np.float32(2.0 ** -149)).all()
    np.testing.assert_array_equal(got, want)
