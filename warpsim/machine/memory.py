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
import contextlib
import os
import sys
import threading

import numpy as np

from ..errors import InvalidFree, NegativeSize, OutOfMemoryError, OutsideAllocation
from .host_memory import HostRangeTable, span
from ..semantics.addresses import GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE  # noqa: F401

FUNCTION_POINTER_BASE = 0x7E00_0000_0000   # a function's address: this plus its entry block (&kernel, calls)

ALLOCATION_GAP = 256                    # unmapped bytes between allocations
HEAP_ALIGN = 256                        # every allocation starts on this boundary, as cudaMalloc's
POISON = 0xA5                           # freed bytes read back as this (as a debug allocator does)
FREED_KEPT = 4096                       # freed allocations remembered for use-after-free reports


class GlobalMemory:
    """The device heap: allocate, free, copy in and out, and checked access.

    `limit` is the device's memory size: an allocation that would take the
    heap past it (or that the host cannot back) raises OutOfMemoryError and
    changes nothing. Freed blocks merge with their free neighbours (and with
    the unused end of the heap); an allocation takes the smallest hole that
    fits (bisect over holes sorted by size), so its cost does not grow with
    the number of live arrays. Freed bytes are poisoned and the allocation is
    remembered (`freed_allocation`), so an access after free is reported as
    one, naming what was freed.

    `initialized` tracks which bytes were ever written (host or device), for
    initcheck; `empty()` allocations start uninitialized.

    `lock` is held by every host-side operation and by a whole launch
    (Device.lock is the same lock): growing the heap replaces `buffer`, so an
    allocation made while a kernel runs would lose the kernel's writes, and
    two threads allocating at once would hand out the same hole.

    `host` holds registered host ranges (machine/host_memory.py): host memory
    the device addresses in place, at its own host addresses. `resolve` turns
    device addresses into bytes for every executor: heap lanes index `buffer`
    as always; only an access with lanes outside the heap looks at the ranges.
    """

    # Bytes of the pages a GPU maps device memory in, or None. None (warpsim's default): an access
    # outside every live allocation faults. A whole CUDA program (warpsim.runtime) sets the GPU's
    # 2 MiB: an access inside the pages that hold a live allocation reaches the bytes there
    # (padding or a neighbouring allocation) without a fault, as on the GPU (in_mapped_pages).
    mapped_page_bytes: int | None = None
    # Bytes at the heap's start that hold the driver's own memory in a CUDA program (reserve_driver_bytes):
    # mapped, never handed out; an access there is a stray read or write a GPU does not fault on.
    driver_bytes: int = 0

    def __init__(self, capacity: int = 1 << 20, limit: int | None = None):
        self.lock = threading.RLock()
        self.limit = int(limit) if limit is not None else default_memory_size()
        self.buffer = np.zeros(capacity, dtype=np.uint8)
        self.initialized = np.zeros(capacity, dtype=np.bool_)
        self.live: dict[int, int] = {}          # offset -> size of live allocations
        self.spans: dict[int, int] = {}         # offset -> bytes reserved (size, rounded, + gap)
        self.origins: dict[int, str] = {}       # offset -> where the host allocated it
        self.freed: dict[int, tuple] = {}       # offset -> (size, allocated at, freed at), oldest first
        self._holes_by_size: list[tuple[int, int]] = []   # (size, offset), sorted
        self._hole_at: dict[int, int] = {}      # hole offset -> size
        self._hole_ending: dict[int, int] = {}  # hole end -> hole offset (to merge with a left neighbour)
        self.top = ALLOCATION_GAP
        self._starts = np.zeros(0, dtype=np.uint64)
        self._ends = np.zeros(0, dtype=np.uint64)
        self._sorted_starts: list[int] = []     # live offsets, sorted (host copies find theirs by bisect)
        self._index_dirty = True
        self._last_hit = (1, 0)                 # [start, end) of the allocation check_heap found last
        self._recent = (-1, 0, np.int64(-1))    # (offset, size, offset) of the allocation heap_offsets found last
        self._heap_busy = False
        self._deferred_frees: list[int] = []    # frees that arrived while the heap was mid-update
        self.host = HostRangeTable()            # registered host ranges (device address == host address)

    @property
    def allocated(self) -> int:
        """Bytes the live allocations hold."""
        return sum(self.live.values())

    # ------------------------------------------------------------ allocation

    def allocate(self, nbytes: int, align: int = HEAP_ALIGN, initialized: bool = False) -> int:
        with self.lock, self._updating_heap():
            size = max(int(nbytes), 1)
            align = max(HEAP_ALIGN, int(align))
            span = _round_up(size, HEAP_ALIGN) + ALLOCATION_GAP
            offset = self._take_hole(span, align)
            if offset is None and self.host:
                self._refuse_over_host_range(_round_up(self.top, align), span, size)
            if offset is None:
                offset = _round_up(self.top, align)
                self._ensure(offset + span, size)       # raises before anything changed
                if offset > self.top:
                    self._add_hole(self.top, offset - self.top)
                self.top = offset + span
            if self.mapped_page_bytes:          # the whole pages a GPU maps for it are backed too
                self._ensure(min(_round_up(offset + span, self.mapped_page_bytes), self.limit), size)
            self.live[offset] = size
            self.spans[offset] = span
            self.origins[offset] = _host_caller()
            bisect.insort(self._sorted_starts, offset)
            self.initialized[offset:offset + size] = initialized
            self._index_dirty = True
            return GLOBAL_BASE + offset

    def reserve_driver_bytes(self, nbytes: int) -> None:
        """Keep the heap's first `nbytes` for the driver, before any allocation: a GPU's context holds
        memory of its own below a program's first cudaMalloc (an H100 put that at 0x7f3009e00000, a
        2 MiB boundary, and a read 1 KB before it did not fault), so allocations start past it."""
        with self.lock:
            if self.live or self.top > ALLOCATION_GAP:
                return
            self._ensure(nbytes, nbytes)
            self.top = self.driver_bytes = int(nbytes)

    def _refuse_over_host_range(self, offset: int, span: int, size: int):
        """The heap's device addresses must not reach a registered host range's."""
        found = self.host.overlapping(GLOBAL_BASE + offset, GLOBAL_BASE + offset + span)
        if found is not None:
            raise OutOfMemoryError(size, self.allocated, self.limit,
                                   f"the heap would grow over the registered {found.describe()}")

    # ------------------------------------------------------------ host ranges

    def register_host(self, base: int, nbytes: int, label: str = "", view=None):
        """Make [base, base + nbytes) of this process's memory addressable by kernels at base itself
        (as cudaHostRegister does with unified addressing). Refused over the heap's addresses."""
        with self.lock:
            base, nbytes = int(base), int(nbytes)
            heap_end = GLOBAL_BASE + max(self.top, len(self.buffer))
            if base < heap_end and GLOBAL_BASE < base + max(nbytes, 1):
                raise ValueError(f"host range of {nbytes} bytes at 0x{base:x} lies over the device heap's "
                                 f"addresses [0x{GLOBAL_BASE:x}, 0x{heap_end:x})")
            return self.host.add(base, nbytes, label, view)

    def unregister_host(self, base: int) -> None:
        with self.lock:
            self.host.remove(base)

    def free(self, address: int):
        with self.lock:
            if self._heap_busy:         # the garbage collector freed an array inside allocate/free
                self._deferred_frees.append(address)
                return
            with self._updating_heap():
                self._free_now(address)

    @contextlib.contextmanager
    def _updating_heap(self):
        """Mark the hole lists as mid-update; frees that arrive meanwhile wait until it ends.

        An array's memory is freed by a finalizer, which the garbage collector may run
        inside allocate() or free() on the same thread (the lock is re-entrant): freeing
        then would merge holes under _take_hole's feet and could hand out one hole twice.
        """
        self._heap_busy = True
        try:
            yield
        finally:
            self._heap_busy = False
        while self._deferred_frees:
            self.free(self._deferred_frees.pop())

    def _free_now(self, address: int):
        offset = address - GLOBAL_BASE
        size = self.live.pop(offset, None)
        if size is None:
            why = self._what_is_at(address).replace("a use after free", "freed already", 1)
            raise InvalidFree(f"free of 0x{address:x}, which is not a live allocation: {why}",
                              operation="free", address=address)
        span = self.spans.pop(offset)
        del self._sorted_starts[bisect.bisect_left(self._sorted_starts, offset)]
        self.buffer[offset:offset + size] = POISON
        self.initialized[offset:offset + size] = False
        self.freed.pop(offset, None)       # re-inserted last: the newest record
        self.freed[offset] = (size, self.origins.pop(offset, ""), _host_caller())
        if len(self.freed) > FREED_KEPT:
            del self.freed[next(iter(self.freed))]
        self._release(offset, span)
        self._index_dirty = True

    def freed_allocation(self, address: int):
        """(start address, size, allocated at, freed at) of the freed allocation that held
        address, or None (also when a live allocation has reused any of its bytes since)."""
        offset = address - GLOBAL_BASE
        for start, (size, allocated_at, freed_at) in reversed(self.freed.items()):
            end = start + _round_up(size, HEAP_ALIGN)
            if start <= offset < end:
                return None if self._reused(start, end) else (GLOBAL_BASE + start, size,
                                                              allocated_at, freed_at)
        return None

    def _what_is_at(self, address: int) -> str:
        """Why an address is not a live allocation's start, naming the allocation it lies in,
        the freed one it belonged to, or the nearest live one below it."""
        offset = address - GLOBAL_BASE
        start = self._live_at_or_below(offset)
        if start is not None and offset < start + self.live[start]:
            return f"it is {offset - start} bytes into {self.describe_live(start)}"
        freed = self.freed_allocation(address)
        if freed is not None:
            return f"a use after free: {describe_freed(freed)}"
        if start is None:
            return "no allocation holds it (none lies below it)"
        end = GLOBAL_BASE + start + self.live[start]
        return (f"no allocation holds it (the nearest below is {self.describe_live(start)}, "
                f"ending at 0x{end:x})")

    def describe_live(self, offset: int) -> str:
        """'the 16-byte allocation at 0x... (allocated at a.py:3)' of the live one at offset."""
        origin = self.origins.get(offset, "")
        text = f"the {self.live[offset]}-byte allocation at 0x{GLOBAL_BASE + offset:x}"
        return f"{text} (allocated at {origin})" if origin else text

    def _live_at_or_below(self, offset: int):
        """The start offset of the live allocation that starts at or below offset, or None."""
        k = bisect.bisect_right(self._sorted_starts, offset) - 1
        return self._sorted_starts[k] if k >= 0 else None

    def _reused(self, start: int, end: int) -> bool:
        """Whether a live allocation's bytes overlap [start, end)."""
        k = bisect.bisect_left(self._sorted_starts, end) - 1
        if k < 0:
            return False
        live = self._sorted_starts[k]
        return live + self.spans[live] > start

    def _take_hole(self, span: int, align: int):
        """The smallest hole that holds span bytes at the alignment (its rest stays a hole)."""
        k = bisect.bisect_left(self._holes_by_size, (span, -1))
        while k < len(self._holes_by_size):
            size, start = self._holes_by_size[k]
            aligned = _round_up(start, align)
            if aligned + span <= start + size:
                self._remove_hole(start)
                if aligned > start:
                    self._add_hole(start, aligned - start)
                if start + size > aligned + span:
                    self._add_hole(aligned + span, start + size - (aligned + span))
                return aligned
            k += 1                      # only a larger alignment than the heap's can skip a hole
        return None

    def _release(self, offset: int, span: int):
        """A freed span becomes a hole, merged with the holes on either side and the heap's end."""
        left = self._hole_ending.get(offset)
        if left is not None:
            span += offset - left
            self._remove_hole(left)
            offset = left
        right = self._hole_at.get(offset + span)
        if right is not None:
            self._remove_hole(offset + span)
            span += right
        if offset + span >= self.top:
            self.top = offset           # the heap's unused end grows back
        else:
            self._add_hole(offset, span)

    def _add_hole(self, offset: int, size: int):
        bisect.insort(self._holes_by_size, (size, offset))
        self._hole_at[offset] = size
        self._hole_ending[offset + size] = offset

    def private_copies(self, length: int) -> tuple:
        """Copies of the first `length` bytes of the buffer and of `initialized`, for a run whose
        writes must not reach this memory (a heap in a memory file gives copy-on-write ones)."""
        return self.buffer[:length].copy(), self.initialized[:length].copy()

    def _remove_hole(self, offset: int):
        size = self._hole_at.pop(offset)
        del self._hole_ending[offset + size]
        del self._holes_by_size[bisect.bisect_left(self._holes_by_size, (size, offset))]

    def _ensure(self, end: int, request: int):
        """Grow the backing buffer to `end` bytes, or raise OutOfMemoryError changing nothing."""
        if end <= len(self.buffer):
            return
        if end > self.limit:
            raise OutOfMemoryError(request, self.allocated, self.limit)
        capacity = len(self.buffer)
        while capacity < end:
            capacity *= 2
        capacity = min(capacity, max(end, self.limit))
        try:
            grown = np.zeros(capacity, dtype=np.uint8)
            init = np.zeros(capacity, dtype=np.bool_)
        except MemoryError:
            raise OutOfMemoryError(request, self.allocated, self.limit,
                                   "the host could not back the device heap") from None
        grown[:len(self.buffer)] = self.buffer
        init[:len(self.initialized)] = self.initialized
        self.buffer, self.initialized = grown, init

    # ------------------------------------------------------------ host copies

    def write_bytes(self, address: int, data, operation: str = "host copy") -> None:
        with self.lock:
            raw = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) \
                else np.ascontiguousarray(data).view(np.uint8).ravel()
            target, offset, init = self._host_range(address, raw.size, operation)
            target[offset:offset + raw.size] = raw
            init[offset:offset + raw.size] = True

    def read_bytes(self, address: int, nbytes: int, operation: str = "host copy") -> np.ndarray:
        with self.lock:
            target, offset, _ = self._host_range(address, nbytes, operation)
            return target[offset:offset + nbytes].copy()

    def read_into(self, address: int, out: np.ndarray, operation: str = "host copy") -> None:
        """read_bytes into `out` (bytes the caller owns, such as host memory), with no copy between:
        a fresh array of a large copy costs more in page faults than the copy itself."""
        with self.lock:
            target, offset, _ = self._host_range(address, out.size, operation)
            out[...] = target[offset:offset + out.size]

    def copy_within(self, destination: int, source: int, nbytes: int, operation: str = "device copy") -> None:
        """Copy `nbytes` from one device address to another (each checked as write_bytes and
        read_bytes check theirs), with no copy between where they do not overlap."""
        with self.lock:
            source_bytes, source_offset, _ = self._host_range(source, nbytes, operation)
            target, offset, init = self._host_range(destination, nbytes, operation)
            np.copyto(target[offset:offset + nbytes], source_bytes[source_offset:source_offset + nbytes])
            init[offset:offset + nbytes] = True

    def memset(self, address: int, value: int, nbytes: int) -> None:
        with self.lock:
            target, offset, init = self._host_range(address, nbytes, "memset")
            target[offset:offset + nbytes] = value & 0xFF
            init[offset:offset + nbytes] = True

    def _host_range(self, address: int, nbytes: int, operation: str):
        """(bytes, offset, initialized flags) of a host copy or memset, checked against the
        allocation or registered host range holding them (a host range's flags are a throwaway:
        host bytes count as written). Refused as the driver refuses it (CUDA_ERROR_INVALID_VALUE):
        NegativeSize, or OutsideAllocation naming the allocation or range it falls out of."""
        nbytes = int(nbytes)
        if nbytes < 0:
            raise NegativeSize(f"{operation} of {nbytes} bytes at 0x{address:x}: a size cannot be "
                               f"negative (CUDA's size_t would make it {nbytes % (1 << 64):,} bytes)",
                               operation=operation, address=address, size=nbytes)
        offset = address - GLOBAL_BASE
        start = self._live_at_or_below(offset)
        inside = start is not None and offset < start + self.live[start]
        if nbytes and not (inside and offset + nbytes <= start + self.live[start]):
            host = self.host.find(address) if self.host else None
            if host is not None and address + nbytes <= host.base + host.nbytes:
                return host.view, address - host.base, np.zeros(host.nbytes, dtype=np.bool_)
            if inside:
                past = offset + nbytes - (start + self.live[start])
                why = f"runs {past} bytes past the end of {self.describe_live(start)}"
            elif host is not None:
                past = address + nbytes - (host.base + host.nbytes)
                why = (f"is outside any allocation: it runs {past} bytes past the end of the "
                       f"registered {host.describe()}")
            else:
                why = self._what_is_at(address)
                why = f"is {why}" if why.startswith("a use after free") else f"is outside any allocation: {why}"
            raise OutsideAllocation(f"{operation} of {nbytes} bytes at 0x{address:x} {why}",
                                    operation=operation, address=address, size=nbytes)
        return self.buffer, offset, self.initialized

    # ------------------------------------------------------------ device access

    def _index(self):
        if self._index_dirty:
            # the garbage collector may free an array (a finalizer) while this runs: the index is
            # made from one copy of the live table (no finalizer runs inside dict.copy), and such
            # a free marks it out of date again
            self._index_dirty = False
            live = self.live.copy()
            starts = sorted(live)
            self._starts = np.array(starts, dtype=np.uint64)
            self._ends = np.array([s + live[s] for s in starts], dtype=np.uint64)
            self._last_hit = (1, 0)             # the allocation may be gone
        return self._starts, self._ends

    def heap_offsets(self, addresses: np.ndarray, size: int):
        """Each lane's byte offset into the heap's buffer (int64) when every lane's access of `size`
        bytes (a power of two) lies inside one live allocation and is aligned to `size`; None
        otherwise, and then resolve() checks lane by lane (and says which lanes fault).

        One OR over the offsets from the allocation's start answers both: it is at least the largest
        of them, and its low bits are clear only if every one is aligned (allocations start on
        HEAP_ALIGN boundaries). The allocation is the one holding the first lane (the one the last
        access found, most often)."""
        if size & (size - 1) or size > HEAP_ALIGN or not addresses.size:
            return None
        offsets = addresses.view(np.int64) - _HEAP_BASE      # (heap addresses are below 2**63)
        lane = int(offsets[0])
        first, length, start = self._recent
        if not (first <= lane < first + length and self.live.get(first) == length):
            k = bisect.bisect_right(self._sorted_starts, lane) - 1
            if k < 0:
                return None
            first = self._sorted_starts[k]
            length, start = self.live[first], np.int64(first)
            self._recent = (first, length, start)
        relative = offsets - start          # (a lane below the start sets the sign of the OR)
        spread = int(_bitwise_or(relative, axis=None))
        if spread < 0 or spread & (size - 1):
            return None
        if spread <= length - size or int(_maximum(relative, axis=None)) <= length - size:
            return offsets
        return None

    def resolve(self, addresses: np.ndarray, size: int):
        """(ok, bytes, offsets) of a device access of `size` bytes per lane: ok where
        [address, address+size) lies inside one live allocation or one registered host range,
        and each lane's byte offset into `bytes` (the heap's buffer when no lane is outside
        the heap; else a view over the physical bytes of the heap and the ranges touched)."""
        addresses = addresses.astype(np.uint64, copy=False)
        offsets = (addresses - np.uint64(GLOBAL_BASE)).astype(np.int64)
        ok = self.check_heap(addresses, size)
        if not self.host or ok.all():
            return ok, self.buffer, offsets
        host, k = self.host.lanes(addresses, size)
        host &= ~ok
        if not host.any():
            return ok, self.buffer, offsets
        heap_start = np.uint64(self.buffer.__array_interface__["data"][0])
        physical = np.where(host, self.host.physical(addresses, k), heap_start + offsets.astype(np.uint64))
        ok = ok | host
        view, offsets = span(physical, ok, size)
        return ok, view, offsets

    def check(self, addresses: np.ndarray, size: int) -> np.ndarray:
        """True where [address, address+size) lies inside one live allocation or host range."""
        return self.resolve(addresses, size)[0]

    def mark_written(self, addresses: np.ndarray, nbytes: int) -> None:
        """initcheck's flags for a device write of nbytes per lane that resolved outside the heap's
        buffer: the heap lanes among them get theirs (host bytes need none)."""
        heap = self.check_heap(addresses, nbytes)
        offsets = (addresses[heap].astype(np.uint64) - np.uint64(GLOBAL_BASE)).astype(np.int64)
        self.initialized[offsets[:, None] + np.arange(nbytes)] = True

    def in_mapped_pages(self, addresses: np.ndarray, size: int) -> np.ndarray:
        """True where [address, address+size) lies in pages (mapped_page_bytes each) that hold a
        live allocation, or in the driver's bytes, and in the heap's backing bytes: where a GPU
        would not fault. All False when mapped_page_bytes is None."""
        page = self.mapped_page_bytes
        if not page or not self.live:
            return np.zeros(addresses.shape, dtype=bool)
        starts, ends = self._index()
        first_pages = starts // np.uint64(page)
        last_pages = (ends - np.uint64(1)) // np.uint64(page)
        offs = addresses.astype(np.int64) - np.int64(GLOBAL_BASE)
        inside = (offs >= 0) & (offs + size <= len(self.buffer))
        safe = np.where(inside, offs, 0).astype(np.uint64)
        mapped = np.ones(addresses.shape, dtype=bool)
        for byte in (safe, safe + np.uint64(size - 1)):    # both ends of the access
            lane_page = byte // np.uint64(page)
            k = np.searchsorted(first_pages, lane_page, side="right").astype(np.int64) - 1
            # pages are mapped where some allocation starting at or below holds them; allocations
            # are sorted by start, so the one with the latest last page among them decides
            reach = np.maximum.accumulate(last_pages) if len(last_pages) else last_pages
            mapped &= ((k >= 0) & (lane_page <= reach[np.maximum(k, 0)])) | (byte < np.uint64(self.driver_bytes))
        return inside & mapped

    def tolerated(self, addresses: np.ndarray, size: int, ok: np.ndarray) -> np.ndarray:
        """The lanes outside `ok` that a GPU does not fault on: aligned accesses in the pages mapped
        for a live allocation (in_mapped_pages). Both executors add them to their checked lanes."""
        from ..semantics.addresses import aligned
        if not self.mapped_page_bytes:
            return np.zeros(addresses.shape, dtype=bool)
        return ~ok & aligned(addresses, size) & self.in_mapped_pages(addresses, size)

    def in_one_allocation(self, lowest: int, end: int) -> bool:
        """Whether the device bytes [lowest, end) lie inside one live allocation: check_heap's fast
        path, for a caller that found its lanes' lowest address and its highest access's end."""
        lo, end = lowest - GLOBAL_BASE, end - GLOBAL_BASE
        starts, ends = self._index()
        first, last = self._last_hit
        if first <= lo and end <= last:
            return True
        if lo < 0 or not len(starts):
            return False
        k = int(starts.searchsorted(lo, side="right")) - 1
        if k >= 0 and end <= int(ends[k]):
            self._last_hit = (int(starts[k]), int(ends[k]))
            return True
        return False

    def check_heap(self, addresses: np.ndarray, size: int) -> np.ndarray:
        """True where [address, address+size) lies inside one live allocation."""
        starts, ends = self._index()
        if len(starts) and addresses.size:
            # Fast path: every lane inside the allocation that holds the lowest address
            # (the ufuncs' reduce and the method searchsorted: NumPy's wrappers cost more here).
            lo = int(np.minimum.reduce(addresses, axis=None)) - GLOBAL_BASE
            hi = int(np.maximum.reduce(addresses, axis=None)) - GLOBAL_BASE
            first, end = self._last_hit     # a launch's accesses mostly fall in the allocation before
            if first <= lo and hi + size <= end:
                return np.ones(addresses.shape, dtype=bool)
            k = int(starts.searchsorted(max(lo, 0), side="right")) - 1
            if lo >= 0 and k >= 0 and hi + size <= int(ends[k]):
                self._last_hit = (int(starts[k]), int(ends[k]))
                return np.ones(addresses.shape, dtype=bool)
        offs = addresses.astype(np.uint64) - np.uint64(GLOBAL_BASE)
        in_heap = (addresses >= GLOBAL_BASE) & (offs < np.uint64(len(self.buffer)))
        k = np.searchsorted(starts, offs, side="right").astype(np.int64) - 1
        k_safe = np.maximum(k, 0)
        if len(starts) == 0:
            return np.zeros(addresses.shape, dtype=bool)
        return in_heap & (k >= 0) & (offs >= starts[k_safe]) & (offs + np.uint64(size) <= ends[k_safe])



_HEAP_BASE = np.int64(GLOBAL_BASE)       # (a NumPy scalar: a Python int costs a conversion per use)
_bitwise_or, _maximum = np.bitwise_or.reduce, np.maximum.reduce


def describe_freed(freed) -> str:
    """'the 4096-byte allocation at 0x..., allocated at a.py:3, freed at a.py:9'."""
    start, size, allocated_at, freed_at = freed
    text = f"the {size}-byte allocation at 0x{start:x}, freed"
    if allocated_at:
        text += f" (allocated at {allocated_at}"
        text += f", freed at {freed_at})" if freed_at else ")"
    return text


# The share of the host's memory the device heap may take: each device byte is two of the host's (its
# value and its initialized flag), and the process and the system need the rest. Beyond it the kernel's
# out-of-memory killer stopped a program silently (HeCBench atomicCost: two 7.4 GB cudaMallocs on a
# 23 GB host); within it the allocation is refused with cudaErrorMemoryAllocation, which says why.
HOST_SHARE = 0.45


def default_memory_size() -> int:
    """The setting `device_memory` (the H200's 141 GB by default), capped by HOST_SHARE of the host's memory."""
    from ..settings import current
    wanted = current().device_memory
    try:
        host = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return wanted
    return min(wanted, int(host * HOST_SHARE))


def _host_caller() -> str:
    """'file.py:12' of the first frame outside warpsim: where the user allocated or freed."""
    frame = sys._getframe(2)
    while frame is not None and _is_warpsim(frame.f_code.co_filename):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else ""


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_warpsim(path: str) -> bool:
    """warpsim's own frames, and those between a freed array and its finalizer."""
    return (path.startswith(_PACKAGE_DIR) or path.startswith("<frozen")
            or os.path.basename(path) == "weakref.py")


def _round_up(x: int, align: int) -> int:
    return (x + align - 1) // align * align
