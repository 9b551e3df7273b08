"""semantics.wgmma.aligned_sum: f16/bf16 products added into f32 as the H200's tensor cores add them.

The rule (semantics.tensor_sum: products aligned to the largest exponent, a subnormal input
counting at its format's smallest normal exponent, cut toward zero 25 bits below it, the sum
rounded toward zero, a zero sum +0) is held to exact rational arithmetic element by element, and a
chain of it (one step per K = 16, as Triton's tl.dot issues wgmma) to the f32 words an
H200 computed (validation/hopper/tensor_core_rounding.py, h200_tensor_core_rounding.npz).
"""

import math
import os
from fractions import Fraction

import numpy as np
import pytest

from warpsim.semantics.floatbits import F32, round_fraction
from warpsim.semantics.wgmma import aligned_sum

H200 = os.path.join(os.path.dirname(__file__), "..", "..", "validation", "hopper", "h200_tensor_core_rounding.npz")
SETS = ["f16_uniform_64", "f16_normal_64", "f16_wide_64", "bf16_uniform_64", "bf16_normal_64", "bf16_wide_64"]


def from_bits(bits: np.ndarray, atype: str) -> np.ndarray:
    bits = np.asarray(bits, np.uint16)
    if atype == "f16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def random_inputs(rng, shape, atype):
    """Finite values of random bit patterns (subnormals and the largest exponents included)."""
    with np.errstate(invalid="ignore"):
        values = from_bits(rng.integers(0, 1 << 16, size=shape, dtype=np.uint32).astype(np.uint16), atype)
    values[~np.isfinite(values)] = 0.5
    return values


def exponent(x: float, atype: str | None = None) -> int:
    """floor(log2 |x|); an input of `atype` counts at its format's smallest normal exponent at least."""
    smallest = {"f16": -14, "bf16": -126, "f32": -126}.get(atype, -10000)
    return max(math.frexp(x)[1] - 1, smallest)


def one_element(a_row, b_row, c, atype) -> float:
    """The rule with Python fractions: E from the inputs' exponents (ea + eb) and C's."""
    leads = [exponent(a, atype) + exponent(b, atype) for a, b in zip(a_row, b_row) if a != 0 and b != 0]
    leads += [exponent(c, "f32")] if c != 0 else []
    if not leads:
        return 0.0
    unit = Fraction(2) ** (max(leads) - 25)
    total = sum(int(Fraction(a) * Fraction(b) / unit) for a, b in zip(a_row, b_row)) + int(Fraction(c) / unit)
    return 0.0 if total == 0 else round_fraction(total * unit, F32, "rz") + 0.0     # a zero sum is +0


@pytest.mark.parametrize("atype", ["f16", "bf16"])
@pytest.mark.parametrize("spread", ["any", "accumulated"])
def test_aligned_sum_matches_exact_arithmetic_per_element(atype, spread):
    rng = np.random.default_rng(5 if atype == "f16" else 6)
    warps, n, k = 3, 8, 16
    b_of_warp = np.array([0, 1, 1])
    if spread == "any":                      # random bits: the alignment cuts across every exponent
        A, B = random_inputs(rng, (warps, 16, k), atype), random_inputs(rng, (2, n, k), atype)
        C = random_inputs(rng, (warps, 16, n), "bf16").astype(np.float32).astype(np.float64)
    else:                                    # a running sum far above its new products
        A = from_bits(rng.standard_normal((warps, 16, k)).astype(np.float16).view(np.uint16), "f16")
        B = from_bits(rng.standard_normal((2, n, k)).astype(np.float16).view(np.uint16), "f16")
        C = (rng.standard_normal((warps, 16, n)) * 2.0 ** rng.integers(0, 14, (warps, 16, n))).astype(np.float32)
        C = C.astype(np.float64)
    got = aligned_sum(A, B, b_of_warp, C, atype)
    assert got.dtype == np.float32
    want = np.array([[[one_element(A[w, i], B[b_of_warp[w], j], C[w, i, j], atype) for j in range(n)]
                      for i in range(16)] for w in range(warps)], np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))    # zeros +0, as the rule says
    if spread == "accumulated":               # the cut shows: rounding once to nearest differs somewhere
        nearest = (np.einsum("wik,wjk->wij", A, B[b_of_warp]) + C).astype(np.float32)
        assert not np.array_equal(got, nearest)


def chain(a: np.ndarray, b: np.ndarray, atype: str) -> np.ndarray:
    """A 64 x K by K x 64 tile as tl.dot accumulates it: 4 warps of 16 rows, one step per 16 of K."""
    m, k = a.shape
    acc = np.zeros((4, 16, b.shape[1]))
    for k0 in range(0, k, 16):
        step = aligned_sum(a[:, k0:k0 + 16].reshape(4, 16, 16), b[k0:k0 + 16].T[None], np.zeros(4, np.int64), acc,
                           atype)
        acc = step.astype(np.float64)
    return acc.reshape(m, -1).astype(np.float32)


@pytest.mark.parametrize("name", SETS)
def test_chained_steps_equal_the_h200_bit_for_bit(name):
    recorded = np.load(H200)
    atype = name.split("_")[0]
    a, b = from_bits(recorded[f"{name}_a"], atype), from_bits(recorded[f"{name}_b"], atype)
    got = chain(a, b, atype)
    np.testing.assert_array_equal(got.view(np.uint32), recorded[f"{name}_c"].view(np.uint32))
    exact = a @ b                              # exact in float64 for these inputs but the wide ones
    if name.endswith("uniform_64"):            # the H200 is not the exact product rounded once
        assert np.mean(got == exact.astype(np.float32)) < 0.5
        assert np.mean(got.astype(np.float64) - exact) < 0
