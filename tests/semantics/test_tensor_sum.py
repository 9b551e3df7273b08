"""semantics.tensor_sum: one MMA instruction's products and accumulator added as the H200 adds them.

The rule is held to the words an H200 computed for mma.sync, wmma and wgmma on inputs built to
tell accumulation rules apart (validation/hopper/mma_rounding.py, h200_mma_rounding.npz), and
to exact rational arithmetic element by element on random bit patterns of every input type
(subnormals, zeros and the largest exponents included).
"""

import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest

from warpsim.semantics.floatbits import F16, F32, decode, round_fraction
from warpsim.semantics.tensor_sum import FP8_SUM, MIN_EXPONENT, aligned_sum, chained_sum, fp8_mma_sync

HOPPER = os.path.join(os.path.dirname(__file__), "..", "..", "validation", "hopper")
sys.path.insert(0, HOPPER)

import mma_rounding  # noqa: E402

H200 = os.path.join(HOPPER, "h200_mma_rounding.npz")
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8}
DTYPES = {"f16": np.uint16, "bf16": np.uint16, "tf32": np.uint32, "e4m3": np.uint8, "e5m2": np.uint8}


def recorded(form: str):
    """(A, B as (cases, N, K), C) float64 and the H200's result words of one recorded form."""
    data = np.load(H200)
    _, _, _, _, atype, ctype, _ = mma_rounding.FORMS[form]
    A, B = (mma_rounding.from_bits(data[f"{form}_{part}"], atype) for part in "ab")
    C = mma_rounding.from_bits(data[f"{form}_c"], ctype)
    return A, B.transpose(0, 2, 1), C, data[f"{form}_d"]


RECORDED_FORMS = [form for form in mma_rounding.FORMS if f"{form}_d" in np.load(H200).files]


@pytest.mark.parametrize("form", RECORDED_FORMS)
def test_rule_equals_the_h200_words(form):
    A, B, C, words = recorded(form)
    family, m, n, k, atype, ctype, _ = mma_rounding.FORMS[form]
    if family == "mma" and atype in ("e4m3", "e5m2"):
        got = fp8_mma_sync(A, B, C)
    else:                                   # wmma m16n16k8 tf32: two HMMA.1684 of 4 products each
        got = chained_sum(A, B, C, atype, ctype, 4 if form == "wmma_tf32_f32" else k)
    assert got.dtype == (np.float32 if ctype == "f32" else np.float16)
    np.testing.assert_array_equal(got.view(words.dtype), words)
    once = (np.einsum("wik,wjk->wij", A, B) + C).astype(np.float32).astype(got.dtype)
    if form in ("mma_f16_f32", "wgmma_f16_f32", "wgmma_e4m3_f32"):      # the exact sum rounded once is not it
        assert np.mean(once.view(words.dtype) == words) < 0.5


def random_values(rng, shape, etype: str) -> np.ndarray:
    """Finite values of random bit patterns of a type (tf32: an f32 pattern with 13 low bits clear)."""
    bits = rng.integers(0, 1 << BITS[etype], size=shape, dtype=np.uint64).astype(DTYPES[etype])
    if etype == "tf32":
        bits &= np.uint32(0xFFFFE000)
    with np.errstate(invalid="ignore", over="ignore"):
        values = decode(bits, etype) if etype != "f16" else bits.view(np.float16).astype(np.float64)
    values[~np.isfinite(values)] = 0.5
    return values


def exponent(x: float, atype: str | None = None) -> int:
    e = math.frexp(x)[1] - 1
    return e if atype is None else max(e, MIN_EXPONENT[atype])


def one_element(a_row, b_row, c: float, atype: str, dtype: str) -> float:
    """The rule in Python fractions, read from the module doc, for one output element."""
    leads = [exponent(a, atype) + exponent(b, atype) for a, b in zip(a_row, b_row) if a != 0 and b != 0]
    leads += [exponent(c, dtype)] if c != 0 else []
    if not leads:
        return 0.0
    unit = Fraction(2) ** (max(leads) - (13 if atype in ("e4m3", "e5m2") else 25))
    total = sum(int(Fraction(a) * Fraction(b) / unit) for a, b in zip(a_row, b_row)) + int(Fraction(c) / unit)
    if total == 0:
        return 0.0
    if dtype == "f16":
        return round_fraction(total * unit, F16, "rn")
    if atype in ("e4m3", "e5m2"):
        return round_fraction(Fraction(round_fraction(total * unit, FP8_SUM, "rz")), F32, "rz")
    return round_fraction(total * unit, F32, "rz")


@pytest.mark.parametrize("atype,dtype", [("f16", "f32"), ("bf16", "f32"), ("tf32", "f32"), ("e4m3", "f32"),
                                         ("e5m2", "f32"), ("f16", "f16"), ("e4m3", "f16"), ("e5m2", "f16")])
def test_rule_matches_exact_arithmetic_per_element(atype, dtype):
    rng = np.random.default_rng(sum(map(ord, atype + dtype)))
    k = mma_rounding.FORMS[f"wgmma_{atype}_f32"][3]
    warps, m, n = 3, 4, 8
    A, B = random_values(rng, (warps, m, k), atype), random_values(rng, (warps, n, k), atype)
    if dtype == "f16":
        C = random_values(rng, (warps, m, n), "f16")
    else:                                   # f32 accumulators over the whole range, a tenth of them zero
        C = random_values(rng, (warps, m, n), "bf16") * (rng.random((warps, m, n)) > 0.1)
    A[0, 0] = 0.0                           # a row of zero products: the sum is C's own cut
    got = aligned_sum(A, B, C, atype, dtype).astype(np.float64)
    want = np.array([[[one_element(A[w, i], B[w, j], C[w, i, j], atype, dtype) for j in range(n)]
                      for i in range(m)] for w in range(warps)])
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[got == 0]).any()


def test_zero_sums_are_positive_zero():
    A = np.array([[[-0.0, 1.5, 2.0, 0.0]]])
    B = np.array([[[1.0, 2.0, -1.5, 0.0], [-0.0, 0.0, 0.0, 0.0]]])
    C = np.array([[[0.0, -0.0]]])
    got = aligned_sum(A, B, C, "f16")
    assert got.view(np.uint32).tolist() == [[[0, 0]]]                  # 3 - 3 + 0 and -0 + 0: both +0


def test_subnormal_inputs_count_at_the_smallest_normal_exponent():
    """-2^-24 (an f16 subnormal: -1 times 2^-24) counts at exponent -14, so E = -14 and the other
    product, (1 + 2^-10)^2 2^-28, is cut at 2^-39 and loses its 2^-48; at its own exponent (-24)
    the subnormal would set E = -24 and the 2^-48 would stay (the result, near 2^-25, holds it)."""
    small = (1 + 2.0 ** -10) * 2.0 ** -14
    A = np.array([[[2.0 ** -24, small]]])
    B = np.array([[[-1.0, small]]])
    got = aligned_sum(A, B, np.zeros((1, 1, 1)), "f16")[0, 0, 0]
    assert got == np.float32(-(2.0 ** -24 - 2.0 ** -28 - 2.0 ** -37))
    assert got != np.float32(-(2.0 ** -24 - 2.0 ** -28 - 2.0 ** -37 - 2.0 ** -48))


def test_fp8_sums_keep_fourteen_bits():
    """1 + 2^-13 survives the fp8 cut (13 bits below E = 0), the result's 14 bits drop it once the
    sum carries to 2."""
    A = np.zeros((1, 1, 32))
    B = np.zeros((1, 1, 32))
    A[0, 0, :2] = [1.0, 2.0 ** -7]
    B[0, 0, :2] = [1.0, 2.0 ** -6]
    assert aligned_sum(A, B, np.zeros((1, 1, 1)), "e4m3")[0, 0, 0] == np.float32(1 + 2.0 ** -13)
    C = np.full((1, 1, 1), 1.0)
    assert aligned_sum(A, B, C, "e4m3")[0, 0, 0] == np.float32(2.0)


def test_fp8_mma_sync_is_two_f16_steps_and_a_nearest_add():
    rng = np.random.default_rng(3)
    A, B = random_values(rng, (2, 16, 32), "e4m3"), random_values(rng, (2, 8, 32), "e4m3")
    C = random_values(rng, (2, 16, 8), "bf16")
    first = np.arange(32) % 4 < 2
    partial = aligned_sum(A[..., first], B[..., first], np.zeros(C.shape), "f16").astype(np.float64)
    partial = aligned_sum(A[..., ~first], B[..., ~first], partial, "f16").astype(np.float64)
    want = np.array([float(round_fraction(Fraction(p) + Fraction(c), F32, "rn"))
                     for p, c in zip(partial.ravel(), C.ravel())]).reshape(C.shape)
    np.testing.assert_array_equal(fp8_mma_sync(A, B, C).astype(np.float64), want)


def test_a_subnormal_accumulator_counts_at_its_smallest_normal_exponent():
    """C = 6 u (u = 2^-24, an f16 subnormal) sets E = -14, so e5m2 products are cut at u / 8: 6 - 1.5
    + 0.125 - 0.0625 - 0.0625 keeps 4.625 u and rounds to 5 u (the H200's recordings hold such
    cases); at C's own exponent (-22) every bit stays and the tie 4.5 u rounds to 4 u."""
    u = 2.0 ** -24
    A = np.zeros((1, 1, 32))
    B = np.zeros((1, 1, 32))
    A[0, 0, :4] = [-1.5 * 2.0 ** -12, 2.0 ** -15, -2.0 ** -16, -2.0 ** -16]       # e5m2 values
    B[0, 0, :4] = 2.0 ** -12
    got = aligned_sum(A, B, np.full((1, 1, 1), 6 * u), "e5m2", "f16")
    assert got[0, 0, 0] == np.float16(5 * u)
