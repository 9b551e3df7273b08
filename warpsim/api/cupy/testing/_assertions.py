"""NumPy's array assertions, taking device arrays too (downloaded before comparing)."""

from __future__ import annotations

import numpy as np
import numpy.testing as npt

from ._host import to_host


def assert_allclose(actual, desired, rtol=1e-7, atol=0, err_msg="", verbose=True):
    npt.assert_allclose(to_host(actual), to_host(desired), rtol=rtol, atol=atol,
                        err_msg=err_msg, verbose=verbose)


def assert_array_almost_equal(x, y, decimal=6, err_msg="", verbose=True):
    npt.assert_array_almost_equal(to_host(x), to_host(y), decimal=decimal, err_msg=err_msg,
                                  verbose=verbose)


def assert_array_almost_equal_nulp(x, y, nulp=1):
    npt.assert_array_almost_equal_nulp(to_host(x), to_host(y), nulp=nulp)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    npt.assert_array_max_ulp(to_host(a), to_host(b), maxulp=maxulp, dtype=dtype)


def assert_array_equal(x, y, err_msg="", verbose=True, strides_check=False, **kwargs):
    x_host, y_host = to_host(x), to_host(y)
    npt.assert_array_equal(x_host, y_host, err_msg=err_msg, verbose=verbose, **kwargs)
    if strides_check and getattr(x, "strides", None) != getattr(y, "strides", None):
        raise AssertionError(f"strides differ: {getattr(x, 'strides', None)} and "
                             f"{getattr(y, 'strides', None)}\n{err_msg}")


def assert_array_list_equal(xlist, ylist, err_msg="", verbose=True):
    if len(xlist) != len(ylist):
        raise AssertionError(f"list lengths differ: {len(xlist)} and {len(ylist)}")
    for x, y in zip(xlist, ylist):
        assert_array_equal(x, y, err_msg=err_msg, verbose=verbose)


def assert_array_less(x, y, err_msg="", verbose=True):
    npt.assert_array_less(to_host(x), to_host(y), err_msg=err_msg, verbose=verbose)


def assert_equal(actual, desired, err_msg="", verbose=True):
    npt.assert_equal(to_host(actual), to_host(desired), err_msg=err_msg, verbose=verbose)


__all__ = [name for name in dir() if name.startswith("assert_")] + ["np"]
