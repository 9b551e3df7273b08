"""`cupy` under `warpsim run`: CuPy's namespace as far as warpsim provides it.

Under `warpsim run python script.py`, `import cupy` gives this module and
`import cupy.X` its submodule X (warpsim.cli.run does the mapping): the
arrays and kernels of warpsim.api, `cupy.cuda` (devices, streams, events,
memory, the runtime calls scripts make), `cupy.testing` (the helpers CuPy's
own kernel tests use), and the few CuPy internals those tests reach
(`cupy._core`, `cupy._util`), and `cupy.fuse` (kernels simulated like any
other, warpsim.api.fusion). `cupy.linalg`, `cupy.fft` and `cupy.random`
are CuPy's interfaces computed on the host (warpsim.api.linalg, .fft,
.random); NumPy functions CuPy also offers (`cupy.allclose`, `cupy.iinfo`)
are computed on the host, as `warpsim.<name>` is. Any other name raises
AttributeError naming it and saying warpsim does not provide it, never
NumPy's module of the same name.
"""

from __future__ import annotations

import types

import numpy as _numpy

from .. import __all__ as _api_names
from .. import *  # noqa: F401,F403 (arrays, RawModule, RawKernel)
from ..arrays import numpy_fallback
from ..elementwise import ElementwiseKernel  # noqa: F401
from ..fusion import fuse  # noqa: F401
from ..memory import get_default_memory_pool, get_default_pinned_memory_pool  # noqa: F401
from ..reduction import ReductionKernel  # noqa: F401
from ..views import broadcast_arrays, broadcast_to  # noqa: F401
from ...errors import OutOfMemoryError  # noqa: F401
from . import _core, _util, cuda, exceptions, fft, linalg, random, testing  # noqa: F401
from ._missing import missing_attribute

__version__ = "14.0.0"     # the CuPy API warpsim follows (its kernel tests ask for a version)

__all__ = list(_api_names) + ["ElementwiseKernel", "ReductionKernel", "fuse", "broadcast_to",
                              "broadcast_arrays", "get_default_memory_pool",
                              "get_default_pinned_memory_pool", "cuda", "testing", "random", "linalg",
                              "fft"]

is_available = cuda.is_available


def __getattr__(name: str):
    """A NumPy function or constant CuPy offers too (computed on the host); else a clear error."""
    if not name.startswith("_") and hasattr(_numpy, name):
        value = getattr(_numpy, name)
        if not isinstance(value, types.ModuleType):
            return numpy_fallback(name)
    raise missing_attribute("cupy", name)
