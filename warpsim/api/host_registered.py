"""Host arrays kernels address in place: `warpsim.host_registered(x)`, cudaHostRegister's counterpart.

    with warpsim.host_registered(x) as dx:      # x: a NumPy array, a torch CPU tensor, any DLPack
        kernel(grid, block, (dx, n))            #    or __array_interface__ host array
    # x itself holds what the kernel wrote: nothing was copied

CuPy's `asarray` of a host array copies it to the device, and warpsim keeps
that. Registration is the explicit way to let kernels (RawKernel, Numba,
ElementwiseKernel, ...) read and write a host array's own bytes: the array's
byte extent becomes a registered host range of the device's memory
(GlobalMemory.register_host: its device address is its host address, as
with cudaHostRegister under unified addressing) for the block, and `dx` is
a warpsim ndarray viewing it. Leaving the block unregisters the range; dx
must not be used after it (an access is then a fault, as on a GPU).
"""

from __future__ import annotations

import contextlib

import numpy as np

from .memory import MemoryPointer, UnownedMemory, current_device


def host_view(obj) -> np.ndarray:
    """A NumPy view (no copy) of a host array: NumPy's own, any __array_interface__ or buffer, or a
    DLPack producer on the CPU (torch CPU tensors)."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__array_interface__") or isinstance(obj, (memoryview, bytearray)):
        return np.asarray(obj)
    if hasattr(obj, "__dlpack__"):
        return np.from_dlpack(obj)
    raise TypeError(f"{type(obj).__name__} is not a host array (no __array_interface__, buffer or "
                    "__dlpack__)")


def byte_extent(view: np.ndarray) -> tuple[int, int]:
    """(first byte's address, bytes) every element of a (possibly strided) view lies in."""
    start = int(view.__array_interface__["data"][0])
    if view.size == 0:
        return start, 0
    low = sum(min(0, (n - 1) * s) for n, s in zip(view.shape, view.strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(view.shape, view.strides)) + view.itemsize
    return start + low, high - low


@contextlib.contextmanager
def host_registered(obj, device=None):
    """A warpsim ndarray over obj's own bytes while the block runs (see the module doc)."""
    from .arrays import ndarray
    view = host_view(obj)
    if not view.flags.writeable:
        raise ValueError("host_registered needs a writable host array (kernels may write it)")
    device = device if device is not None else current_device()
    memory = device.memory
    base, nbytes = byte_extent(view)
    pointer = int(view.__array_interface__["data"][0])
    memory.register_host(base, nbytes, f"{type(obj).__module__}.{type(obj).__name__} "
                                       f"{view.dtype}{list(view.shape)}")
    try:
        owner = UnownedMemory(pointer, nbytes - (pointer - base), obj, device)
        yield ndarray(view.shape, view.dtype, MemoryPointer(owner), view.strides)
    finally:
        memory.unregister_host(base)
