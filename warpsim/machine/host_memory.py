"""Host memory the device addresses in place: registered host ranges of GlobalMemory.

A torch CPU tensor or a NumPy array handed to a kernel is read and written
where it lies, as a GPU reads host-registered or managed memory through
unified addressing: the device address of a registered host byte IS its host
address, so a pointer needs no translation and a kernel's pointer arithmetic
across a tensor's storage works as on the GPU. Each range is (base, nbytes)
backed by a uint8 NumPy view of those bytes (`host_bytes`, no copy); a copy
of the table (the SASS replay's snapshot) keeps the addresses and backs them
by copied bytes instead.

Resolution is vectorized: `HostRangeTable.lanes` finds each lane's range
with one searchsorted, and `span` gives one uint8 view over the physical
bytes of every range (and of the heap's buffer) that an access touches, with
per-lane offsets into it. The view may span unmapped memory between them;
only checked offsets are ever indexed. The heap's own path (every lane in
the heap) never comes here.

The heap and the ranges must not overlap: a range over a live allocation's
addresses is refused, and the heap does not allocate over a range
(GlobalMemory.allocate). With `warpsim run` the heap is mapped at its own
addresses (runtime/heap.py), so no host memory can lie there.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

SPAN_ALIGN = 256                # spans start on this boundary, so offsets keep each lane's alignment


def host_bytes(address: int, nbytes: int) -> np.ndarray:
    """A writable uint8 NumPy view of `nbytes` of this process's memory at `address` (no copy)."""
    if nbytes == 0:
        return np.zeros(0, dtype=np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(address))


class _RawBytes:
    """An __array_interface__ over [address, address + nbytes): NumPy views it without copying."""

    def __init__(self, address: int, nbytes: int):
        self.__array_interface__ = {"data": (address, False), "shape": (nbytes,), "typestr": "|u1",
                                    "version": 3}


def raw_view(address: int, nbytes: int) -> np.ndarray:
    return np.asarray(_RawBytes(address, nbytes))


@dataclass
class HostRange:
    base: int               # device address == host address of its first byte
    nbytes: int
    view: np.ndarray        # uint8 bytes that back it (the host memory itself, or a snapshot's copy)
    label: str = ""         # what it is, for error messages ("torch.float32 tensor storage")

    def describe(self) -> str:
        what = f" ({self.label})" if self.label else ""
        return f"{self.nbytes}-byte host range at 0x{self.base:x}{what}"


class HostRangeTable:
    """The registered host ranges of one GlobalMemory (see the module doc)."""

    def __init__(self):
        self.ranges: dict[int, HostRange] = {}
        self._starts = np.zeros(0, dtype=np.uint64)
        self._ends = np.zeros(0, dtype=np.uint64)
        self._physical = np.zeros(0, dtype=np.uint64)      # address of each range's backing bytes
        self._sorted: list[HostRange] = []

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def add(self, base: int, nbytes: int, label: str = "", view: np.ndarray | None = None) -> HostRange:
        base, nbytes = int(base), int(nbytes)
        if base <= 0 or nbytes < 0:
            raise ValueError(f"host range of {nbytes} bytes at 0x{base:x}: not a host address")
        for other in self.ranges.values():
            if base < other.base + other.nbytes and other.base < base + nbytes:
                raise ValueError(f"host range of {nbytes} bytes at 0x{base:x} overlaps the registered "
                                 f"{other.describe()}")
        found = self.ranges[base] = HostRange(base, nbytes, host_bytes(base, nbytes) if view is None else view,
                                              label)
        self._reindex()
        return found

    def remove(self, base: int) -> None:
        if self.ranges.pop(int(base), None) is None:
            raise ValueError(f"0x{int(base):x} is not the base of a registered host range")
        self._reindex()

    def _reindex(self):
        self._sorted = sorted(self.ranges.values(), key=lambda r: r.base)
        self._starts = np.array([r.base for r in self._sorted], dtype=np.uint64)
        self._ends = np.array([r.base + r.nbytes for r in self._sorted], dtype=np.uint64)
        self._physical = np.array([_address_of(r.view) for r in self._sorted], dtype=np.uint64)

    def overlapping(self, start: int, end: int):
        """The registered range overlapping [start, end), or None."""
        k = int(np.searchsorted(self._starts, np.uint64(end), side="left")) - 1
        if k >= 0 and int(self._ends[k]) > start:
            return self._sorted[k]
        return None

    def find(self, address: int):
        """The range holding address (its end included, for an empty range's pointer), or None."""
        k = int(np.searchsorted(self._starts, np.uint64(address), side="right")) - 1
        if k >= 0 and address <= int(self._ends[k]):
            return self._sorted[k]
        return None

    def nearest(self, address: int):
        """The range closest to address, with its distance (0 inside), or (None, None)."""
        best, distance = None, None
        for r in self._sorted:
            d = r.base - address if address < r.base else max(0, address - (r.base + r.nbytes) + 1)
            if best is None or d < distance:
                best, distance = r, d
        return best, distance

    def lanes(self, addresses: np.ndarray, size: int):
        """(inside, k): per lane whether [address, address + size) lies in one range, and which."""
        k = np.searchsorted(self._starts, addresses, side="right").astype(np.int64) - 1
        k_safe = np.maximum(k, 0)
        inside = (k >= 0) & (addresses + np.uint64(size) <= self._ends[k_safe])
        return inside, k_safe

    def physical(self, addresses: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Where each lane's byte lies in this process (its range's backing bytes)."""
        return self._physical[k] + (addresses - self._starts[k])

    def copy(self, scratch: dict | None = None) -> "HostRangeTable":
        """The same ranges backed by copies of their bytes (each copy keeps its range's alignment
        modulo SPAN_ALIGN, so vector accesses resolve as on the original). scratch: arrays kept
        from an earlier copy whose table is no longer used, refilled rather than allocated anew
        (a fresh array of a large range costs more in page faults than the copy)."""
        table = HostRangeTable()
        for r in self._sorted:
            table.ranges[r.base] = HostRange(r.base, r.nbytes, aligned_copy(r.view, r.base, scratch), r.label)
        table._reindex()
        if scratch is not None:                 # ranges unregistered since: their arrays go
            for key in set(scratch) - {(r.base, r.view.size) for r in self._sorted}:
                del scratch[key]
        return table


def span(lanes_physical: np.ndarray, good: np.ndarray, size: int):
    """(uint8 view over the physical bytes the good lanes touch, each lane's offset into it).
    Bad lanes get offset 0 (they fault before anything is read)."""
    chosen = lanes_physical[good] if not good.all() else lanes_physical
    low = int(chosen.min()) // SPAN_ALIGN * SPAN_ALIGN
    high = int(chosen.max()) + size
    length = -(-(high - low) // 16) * 16        # any dtype's view takes it
    offsets = np.where(good, lanes_physical - np.uint64(low), np.uint64(0)).astype(np.int64)
    return raw_view(low, length), offsets


def aligned_copy(view: np.ndarray, base: int, scratch: dict | None = None) -> np.ndarray:
    """A copy of view's bytes at an address congruent to base modulo SPAN_ALIGN (in scratch's array
    for the same range, kept there, where scratch is given)."""
    raw = scratch.get((base, view.size)) if scratch is not None else None
    if raw is None:
        raw = np.empty(view.size + SPAN_ALIGN, dtype=np.uint8)
        if scratch is not None:
            scratch[(base, view.size)] = raw
    shift = (base - _address_of(raw)) % SPAN_ALIGN
    out = raw[shift:shift + view.size]
    out[:] = view
    return out


def _address_of(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0]) if array.size else 0
