"""`cupy.cuda.nvrtc` (and `cupy_backends.cuda.libs.nvrtc`): the NVRTC warpsim compiles with.

The version and the architectures are those of the NVRTC library that
warpsim.frontends.nvrtc compiles with (PyPI's, or the `cuda` setting's).
"""

from __future__ import annotations

import ctypes

from .._missing import missing_attribute
from ...cuda_errors import CompileException as NVRTCError  # noqa: F401
from ....frontends.nvrtc import nvrtc_library, nvrtc_version


def getVersion() -> tuple[int, int]:
    return nvrtc_version()


def getSupportedArchs() -> tuple[int, ...]:
    """nvrtcGetSupportedArchs of the library warpsim compiles with (e.g. 75, 80, ..., 120)."""
    library = nvrtc_library()
    count = ctypes.c_int()
    library.nvrtcGetNumSupportedArchs(ctypes.byref(count))
    archs = (ctypes.c_int * count.value)()
    library.nvrtcGetSupportedArchs(archs)
    return tuple(archs)


def __getattr__(name):
    raise missing_attribute("cupy.cuda.nvrtc", name)
