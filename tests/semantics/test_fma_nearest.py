"""fma_nearest rounds a*b + c once, to nearest even, in f32 and f16: against exact rational
arithmetic, on random operands and on sums whose f64 value lands on a midpoint of the narrow
type (where casting the f64 sum would round twice)."""

from fractions import Fraction

import numpy as np
import pytest

from warpsim.semantics.floating import fma_nearest


def exact_nearest(value: Fraction, dtype):
    """value rounded once to nearest even in dtype (finite results only)."""
    guess = dtype(float(value))
    candidates = {guess, np.nextafter(guess, dtype(np.inf)), np.nextafter(guess, dtype(-np.inf))}
    best = min(candidates, key=lambda v: (abs(Fraction(float(v)) - value),
                                          int(np.asarray(v).view(f"u{np.dtype(dtype).itemsize}")) & 1))
    return best


def check(a, b, c, dtype):
    got = fma_nearest(a, b, c)
    for x, y, z, r in zip(a, b, c, got):
        want = exact_nearest(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), dtype)
        assert np.asarray(r).view(f"u{np.dtype(dtype).itemsize}") == \
            np.asarray(want).view(f"u{np.dtype(dtype).itemsize}"), (x, y, z, r, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_random_operands(dtype):
    rng = np.random.default_rng(7)
    scale = 8 if dtype is np.float16 else 40
    a = (rng.standard_normal(400) * 2.0 ** rng.integers(-scale // 4, scale // 4, 400)).astype(dtype)
    b = (rng.standard_normal(400) * 2.0 ** rng.integers(-scale // 4, scale // 4, 400)).astype(dtype)
    c = (rng.standard_normal(400) * 2.0 ** rng.integers(-scale // 2, scale // 2, 400)).astype(dtype)
    check(a, b, c, dtype)


def test_sums_that_round_to_a_midpoint_in_f64():
    """a*b is a midpoint between two f32 neighbours; a c far below f64's last bit moves the exact
    sum off it (up or down), which the f64 sum does not show: rounding once must see it (a cast
    of the f64 sum rounds these twice). c = 0 leaves the tie, which goes to the even neighbour."""
    bits = np.finfo(np.float32).nmant
    a, b = np.float32(1 + 2.0 ** -(bits // 2)), np.float32(1 + 2.0 ** -(bits + 1 - bits // 2))
    product = Fraction(float(a)) * Fraction(float(b))
    assert product.denominator == 2 ** (bits + 1)         # a*b: its last bit one past f32's
    c = np.array([2.0 ** -60, -(2.0 ** -60), 2.0 ** -70, -(2.0 ** -70), 0.0], dtype=np.float32)
    n = len(c)
    check(np.full(n, a), np.full(n, b), c, np.float32)
    up, down = fma_nearest(np.full(2, a), np.full(2, b), c[:2])
    assert up > down                        # the two sides of the midpoint round apart


def test_midpoint_lanes_among_ordinary_ones():
    """Lanes whose f64 sum lands on a midpoint, scattered among ordinary lanes: each rounds once."""
    rng = np.random.default_rng(3)
    bits = np.finfo(np.float32).nmant
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    c = rng.standard_normal(64).astype(np.float32)
    tricky = rng.choice(64, 12, replace=False)
    a[tricky] = np.float32(1 + 2.0 ** -(bits // 2))
    b[tricky] = np.float32(1 + 2.0 ** -(bits + 1 - bits // 2))
    c[tricky] = np.where(np.arange(12) % 2, 2.0 ** -60, -(2.0 ** -60)).astype(np.float32)
    check(a, b, c, np.float32)
