"""warpsim: real CUDA kernels (NVRTC, Numba, PTX) run warp by warp on a simulated GPU.

`import warpsim as cp` stands in for `import cupy as cp` (see warpsim.api).
"""

from .api import *  # noqa: F401,F403 (the CuPy-compatible surface)
from .api import RawKernel, RawModule, ndarray  # noqa: F401
from .api import __all__ as _api_names

__version__ = "0.1.0"

__all__ = list(_api_names) + ["__version__"]

from .api.elementwise import ElementwiseKernel  # noqa: E402,F401  (CuPy's user-defined kernels)
from .api.reduction import ReductionKernel  # noqa: E402,F401
from .api.fusion import fuse  # noqa: E402,F401  (one elementwise or reduction kernel from Python)
from .api.views import broadcast_arrays, broadcast_to  # noqa: E402,F401  (zero-stride views)

__all__ += ["ElementwiseKernel", "ReductionKernel", "fuse", "broadcast_arrays", "broadcast_to"]

from .settings import settings  # noqa: E402,F401  (with warpsim.settings(scheduling="stack"): ...)
from .errors import (CompileError, DeadlockError, LaunchError, MemoryFault,  # noqa: E402,F401
                     OutOfMemoryError, PtxParseError, UnsupportedInstruction, WarpsimError)

__all__ += ["settings", "CompileError", "DeadlockError", "LaunchError", "MemoryFault",
            "OutOfMemoryError", "PtxParseError", "UnsupportedInstruction", "WarpsimError"]

from .profiler import profile  # noqa: E402,F401  (with warpsim.profile() as prof: ...)

__all__ += ["profile"]

from .sanitizer import check  # noqa: E402,F401  (with warpsim.check() as chk: ...)

__all__ += ["check"]

from .distributed import sweep  # noqa: E402,F401  (warpsim.sweep(kernel, {"block": [...]}); Dask on first use)

__all__ += ["sweep"]

from .api.host_registered import host_registered  # noqa: E402,F401  (host arrays addressed in place)

__all__ += ["host_registered"]


def __getattr__(name):
    """`warpsim.cuda` (Numba's API) on first use; NumPy's functions as CuPy offers them."""
    import importlib
    if name == "cuda":
        return importlib.import_module(".cuda", __name__)
    if name == "triton":      # `from warpsim import triton as wt`: Triton kernels on warpsim
        return importlib.import_module(".api.triton", __name__)
    if name in ("random", "linalg", "fft"):    # CuPy's library modules, computed on the host
        return importlib.import_module(".api." + name, __name__)
    import numpy
    if hasattr(numpy, name) and not name.startswith("_"):
        from .api.arrays import numpy_fallback
        return numpy_fallback(name)
    raise AttributeError(f"module 'warpsim' has no attribute '{name}'")
