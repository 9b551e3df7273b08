"""Packed pairs of 16-bit floats (f16x2, bf16x2) in one 32-bit register, computed half by half.

Element 0 sits in bits 0-15, element 1 in bits 16-31. PTX's .f16x2/.bf16x2
arithmetic and min/max (machine/isa/floating.py) and SASS's HADD2, HMUL2,
HFMA2 and HMNMX2 (sass/executor/floating.py) unpack the halves here, compute
each with semantics/floating.py's rules, and pack the results back, so a
half's rounding, flushing and NaN are one implementation. SASS may feed both
halves of a result from one half of a source (the operand swizzles .H0_H0 and
.H1_H1): `selects` says which source half feeds the result's low and high half.
"""

from __future__ import annotations

import numpy as np

from .compare import compare
from .floatbits import FORMATS, decode
from .floating import PLAIN, FloatEnv, arithmetic, min_max

HALF_TYPES = ("f16", "bf16")
BOTH = (0, 1)                       # no swizzle: the low half feeds the low half, the high the high
_LOW = np.uint32(0xFFFF)
_SIXTEEN = np.uint32(16)


def unpack(words, elem: str, select=BOTH):
    """32-bit words -> (low, high) halves as register values of `elem` (float16 for f16, uint16
    bits for bf16); `select` names the source half each takes (SASS swizzles)."""
    words = np.asarray(words, dtype=np.uint32)
    halves = ((words & _LOW).astype(np.uint16), (words >> _SIXTEEN).astype(np.uint16))
    if elem == "f16":
        halves = tuple(h.view(np.float16) for h in halves)
    elif elem != "bf16":
        raise KeyError(f"no packed half type {elem}")
    return halves[select[0]], halves[select[1]]


def pack(low, high) -> np.ndarray:
    """Two halves' register values (float16 or uint16 bits) -> 32-bit words, low in bits 0-15."""
    low, high = (np.asarray(h).view(np.uint16).astype(np.uint32) for h in (low, high))
    return low | (high << _SIXTEEN)


def per_half(fn, elem: str, *words, selects=None) -> np.ndarray:
    """fn(*halves) on the low halves and on the high halves of `words`, packed back."""
    selects = selects or [BOTH] * len(words)
    split = [unpack(w, elem, s) for w, s in zip(words, selects)]
    return pack(fn(*(s[0] for s in split)), fn(*(s[1] for s in split)))


def packed_arithmetic(op: str, elem: str, *words, mode: str = "rn", env: FloatEnv = PLAIN,
                      selects=None) -> np.ndarray:
    """add/sub/mul/fma.<elem>x2: each half rounded once in `elem` under `env` (floating.arithmetic)."""
    return per_half(lambda *halves: arithmetic(op, elem, *halves, mode=mode, env=env), elem, *words,
                    selects=selects)


def packed_min_max(elem: str, *words, take_min, env: FloatEnv = PLAIN, xorsign: bool = False,
                   selects=None) -> np.ndarray:
    """min/max.<elem>x2 per half (floating.min_max); `take_min` a bool or one per lane."""
    return per_half(lambda *halves: min_max(elem, halves, take_min, env, xorsign), elem, *words,
                    selects=selects)


def low_half_to_f32(op: str, *words, env: FloatEnv = PLAIN, selects=None) -> np.ndarray:
    """HADD2.F32 and kin: the low f16 halves' result rounded to f32 (f32 register values)."""
    selects = selects or [BOTH] * len(words)
    lows = [unpack(w, "f16", s)[0] for w, s in zip(words, selects)]
    return arithmetic(op, "f16", *lows, env=env, out="f32")


def packed_compare(test: str, elem: str, a, b, ftz: bool = False, selects=None) -> tuple:
    """(low, high): `test` (semantics/compare.py, PTX's NaN rules) of each half of words a and
    b, subnormal halves read as zero under `ftz`; setp.<elem>x2's p and q, HSETP2's P and Q."""
    selects = selects or [BOTH, BOTH]
    (a0, a1), (b0, b1) = (unpack(w, elem, s) for w, s in zip((a, b), selects))
    env, fmt = FloatEnv(ftz_in=ftz), FORMATS[elem]
    return tuple(compare(test, *env.inputs([decode(x, elem), decode(y, elem)], fmt)) for x, y in ((a0, b0), (a1, b1)))


def pack_truths(low, high, true_bits: int) -> np.ndarray:
    """Two halves' bools as a word: `true_bits` (1.0 in the half format, or 0xFFFF) where true, 0
    elsewhere (set.<dtype>.<elem>x2, HSET2)."""
    one = np.uint32(true_bits)
    low, high = (np.where(t, one, np.uint32(0)) for t in (low, high))
    return low | (high << _SIXTEEN)
