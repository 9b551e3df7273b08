"""Device memory: the global heap, and the address windows of a launch.

Global memory is one growable byte buffer mapped at a fixed 64-bit base, so
device pointers are real 64-bit addresses and a vectorized load is a gather
from one NumPy array. Allocations are bounds-checked individually (with gaps
between them), so an access past the end of one array is reported instead of
reading its neighbour. The shared and local spaces of a launch get generic
address windows of their own, as on the hardware, so generic loads and stores
can be routed per lane.
"""

from __future__ import annotations

import bisect
import threading

import numpy as np

GLOBAL_BASE = 0x7F00_0000_0000          # where device allocations start
SHARED_WINDOW = 0x0001_0000_0000_0000   # generic address of shared offset 0
LOCAL_WINDOW = 0x0002_0000_0000_0000    # generic address of local offset 0
WINDOW_SIZE = 1 << 32
ALLOCATION_GAP = 256                    # unmapped bytes between allocations


class GlobalMemory:
    """The device heap: allocate, free, copy in and out, and checked access.

    `initialized` tracks which bytes were ever written (host or device), for
    initcheck; `empty()` allocations start uninitialized.

    `lock` is held by every host-side operation and by a whole launch
    (Device.lock is the same lock): growing the heap replaces `buffer`, so an
    allocation made while a kernel runs would lose the kernel's writes, and
    two threads allocating at once would hand out the same hole.
    """

    def __init__(self, capacity: int = 1 << 20):
        self.lock = threading.RLock()
        self.buffer = np.zeros(capacity, dtype=np.uint8)
        self.initialized = np.zeros(capacity, dtype=np.bool_)
        self.live: dict[int, int] = {}          # offset -> size of live allocations
        self._free: list[tuple[int, int]] = []  # (offset, size) holes, sorted
        self.top = ALLOCATION_GAP
        self._starts = np.zeros(0, dtype=np.uint64)
        self._ends = np.zeros(0, dtype=np.uint64)
        self._index_dirty = True

    # ------------------------------------------------------------ allocation

    def allocate(self, nbytes: int, align: int = 256, initialized: bool = False) -> int:
        with self.lock:
            size = max(int(nbytes), 1)
            span = _round_up(size, align) + ALLOCATION_GAP
            offset = self._take_hole(span, align)
            if offset is None:
                offset = _round_up(self.top, align)
                self.top = offset + span
                self._ensure(self.top)
            self.live[offset] = size
            self.initialized[offset:offset + size] = initialized
            self._index_dirty = True
            return GLOBAL_BASE + offset

    def _take_hole(self, span: int, align: int):
        for k, (start, size) in enumerate(self._free):
            aligned = _round_up(start, align)
            if aligned + span <= start + size:
                del self._free[k]
                if aligned > start:
                    bisect.insort(self._free, (start, aligned - start))
                rest = start + size - (aligned + span)
                if rest > 0:
                    bisect.insort(self._free, (aligned + span, rest))
                return aligned
        return None

    def free(self, address: int):
        with self.lock:
            offset = address - GLOBAL_BASE
            size = self.live.pop(offset, None)
            if size is None:
                raise ValueError(f"free of 0x{address:x}, which is not a live allocation")
            bisect.insort(self._free, (offset, _round_up(size, 256) + ALLOCATION_GAP))
            self._index_dirty = True

    def _ensure(self, end: int):
        if end <= len(self.buffer):
            return
        capacity = len(self.buffer)
        while capacity < end:
            capacity *= 2
        grown = np.zeros(capacity, dtype=np.uint8)
        grown[:len(self.buffer)] = self.buffer
        init = np.zeros(capacity, dtype=np.bool_)
        init[:len(self.initialized)] = self.initialized
        self.buffer, self.initialized = grown, init

    # ------------------------------------------------------------ host copies

    def write_bytes(self, address: int, data) -> None:
        with self.lock:
            raw = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) \
                else np.ascontiguousarray(data).view(np.uint8).ravel()
            offset = self._host_range(address, raw.size)
            self.buffer[offset:offset + raw.size] = raw
            self.initialized[offset:offset + raw.size] = True

    def read_bytes(self, address: int, nbytes: int) -> np.ndarray:
        with self.lock:
            offset = self._host_range(address, nbytes)
            return self.buffer[offset:offset + nbytes].copy()

    def memset(self, address: int, value: int, nbytes: int) -> None:
        with self.lock:
            offset = self._host_range(address, nbytes)
            self.buffer[offset:offset + nbytes] = value & 0xFF
            self.initialized[offset:offset + nbytes] = True

    def _host_range(self, address: int, nbytes: int) -> int:
        offset = address - GLOBAL_BASE
        ok = self.check(np.array([address], dtype=np.uint64), max(nbytes, 1))[0] if nbytes else True
        if not ok:
            raise ValueError(f"host copy of {nbytes} bytes at 0x{address:x} is outside any allocation")
        return offset

    # ------------------------------------------------------------ device access

    def _index(self):
        if self._index_dirty:
            starts = sorted(self.live)
            self._starts = np.array(starts, dtype=np.uint64)
            self._ends = np.array([s + self.live[s] for s in starts], dtype=np.uint64)
            self._index_dirty = False
        return self._starts, self._ends

    def check(self, addresses: np.ndarray, size: int) -> np.ndarray:
        """True where [address, address+size) lies inside one live allocation."""
        starts, ends = self._index()
        if len(starts) and addresses.size:
            # Fast path: every lane inside the allocation that holds the lowest address.
            lo = int(addresses.min()) - GLOBAL_BASE
            hi = int(addresses.max()) - GLOBAL_BASE
            k = int(np.searchsorted(starts, max(lo, 0), side="right")) - 1
            if lo >= 0 and k >= 0 and hi + size <= int(ends[k]):
                return np.ones(addresses.shape, dtype=bool)
        offs = addresses.astype(np.uint64) - np.uint64(GLOBAL_BASE)
        in_heap = (addresses >= GLOBAL_BASE) & (offs < np.uint64(len(self.buffer)))
        k = np.searchsorted(starts, offs, side="right").astype(np.int64) - 1
        k_safe = np.maximum(k, 0)
        if len(starts) == 0:
            return np.zeros(addresses.shape, dtype=bool)
        return in_heap & (k >= 0) & (offs >= starts[k_safe]) & (offs + np.uint64(size) <= ends[k_safe])



def _round_up(x: int, align: int) -> int:
    return (x + align - 1) // align * align
