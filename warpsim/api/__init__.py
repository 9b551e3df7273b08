"""The CuPy-compatible surface (arrays in warpsim.api.arrays, kernels in warpsim.api.raw).

A script written for CuPy runs on warpsim by changing `import cupy as cp` to
`import warpsim as cp`, as far as it uses what is here: array creation and
transfer (asarray, zeros, empty, get, asnumpy, ...), basic slicing, and raw
CUDA kernels. Arrays live in the simulated device's global memory at real
64-bit addresses, so a kernel receives the same kind of pointer it would on a
GPU. Limitations, stated honestly: elementwise arithmetic and reductions on
arrays (a + b, a.sum(), warpsim.sqrt, warpsim.random) are computed on the
host with NumPy, not simulated; copies and advanced indexing go through host
memory; streams are accepted and ignored because the simulator runs every
launch to completion in order.

Which device: the one installed by `use_device(device)` around the call, else
`warpsim.machine.device.default_device()`. An array remembers its device and
a launch refuses arrays from another.
"""

from .arrays import (MemoryPointer, arange, array, ascontiguousarray, asarray, asnumpy,  # noqa: F401
                     bool_, byte, cdouble, complex64, complex128, csingle, current_device,
                     double, dtype, empty, empty_like, float16, float32, float64, full,
                     full_like, get_array_module, half, int8, int16, int32, int64, intc, intp,
                     linspace, longlong, ndarray, newaxis, ones, ones_like, short, single,
                     ubyte, uint8, uint16, uint32, uint64, uintc, uintp, ulonglong, use_device,
                     ushort, zeros, zeros_like)
from .memory import get_default_memory_pool, get_default_pinned_memory_pool  # noqa: F401
from .raw import KernelNotFoundError, RawKernel, RawModule  # noqa: F401
from . import complex_ufuncs  # noqa: F401,E402  (complex a / b and abs(a) as CuPy's kernels, simulated)

__all__ = [
    "ndarray", "asarray", "array", "asnumpy", "ascontiguousarray", "get_array_module",
    "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
    "arange", "linspace", "RawModule", "RawKernel", "newaxis", "dtype",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
    "intp", "uintp", "byte", "ubyte", "short", "ushort", "intc", "uintc", "longlong", "ulonglong",
    "half", "single", "double", "csingle", "cdouble",
    "get_default_memory_pool", "get_default_pinned_memory_pool",
]
