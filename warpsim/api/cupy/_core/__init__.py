"""`cupy._core`: the kernel classes and the few internals CuPy's kernel tests use."""

from __future__ import annotations

from .._missing import missing_attribute
from ...arrays import ndarray  # noqa: F401
from ...elementwise import ElementwiseKernel
from ...reduction import ReductionKernel  # noqa: F401
from . import _accelerator, core  # noqa: F401
from ._accelerator import (get_reduction_accelerators, get_routine_accelerators,  # noqa: F401
                           set_reduction_accelerators, set_routine_accelerators)
from ._reduction import create_reduction_func  # noqa: F401

_copy_kernel = ElementwiseKernel("T x", "T y", "y = x", "cupy_copy")


def elementwise_copy(src, dst, *, casting="same_kind"):
    """Copy src into dst (broadcast) on the simulated device: CuPy's copy kernel."""
    if src.dtype != dst.dtype:
        src = src.astype(dst.dtype)
    _copy_kernel(src, dst)
    return dst


def __getattr__(name):
    raise missing_attribute("cupy._core", name)
