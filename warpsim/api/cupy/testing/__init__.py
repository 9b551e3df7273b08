"""`cupy.testing` under `warpsim run`: warpsim's own helpers for CuPy-style tests.

What CuPy's kernel tests use, written to CuPy's documented behaviour:
assertions that accept device arrays (assert_array_equal, assert_allclose, ...),
decorators that run a test once with NumPy and once with CuPy and compare
the results (numpy_cupy_allclose, numpy_cupy_array_equal, ...), loops over
dtypes and orders (for_all_dtypes, for_dtypes_combination, for_orders, ...),
class parameterization (parameterize, product), array makers (shaped_arange,
shaped_random) and markers (slow, multi_gpu, with_requires). Any other name
raises AttributeError naming it.
"""

from __future__ import annotations

from .._missing import missing_attribute
from ._assertions import (assert_allclose, assert_array_almost_equal,  # noqa: F401
                          assert_array_almost_equal_nulp, assert_array_equal, assert_array_less,
                          assert_array_list_equal, assert_array_max_ulp, assert_equal)
from ._compare import (numpy_cupy_allclose, numpy_cupy_array_almost_equal,  # noqa: F401
                       numpy_cupy_array_almost_equal_nulp, numpy_cupy_array_equal,
                       numpy_cupy_array_less, numpy_cupy_array_max_ulp, numpy_cupy_equal)
from ._loops import (for_all_dtypes, for_all_dtypes_combination, for_CF_orders,  # noqa: F401
                     for_complex_dtypes, for_dtypes, for_dtypes_combination, for_float_dtypes,
                     for_int_dtypes, for_int_dtypes_combination, for_orders, for_signed_dtypes,
                     for_signed_dtypes_combination, for_unsigned_dtypes,
                     for_unsigned_dtypes_combination)
from ._parameterize import parameterize, product, product_dict  # noqa: F401
from ._arrays import shaped_arange, shaped_random, shaped_reverse_arange  # noqa: F401
from ._markers import gpu, installed, multi_gpu, numpy_satisfies, slow, with_requires  # noqa: F401
from . import _protocol_helpers  # noqa: F401


def __getattr__(name):
    raise missing_attribute("cupy.testing", name)
