"""`cupy.exceptions`: NumPy's exception classes, as CuPy re-exports them."""

from __future__ import annotations

from numpy.exceptions import AxisError, ComplexWarning, DTypePromotionError, TooHardError  # noqa: F401
from numpy.exceptions import VisibleDeprecationWarning  # noqa: F401

from ._missing import missing_attribute


def __getattr__(name):
    raise missing_attribute("cupy.exceptions", name)
