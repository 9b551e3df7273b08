"""Comparisons with PTX's NaN rules, the same for setp/set/slct and ISETP/FSETP/DSETP.

The ordered tests (eq ne lt le gt ge) are false when either operand is NaN,
which NumPy does for all but ne (NumPy's != is true on NaN; the GPU's is not);
the unordered ones (equ ... geu) are true then; num and nan test for NaN; the
unsigned tests (lo ls hi hs) read integers' bits as unsigned. SASS's T and F
are the constant tests. Integers have no NaN, so for them the ordered tests
are NumPy's.
"""

from __future__ import annotations

import numpy as np

ORDERED = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
UNSIGNED = {"lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}
UNORDERED = {"equ": "eq", "neu": "ne", "ltu": "lt", "leu": "le", "gtu": "gt", "geu": "ge"}
NAN_TESTS = ("num", "nan")
CONSTANT_TESTS = ("t", "f")
FLOAT_TESTS = tuple(ORDERED) + tuple(UNORDERED) + NAN_TESTS + CONSTANT_TESTS


def compare(test: str, a, b) -> np.ndarray:
    """a `test` b per lane, as a bool array (NaN rules in the module docstring)."""
    a, b = np.asarray(a), np.asarray(b)
    if test in CONSTANT_TESTS:
        return np.full(np.broadcast(a, b).shape, test == "t")
    if test in UNSIGNED:
        return UNSIGNED[test](_unsigned(a), _unsigned(b))
    if a.dtype.kind != "f":
        return ORDERED[test](a, b)
    with np.errstate(invalid="ignore"):
        unordered = np.isnan(a) | np.isnan(b)
        if test == "num":
            return ~unordered
        if test == "nan":
            return unordered
        if test in UNORDERED:
            return ORDERED[UNORDERED[test]](a, b) | unordered
        return ORDERED[test](a, b) & ~unordered


def _unsigned(values):
    return values.view(np.dtype(f"uint{values.dtype.itemsize * 8}"))
