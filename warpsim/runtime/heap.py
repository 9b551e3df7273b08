"""A device heap the program's host code can address: managed and pinned memory at one address.

warpsim's device addresses are GLOBAL_BASE + offset into GlobalMemory's backing
buffer, and the buffer is replaced by a larger copy when the heap grows. For
cudaMallocManaged (and cudaMallocHost), host code and kernels must use the same
pointer, and host pointers must stay valid while the heap grows. So for a whole
program, the heap's backing bytes are themselves mapped at GLOBAL_BASE in the
program's address space: one reservation of the device's whole memory size
(PROT_NONE, MAP_NORESERVE: it costs no memory), made readable and writable as
the heap grows, never moved. Every device address is then also the host address
of the same byte, and `buffer` is a NumPy view of the mapping, replaced by a
longer view (not a copy) when the heap grows.

The reservation needs GLOBAL_BASE free: `warpsim run` starts programs with
address-space randomization off (as `setarch -R` and gdb do), which leaves the
libraries near the top of the address space, far above the heap. Where the
range is taken anyway, `host_mapped_heap` gives None and the runtime keeps an
ordinary heap (managed memory is then refused with a message saying why).
"""

from __future__ import annotations

import ctypes
import mmap

import numpy as np

from ..machine.memory import GLOBAL_BASE, GlobalMemory, default_memory_size
from ..errors import OutOfMemoryError

PROT_NONE, PROT_READ_WRITE = 0, 0x1 | 0x2
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
MAP_FIXED_NOREPLACE = 0x100000          # Linux 4.17+: fail rather than replace a mapping
PAGE = mmap.PAGESIZE


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                          ctypes.c_long)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    return libc


def reserve(size: int) -> bool:
    """Reserve [GLOBAL_BASE, GLOBAL_BASE + size) of this process's address space, unreadable."""
    libc = _libc()
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE
    got = libc.mmap(GLOBAL_BASE, size, PROT_NONE, flags, -1, 0)
    if got == GLOBAL_BASE:
        return True
    if got not in (None, ctypes.c_void_p(-1).value):    # an old kernel took the address as a hint
        libc.munmap(got, size)
    return False


class HostMappedHeap(GlobalMemory):
    """GlobalMemory whose backing bytes live at GLOBAL_BASE: device address == host address."""

    def __init__(self, limit: int, capacity: int = 1 << 24):
        super().__init__(capacity=PAGE, limit=limit)
        self.reserved = limit
        self.buffer = self._view(0)
        self.initialized = np.zeros(0, dtype=np.bool_)
        self._ensure(capacity, 0)

    @staticmethod
    def _view(length: int) -> np.ndarray:
        if not length:
            return np.zeros(0, dtype=np.uint8)
        return np.ctypeslib.as_array((ctypes.c_uint8 * length).from_address(GLOBAL_BASE))

    def _ensure(self, end: int, request: int):
        """Make the mapping readable and writable up to `end` (doubling), in place."""
        if end <= len(self.buffer):
            return
        if end > self.limit:
            raise OutOfMemoryError(request, self.allocated, self.limit)
        capacity = max(len(self.buffer), PAGE)
        while capacity < end:
            capacity *= 2
        capacity = min(capacity, self.reserved)
        if _libc().mprotect(GLOBAL_BASE, capacity, PROT_READ_WRITE):
            raise OutOfMemoryError(request, self.allocated, self.limit,
                                   "the host could not back the device heap")
        init = np.zeros(capacity, dtype=np.bool_)
        init[:len(self.initialized)] = self.initialized
        self.buffer, self.initialized = self._view(capacity), init

    def contains(self, address: int) -> bool:
        """Whether `address` is in the heap's mapping (a device or managed pointer)."""
        return GLOBAL_BASE <= address < GLOBAL_BASE + len(self.buffer)


def host_mapped_heap(limit: int | None = None) -> HostMappedHeap | None:
    """The heap of a whole program, mapped at GLOBAL_BASE; None where that range is taken."""
    limit = default_memory_size() if limit is None else int(limit)
    limit = (limit + PAGE - 1) // PAGE * PAGE
    if not reserve(limit):
        return None
    return HostMappedHeap(limit)
