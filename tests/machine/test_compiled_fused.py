"""The processor's f64 fma (machine/compiled/fused.py), registered with semantics/floatbits, against
floatbits' exact NumPy arithmetic and against exact rational arithmetic: the same bits for every
operand the NumPy steps meet (random magnitudes, cancellations, subnormal and huge results,
infinities and signed zeros; NaNs as NaNs, whose payloads the callers set)."""

from fractions import Fraction

import numpy as np

from warpsim.machine.compiled import fused
from warpsim.semantics import floatbits
from warpsim.semantics.floatbits import F64, fma_rounded


def _operands(n=3000, seed=11):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-520, 520, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-520, 520, n)
    c = rng.standard_normal(n) * 2.0 ** rng.integers(-1040, 1020, n)
    c[::3] = -a[::3] * b[::3] * (1 + 2.0 ** -40)        # near cancellation: the exact product matters
    c[1::7] = -(a[1::7] * b[1::7])                       # the product's rounding error is the whole sum
    a[2::11], b[2::11] = 2.0 ** -540, 2.0 ** -520        # subnormal products
    a[5::13] = [np.inf, -np.inf, np.nan, 0.0, -0.0] * (len(a[5::13]) // 5) + [0.0] * (len(a[5::13]) % 5)
    c[6::17] = -0.0
    return a, b, c


def test_the_registered_fma_is_the_exact_one(monkeypatch):
    a, b, c = _operands()
    assert floatbits.NEAREST_FMA64 and floatbits.NEAREST_FMA64[0] is fused.fma_nearest_f64
    fast = fma_rounded(a, b, c, F64, "rn")
    monkeypatch.setattr(floatbits, "NEAREST_FMA64", [])
    exact = fma_rounded(a, b, c, F64, "rn")
    nan = np.isnan(exact)
    assert (np.isnan(fast) == nan).all()
    assert (fast[~nan].view(np.uint64) == exact[~nan].view(np.uint64)).all()


def test_against_rational_arithmetic():
    a, b, c = _operands(300, seed=3)
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    got = fused.fma_nearest_f64(a[finite], b[finite], c[finite])
    for x, y, z, r in zip(a[finite], b[finite], c[finite], got):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact == 0 or abs(exact) >= Fraction(np.finfo(np.float64).max):
            continue
        assert r == float(exact), (x, y, z)             # float() of a Fraction rounds once, to nearest even


def test_shapes_and_broadcast_operands():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    np.testing.assert_array_equal(fma_rounded(a, 0.5, 1.0, F64, "rn"), a * 0.5 + 1.0)
