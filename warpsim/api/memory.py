"""Device memory as CuPy hands it out: allocations, pointers, the allocator, the memory pools.

Every device array's memory comes from the current allocator (`alloc`), as in
CuPy: by default the device memory pool, which counts what it hands out
(`used_bytes`) and honours `set_limit`. Difference from CuPy, said once: the
simulated heap frees an allocation as soon as nothing refers to it, so the
pool keeps no cached blocks (`free_bytes()` is 0 and `free_all_blocks()` has
nothing to release). Managed memory (`malloc_managed`) is ordinary simulated
device memory; pinned memory (`PinnedMemoryPool`, `alloc_pinned_memory`) is
host memory a NumPy array can view.

Which device: the one installed by `use_device(device)` around the call, else
`warpsim.machine.device.default_device()`.
"""

from __future__ import annotations

import contextlib
import contextvars
import operator
import threading
import weakref

import numpy as np

from ..errors import HostBufferTooSmall, NegativeSize, OutOfMemoryError

__all__ = ["current_device", "use_device", "Memory", "ManagedMemory", "UnownedMemory",
           "MemoryPointer", "MemoryPool", "PinnedMemory", "PinnedMemoryPointer",
           "PinnedMemoryPool", "alloc", "malloc_managed", "set_allocator", "get_allocator",
           "using_allocator", "get_default_memory_pool", "alloc_pinned_memory",
           "set_pinned_memory_allocator", "get_default_pinned_memory_pool", "OutOfMemoryError"]

# --- which device ------------------------------------------------------------

_device_in_use: contextvars.ContextVar = contextvars.ContextVar("warpsim_device", default=None)


def current_device():
    """The device new arrays and modules go to (see `use_device`)."""
    device = _device_in_use.get()
    if device is not None:
        return device
    global _default_device
    if _default_device is None:
        from ..machine.device import default_device  # lazy: the machine imports heavy modules
        _default_device = default_device
    return _default_device()


_default_device = None     # machine.device.default_device, once current_device first needs it


@contextlib.contextmanager
def use_device(device):
    """Run a block against `device` instead of the default one (like `with cupy.cuda.Device(n):`)."""
    token = _device_in_use.set(device)
    try:
        yield device
    finally:
        _device_in_use.reset(token)


# --- allocations and pointers --------------------------------------------------

class Memory:
    """One device allocation, freed when no array or pointer refers to it any more."""

    def __init__(self, device, size: int):
        self.device, self.size = device, size
        self.ptr = device.memory.allocate(max(size, 1))
        finalizer = weakref.finalize(self, device.memory.free, self.ptr)
        finalizer.atexit = False  # the device may be gone at interpreter exit

    device_id = property(lambda self: 0)


class ManagedMemory(Memory):
    """cudaMallocManaged's memory: on the simulated machine, device memory like any other."""

    def prefetch(self, stream=None) -> None:
        """Nothing to move: the simulated device and the host read the same heap."""

    def advise(self, advise: int, device=None) -> None:
        """Accepted; the simulated heap has no pages to place."""


class UnownedMemory:
    """Device memory owned by someone else (a foreign array, a module global); never freed here."""

    def __init__(self, ptr: int, size: int, owner, device=None):
        self.ptr, self.size, self.owner = int(ptr), size, owner
        self.device = device if device is not None else current_device()

    device_id = property(lambda self: 0)


class MemoryPointer:
    """An address inside a device allocation, as CuPy's `ndarray.data` and `memory.alloc`'s result."""

    def __init__(self, mem, offset: int = 0):
        self.mem, self.ptr = mem, mem.ptr + offset

    device = property(lambda self: self.mem.device)
    device_id = property(lambda self: 0)

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self.mem, self.ptr - self.mem.ptr + operator.index(offset))

    def __sub__(self, offset: int) -> "MemoryPointer":
        return self + (-operator.index(offset))

    def __iadd__(self, offset: int) -> "MemoryPointer":
        return self + offset

    def __bool__(self) -> bool:
        return self.ptr != 0

    # CuPy's copies through a pointer (synchronous here: launches run in order anyway). A range
    # outside the allocation raises warpsim.errors.OutsideAllocation, a CUDARuntimeError naming
    # cudaErrorInvalidValue as CuPy's cudaMemcpy does; a negative size NegativeSize, an
    # OverflowError as CuPy's conversion to size_t is.
    def copy_from_device(self, src: "MemoryPointer", size: int) -> None:
        size = checked_size(size, "device copy", self.ptr)
        heap = self.device.memory
        data = np.array(heap.read_bytes(int(src), size, "device copy (source)"), dtype=np.uint8)
        heap.write_bytes(self.ptr, data, "device copy (destination)")

    def copy_from_host(self, mem, size: int) -> None:
        size = checked_size(size, "host copy", self.ptr)
        self.device.memory.write_bytes(self.ptr, _host_bytes(mem, size, self.ptr))

    def copy_from(self, mem, size: int) -> None:
        if isinstance(mem, MemoryPointer):
            self.copy_from_device(mem, size)
        else:
            self.copy_from_host(mem, size)

    def copy_to_host(self, mem, size: int) -> None:
        size = checked_size(size, "host copy", self.ptr)
        data = np.asarray(self.device.memory.read_bytes(self.ptr, size), dtype=np.uint8)
        _host_view(mem, size, self.ptr)[...] = data

    def memset(self, value: int, size: int) -> None:
        size = checked_size(size, "memset", self.ptr)
        self.device.memory.memset(self.ptr, int(value) & 0xFF, size)

    copy_from_device_async = copy_from_device
    copy_from_host_async = copy_from_host
    copy_from_async = copy_from
    copy_to_host_async = copy_to_host
    memset_async = memset

    def __repr__(self) -> str:
        return f"<MemoryPointer 0x{self.ptr:x}>"


def checked_size(size, operation: str, address: int) -> int:
    """A copy's size as CUDA's size_t: a negative one is refused before anything is touched."""
    size = operator.index(size)
    if size < 0:
        raise NegativeSize(f"{operation} of {size} bytes at 0x{address:x}: can't convert negative "
                           f"value to size_t", operation=operation, address=address, size=size)
    return size


def _host_view(mem, size: int, device_address: int) -> np.ndarray:
    """The first `size` bytes of host memory given as a NumPy array, a buffer or an address;
    HostBufferTooSmall when an array or buffer holds fewer (an address cannot be checked)."""
    if isinstance(mem, (int, np.integer)) or hasattr(mem, "value"):   # an address, as ctypes gives it
        import ctypes
        address = mem if isinstance(mem, (int, np.integer)) else mem.value
        return np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(int(address)))
    if isinstance(mem, PinnedMemoryPointer):
        view = mem.host_bytes()
    elif isinstance(mem, np.ndarray):
        view = mem.reshape(-1).view(np.uint8)
    else:
        view = np.frombuffer(memoryview(mem).cast("B"), np.uint8)
    if view.size < size:
        raise HostBufferTooSmall(f"copy of {size} bytes between the device at 0x{device_address:x} "
                                 f"and a host {type(mem).__name__} of {view.size} bytes")
    return view[:size]


def _host_bytes(mem, size: int, device_address: int) -> np.ndarray:
    return np.array(_host_view(mem, size, device_address), dtype=np.uint8)


# --- the allocator and the device memory pool ------------------------------------

ALLOCATION_UNIT = 512      # CuPy's pool rounds every request up to 512 bytes


class MemoryPool:
    """CuPy's device memory pool: malloc, used_bytes, total_bytes, set_limit, free_all_blocks.

    It counts the bytes its live allocations hold (rounded to 512 as CuPy's)
    and refuses one past its limit with OutOfMemoryError. It caches nothing:
    freed memory goes back to the simulated heap at once (so free_bytes() is 0).
    """

    def __init__(self, allocator=None):
        self._allocator = allocator
        self._used, self._limit, self._lock = 0, 0, threading.Lock()

    def malloc(self, size: int) -> MemoryPointer:
        size = operator.index(size)
        rounded = -(-max(size, 1) // ALLOCATION_UNIT) * ALLOCATION_UNIT
        with self._lock:
            if self._limit and self._used + rounded > self._limit:
                raise OutOfMemoryError(rounded, self._used, self._limit, "the memory pool's set_limit")
            self._used += rounded
        try:
            # The heap gets the exact size, so memcheck still sees a read just past the end.
            memory = self._allocator(size).mem if self._allocator else Memory(current_device(), size)
        except BaseException:
            self._release(rounded)
            raise
        finalizer = weakref.finalize(memory, self._release, rounded)
        finalizer.atexit = False
        return MemoryPointer(memory)

    def _release(self, size: int) -> None:
        with self._lock:
            self._used -= size

    def used_bytes(self) -> int:
        return self._used

    def total_bytes(self) -> int:
        return self._used

    def free_bytes(self) -> int:
        return 0

    def n_free_blocks(self) -> int:
        return 0

    def free_all_blocks(self, stream=None) -> None:
        """Nothing is cached (see the class docstring); kept for CuPy programs that call it."""

    def free_all_free(self) -> None:
        self.free_all_blocks()

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        if size is not None and fraction is not None:
            raise ValueError("Only one of size or fraction can be specified")
        if fraction is not None:
            if not 0 <= fraction <= 1:
                raise ValueError(f"fraction must be between 0 and 1, got {fraction}")
            size = int(current_device().memory.limit * fraction)
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit


_default_pool = MemoryPool()
_allocator_in_use: contextvars.ContextVar = contextvars.ContextVar("warpsim_allocator", default=None)
_allocator = _default_pool.malloc


def alloc(size: int) -> MemoryPointer:
    """Device memory from the current allocator (the default memory pool unless set_allocator)."""
    allocator = _allocator_in_use.get() or _allocator
    return allocator(operator.index(size))


def malloc_managed(size: int) -> MemoryPointer:
    """Managed memory (cudaMallocManaged): simulated device memory the host reads through .get()."""
    return MemoryPointer(ManagedMemory(current_device(), operator.index(size)))


def set_allocator(allocator=None) -> None:
    """Make `allocator` (size -> MemoryPointer) allocate every array; None: plain device memory."""
    global _allocator
    _allocator = allocator if allocator is not None else _plain_malloc


def _plain_malloc(size: int) -> MemoryPointer:
    return MemoryPointer(Memory(current_device(), size))


def get_allocator():
    return _allocator_in_use.get() or _allocator


@contextlib.contextmanager
def using_allocator(allocator=None):
    """Inside the block (this thread), `allocator` allocates; None: plain device memory."""
    token = _allocator_in_use.set(allocator if allocator is not None else _plain_malloc)
    try:
        yield
    finally:
        _allocator_in_use.reset(token)


def get_default_memory_pool() -> MemoryPool:
    return _default_pool


# --- pinned (page-locked) host memory ------------------------------------------------

class PinnedMemory:
    """Host memory a kernel cannot see (the simulated device copies through the API): a byte array."""

    def __init__(self, size: int, flags: int = 0):
        self.size = operator.index(size)
        self.buffer = np.zeros(max(self.size, 1), np.uint8)
        self.ptr = self.buffer.ctypes.data


class PinnedMemoryPointer:
    """An address in pinned host memory; `numpy.frombuffer(pointer.host_bytes(n), dtype)` views it."""

    def __init__(self, mem: PinnedMemory, offset: int = 0):
        self.mem, self.ptr = mem, mem.ptr + offset

    def host_bytes(self, size: int | None = None) -> np.ndarray:
        start = self.ptr - self.mem.ptr
        return self.mem.buffer[start:start + (self.mem.size - start if size is None else size)]

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "PinnedMemoryPointer":
        return PinnedMemoryPointer(self.mem, self.ptr - self.mem.ptr + operator.index(offset))

    def __array__(self, dtype=None, copy=None):
        data = self.host_bytes()
        return data if dtype is None else data.view(dtype)


class PinnedMemoryPool:
    """CuPy's pinned memory pool: malloc, n_free_blocks, free_all_blocks (nothing is cached)."""

    def __init__(self, allocator=None):
        self._allocator = allocator

    def malloc(self, size: int) -> PinnedMemoryPointer:
        if self._allocator is not None:
            return self._allocator(size)
        return PinnedMemoryPointer(PinnedMemory(size))

    def free_all_blocks(self) -> None:
        pass

    def n_free_blocks(self) -> int:
        return 0


_default_pinned_pool = PinnedMemoryPool()
_pinned_allocator = _default_pinned_pool.malloc


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    return _pinned_allocator(operator.index(size))


def set_pinned_memory_allocator(allocator=None) -> None:
    global _pinned_allocator
    _pinned_allocator = allocator if allocator is not None else (
        lambda size: PinnedMemoryPointer(PinnedMemory(size)))


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    return _default_pinned_pool
