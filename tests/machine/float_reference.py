"""Correct rounding of exact rationals to f16/bf16/f32/f64, for the float and cvt tests.

A rational is bracketed between neighbouring bit patterns (ordered by an
integer key: +-magnitude bits) and rounded by the mode's rule, so the
reference never depends on the floating-point arithmetic it checks.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def bits_to_float(bits: int, t: str) -> float:
    """A bit pattern of type t as a Python float (exact)."""
    if t == "bf16":
        return float(np.uint32(bits << 16).view(np.float32))
    dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    return float(np.array(bits, dtype=UINT[BITS[t]]).view(dtype))


def key_value(key: int, t: str) -> float:
    """Values ordered by integer key: key = +-magnitude bits."""
    sign = (1 << (BITS[t] - 1)) if key < 0 else 0
    return bits_to_float(sign | abs(key), t)


def guess_key(exact: Fraction, t: str) -> int:
    """A key near exact (within an ulp or two); only a starting point."""
    try:
        guess = float(exact)
    except OverflowError:
        guess = math.inf if exact > 0 else -math.inf
    if t == "bf16":
        bits = int(np.float32(guess).view(np.uint32)) >> 16
    else:
        dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
        with np.errstate(over="ignore"):
            bits = int(np.array(guess, dtype=dtype).view(UINT[BITS[t]]))
    sign = 1 << (BITS[t] - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def floor_key(exact: Fraction, t: str, top: int) -> int:
    """The largest key whose value is <= exact (-top stands for -inf)."""
    def at_most(key):
        return key == -top or key != top and Fraction(key_value(key, t)) <= exact
    key = max(-top, min(top, guess_key(exact, t)))
    while not at_most(key):
        key -= 1
    while key + 1 < top and at_most(key + 1):
        key += 1
    return key


def inf_key(t: str) -> int:
    return {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}[t]


def ref_round(exact: Fraction, t: str, mode: str) -> float:
    """Correct rounding of a nonzero rational to type t; zero keeps exact's sign."""
    return math.copysign(_ref_round(exact, t, mode), -1.0 if exact < 0 else 1.0)


def _ref_round(exact: Fraction, t: str, mode: str) -> float:
    """Correct rounding: bracket exact between neighbouring bit patterns."""
    top = inf_key(t)
    lo = floor_key(exact, t, top)       # value(lo) <= exact < value(lo + 1)
    if lo != -top and Fraction(key_value(lo, t)) == exact:
        return key_value(lo, t)
    down, up = lo, lo + 1
    if mode == "rm":
        return key_value(down, t)
    if mode == "rp":
        return key_value(up, t)
    if mode == "rz":
        return key_value(down if exact > 0 else up, t)

    def as_fraction(key):               # infinity counts as max + ulp for ties
        if abs(key) == top:
            big = Fraction(key_value(top - 1, t))
            ulp = big - Fraction(key_value(top - 2, t))
            return (big + ulp) * (1 if key > 0 else -1)
        return Fraction(key_value(key, t))
    middle = (as_fraction(down) + as_fraction(up)) / 2
    if exact < middle or exact == middle and abs(down) % 2 == 0:
        return key_value(down, t)
    return key_value(up, t)
