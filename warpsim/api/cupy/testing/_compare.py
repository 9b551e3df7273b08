"""Run a test once with NumPy and once with CuPy (warpsim) and compare what they return.

The decorated test takes the module as `xp` (or `name=`); it returns an
array or a scalar; the two results must agree (values, and dtypes with
type_check, contiguity with contiguous_check). With accept_error, both runs
may raise instead, and then they must raise alike (the CuPy run an
exception of the NumPy run's type or an accepted one).
"""

from __future__ import annotations

import numpy as np
import numpy.testing as npt

from ...arrays import ndarray
from ._host import cupy_module, to_host
from ._signature import supplying


def _run(func, args, kwargs, name, xp):
    kwargs = dict(kwargs)
    kwargs[name] = xp
    try:
        return func(*args, **kwargs), None
    except Exception as error:   # compared with the other run's below
        return None, error


def _accepted(error, accept_error) -> bool:
    if accept_error is True:
        return isinstance(error, Exception)
    if not accept_error:
        return False
    return isinstance(error, accept_error)


def _check_errors(cupy_error, numpy_error, accept_error) -> None:
    if cupy_error is not None and numpy_error is not None:
        if _accepted(cupy_error, accept_error) and _accepted(numpy_error, accept_error):
            return
        raise cupy_error
    if cupy_error is not None:
        raise AssertionError(f"only the CuPy run raised: {type(cupy_error).__name__}: {cupy_error}") \
            from cupy_error
    raise AssertionError(f"only the NumPy run raised: {type(numpy_error).__name__}: {numpy_error}") \
        from numpy_error


def _contiguity(cupy_result, numpy_result) -> None:
    if not isinstance(cupy_result, ndarray) or not isinstance(numpy_result, np.ndarray):
        return
    if numpy_result.flags.c_contiguous and not cupy_result.flags.c_contiguous:
        raise AssertionError("the NumPy result is C-contiguous and the CuPy result is not")
    if numpy_result.flags.f_contiguous and not cupy_result.flags.f_contiguous:
        raise AssertionError("the NumPy result is F-contiguous and the CuPy result is not")


def _comparing(check, name="xp", type_check=True, accept_error=False, contiguous_check=True,
               strides_check=False):
    def decorator(func):
        @supplying(func, name)
        def wrapper(*args, **kwargs):
            cupy_result, cupy_error = _run(func, args, kwargs, name, cupy_module())
            numpy_result, numpy_error = _run(func, args, kwargs, name, np)
            if cupy_error is not None or numpy_error is not None:
                _check_errors(cupy_error, numpy_error, accept_error)
                return
            if contiguous_check:
                _contiguity(cupy_result, numpy_result)
            if strides_check and getattr(cupy_result, "strides", None) != getattr(numpy_result, "strides", None):
                raise AssertionError(f"strides differ: CuPy {cupy_result.strides}, NumPy {numpy_result.strides}")
            cupy_host, numpy_host = to_host(cupy_result), numpy_result
            if type_check:
                cupy_dtype, numpy_dtype = np.asarray(cupy_host).dtype, np.asarray(numpy_host).dtype
                if cupy_dtype != numpy_dtype:
                    raise AssertionError(f"dtypes differ: CuPy {cupy_dtype}, NumPy {numpy_dtype}")
            check(cupy_host, numpy_host)
        return wrapper
    return decorator


def numpy_cupy_allclose(rtol=1e-7, atol=0, err_msg="", verbose=True, name="xp", type_check=True,
                        accept_error=False, sp_name=None, scipy_name=None, contiguous_check=True,
                        **kwargs):
    def check(c, n):
        if isinstance(rtol, dict) or isinstance(atol, dict):
            dtype = np.asarray(n).dtype.type
            r = rtol.get(dtype, rtol.get("default", 1e-7)) if isinstance(rtol, dict) else rtol
            a = atol.get(dtype, atol.get("default", 0)) if isinstance(atol, dict) else atol
        else:
            r, a = rtol, atol
        npt.assert_allclose(c, n, r, a, err_msg=err_msg, verbose=verbose)
    return _comparing(check, name, type_check, accept_error, contiguous_check)


def numpy_cupy_array_almost_equal(decimal=6, err_msg="", verbose=True, name="xp", type_check=True,
                                  accept_error=False, sp_name=None, scipy_name=None):
    return _comparing(lambda c, n: npt.assert_array_almost_equal(c, n, decimal, err_msg, verbose),
                      name, type_check, accept_error, False)


def numpy_cupy_array_almost_equal_nulp(nulp=1, name="xp", type_check=True, accept_error=False,
                                       sp_name=None, scipy_name=None):
    return _comparing(lambda c, n: npt.assert_array_almost_equal_nulp(c, n, nulp),
                      name, type_check, accept_error, False)


def numpy_cupy_array_max_ulp(maxulp=1, dtype=None, name="xp", type_check=True, accept_error=False,
                             sp_name=None, scipy_name=None):
    return _comparing(lambda c, n: npt.assert_array_max_ulp(c, n, maxulp, dtype),
                      name, type_check, accept_error, False)


def numpy_cupy_array_equal(err_msg="", verbose=True, name="xp", type_check=True, accept_error=False,
                           sp_name=None, scipy_name=None, strides_check=False):
    return _comparing(lambda c, n: npt.assert_array_equal(c, n, err_msg, verbose),
                      name, type_check, accept_error, False, strides_check)


def numpy_cupy_array_less(err_msg="", verbose=True, name="xp", type_check=True, accept_error=False,
                          sp_name=None, scipy_name=None):
    return _comparing(lambda c, n: npt.assert_array_less(c, n, err_msg, verbose),
                      name, type_check, accept_error, False)


def numpy_cupy_equal(name="xp", sp_name=None, scipy_name=None):
    def check(c, n):
        if c != n:
            raise AssertionError(f"results differ: CuPy {c!r}, NumPy {n!r}")
    return _comparing(check, name, False, False, False)
