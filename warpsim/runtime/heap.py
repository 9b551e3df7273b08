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

The heap's bytes and its `initialized` flags are files in memory (memfd), mapped
shared: `private_copies` maps them again privately, a copy-on-write copy that
costs nothing until the copy is written, and then only the pages written. The
timing model's sample of each launch runs on such a copy (runtime/calls.py,
_sass_sample); copying the whole heap instead made a program with a few hundred
MB of device and pinned memory spend seconds a launch faulting in fresh pages.
Without memfd (not Linux) the heap is anonymous memory and the copies are copies.
"""

from __future__ import annotations

import ctypes
import mmap
import os

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


def reserve(size: int, fd: int = -1) -> bool:
    """Reserve [GLOBAL_BASE, GLOBAL_BASE + size) of this process's address space, unreadable: the
    first `size` bytes of file `fd` mapped shared, or anonymous memory where fd is -1."""
    libc = _libc()
    flags = (mmap.MAP_SHARED if fd >= 0 else mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) | MAP_NORESERVE | \
        MAP_FIXED_NOREPLACE
    got = libc.mmap(GLOBAL_BASE, size, PROT_NONE, flags, fd, 0)
    if got == GLOBAL_BASE:
        return True
    if got not in (None, ctypes.c_void_p(-1).value):    # an old kernel took the address as a hint
        libc.munmap(got, size)
    return False


def memory_file(name: str, size: int) -> int:
    """A file in memory of `size` bytes (sparse: pages exist once written), or -1 without memfd."""
    try:
        fd = os.memfd_create(name)
    except (AttributeError, OSError):
        return -1
    try:
        os.ftruncate(fd, size)
    except OSError:
        os.close(fd)
        return -1
    return fd


def private_view(fd: int, length: int, dtype) -> np.ndarray:
    """The first `length` bytes of file `fd` mapped privately: a copy-on-write copy of them."""
    if not length:
        return np.zeros(0, dtype=dtype)
    mapping = mmap.mmap(fd, length, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(mapping, dtype=dtype)


class HostMappedHeap(GlobalMemory):
    """GlobalMemory whose backing bytes live at GLOBAL_BASE: device address == host address."""

    def __init__(self, limit: int, capacity: int = 1 << 24, fd: int = -1):
        super().__init__(capacity=PAGE, limit=limit)
        self.reserved = limit
        self.fd = fd                        # the heap's file in memory (-1: anonymous memory)
        self.flags_fd = memory_file("warpsim-initialized", limit) if fd >= 0 else -1
        self._flags = None if self.flags_fd < 0 else mmap.mmap(self.flags_fd, limit, flags=mmap.MAP_SHARED)
        self.buffer = self._view(0)
        self.initialized = np.zeros(0, dtype=np.bool_)
        self._ensure(capacity, 0)

    @property
    def copies_on_write(self) -> bool:
        """Whether private_copies costs nothing until written (the heap is in memory files)."""
        return self.fd >= 0 and self.flags_fd >= 0

    def private_copies(self, length: int) -> tuple:
        """Copy-on-write copies of the first `length` bytes of the heap and of its flags."""
        if not self.copies_on_write:
            return super().private_copies(length)
        return private_view(self.fd, length, np.uint8), private_view(self.flags_fd, length, np.bool_)

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
        if self._flags is not None:             # the flags' file: a longer view, the same bytes
            init = np.frombuffer(self._flags, dtype=np.bool_, count=capacity)
        else:
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
    fd = memory_file("warpsim-heap", limit)
    if not reserve(limit, fd):
        if fd >= 0:
            os.close(fd)
        return None
    return HostMappedHeap(limit, fd=fd)
