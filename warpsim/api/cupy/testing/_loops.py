"""Run a test for each dtype (or combination of dtypes, or memory order), as CuPy's for_* do.

The decorated test takes the dtype as `dtype` (or `name=`); a failure says
which dtype it was run with.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from ._signature import supplying

_FLOATS = (np.float64, np.float32, np.float16)
_COMPLEX = (np.complex64, np.complex128)
_SIGNED = (np.int8, np.int16, np.int32, np.int64)
_UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)
_INTS = _SIGNED + _UNSIGNED


def _looping(func, names, cases):
    @supplying(func, names)
    def wrapper(*args, **kwargs):
        for case in cases:
            kwargs.update(zip(names, case))
            try:
                func(*args, **kwargs)
            except Exception as error:
                shown = ", ".join(f"{n}={getattr(v, '__name__', v)}" for n, v in zip(names, case))
                error.add_note(f"(run with {shown})")
                raise
    return wrapper


def for_dtypes(dtypes, name="dtype"):
    return lambda func: _looping(func, (name,), [(d,) for d in dtypes])


def _make_all(no_float16=False, no_bool=False, no_complex=False):
    dtypes = (() if no_bool else (np.bool_,)) + (_FLOATS[:2] if no_float16 else _FLOATS)
    return dtypes + (() if no_complex else _COMPLEX) + _INTS


def for_all_dtypes(name="dtype", no_float16=False, no_bool=False, no_complex=False):
    return for_dtypes(_make_all(no_float16, no_bool, no_complex), name)


def for_float_dtypes(name="dtype", no_float16=False):
    return for_dtypes(_FLOATS[:2] if no_float16 else _FLOATS, name)


def for_signed_dtypes(name="dtype"):
    return for_dtypes(_SIGNED, name)


def for_unsigned_dtypes(name="dtype"):
    return for_dtypes(_UNSIGNED, name)


def for_int_dtypes(name="dtype", no_bool=False):
    return for_dtypes(_INTS if no_bool else (np.bool_,) + _INTS, name)


def for_complex_dtypes(name="dtype"):
    return for_dtypes(_COMPLEX, name)


def for_dtypes_combination(types, names=("dtype",), full=None):
    """Every combination when full (or CUPY_TEST_FULL_COMBINATION=1) or one name; else each type
    in each place at least once (rotations of the list), as CuPy's sampled combinations cover."""
    types, names = list(types), tuple(names)
    if full is None:
        full = os.environ.get("CUPY_TEST_FULL_COMBINATION", "0") == "1"
    if full or len(names) == 1:
        cases = list(itertools.product(types, repeat=len(names)))
    else:
        cases = [tuple(types[(i + shift * k) % len(types)] for k in range(len(names)))
                 for shift in (0, 1) for i in range(len(types))]
        cases = list(dict.fromkeys(cases))
    return lambda func: _looping(func, names, cases)


def for_all_dtypes_combination(names=("dtyes",), no_float16=False, no_bool=False, full=None,
                               no_complex=False):
    return for_dtypes_combination(_make_all(no_float16, no_bool, no_complex), names, full)


def for_signed_dtypes_combination(names=("dtype",), full=None):
    return for_dtypes_combination(_SIGNED, names, full)


def for_unsigned_dtypes_combination(names=("dtype",), full=None):
    return for_dtypes_combination(_UNSIGNED, names, full)


def for_int_dtypes_combination(names=("dtype",), no_bool=False, full=None):
    return for_dtypes_combination(_INTS if no_bool else (np.bool_,) + _INTS, names, full)


def for_orders(orders, name="order"):
    return lambda func: _looping(func, (name,), [(o,) for o in orders])


def for_CF_orders(name="order"):
    return for_orders((None, "C", "F", "c", "f"), name)
