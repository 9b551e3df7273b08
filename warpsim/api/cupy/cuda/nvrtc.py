"""`cupy.cuda.nvrtc` (and `cupy_backends.cuda.libs.nvrtc`): the NVRTC warpsim compiles with.

The version and the architectures are those of the NVRTC library from PyPI
that warpsim.frontends.nvrtc loads.
"""

from __future__ import annotations

import ctypes
from functools import lru_cache

from .._missing import missing_attribute
from ...cuda_errors import CompileException as NVRTCError  # noqa: F401
from ....frontends.nvrtc import nvrtc_library_path, nvrtc_version


def getVersion() -> tuple[int, int]:
    return nvrtc_version()


@lru_cache(maxsize=None)
def getSupportedArchs() -> tuple[int, ...]:
    """nvrtcGetSupportedArchs of the loaded library (e.g. 75, 80, ..., 120)."""
    library = ctypes.CDLL(nvrtc_library_path())
    count = ctypes.c_int()
    library.nvrtcGetNumSupportedArchs(ctypes.byref(count))
    archs = (ctypes.c_int * count.value)()
    library.nvrtcGetSupportedArchs(archs)
    return tuple(archs)


def __getattr__(name):
    raise missing_attribute("cupy.cuda.nvrtc", name)
