"""The device's address map, as every executor and tier resolves addresses.

Global memory (the device heap) starts at GLOBAL_BASE; a generic address in
[SHARED_WINDOW, SHARED_WINDOW + WINDOW_SIZE) is a shared-memory offset and one
in the local window a local-memory offset, as cvta and the SASS executor's
generic loads resolve them. The PTX machine's heap, its compiled round loop
and the SASS executor take these from here, so the map has one home, and
with it the checks both executors make of every lane: which window a generic
address is in, and whether an access of a width is aligned and inside its
space (each executor words its own error from the lanes that fail).
"""

from __future__ import annotations

import numpy as np

GLOBAL_BASE = 0x7F00_0000_0000          # where device allocations start
SHARED_WINDOW = 0x0001_0000_0000_0000   # generic address of shared offset 0
LOCAL_WINDOW = 0x0002_0000_0000_0000    # generic address of local offset 0
WINDOW_SIZE = 1 << 32

GENERIC_SPACES = ("global", "shared", "local")     # generic_space's codes 0, 1, 2


def generic_space(addrs) -> np.ndarray:
    """Per lane: 0 global, 1 shared, 2 local, by the window a generic address falls in."""
    a = np.asarray(addrs).astype(np.uint64, copy=False)
    space = np.zeros(a.shape, dtype=np.int8)
    space[(a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW_SIZE))] = 1
    space[(a >= np.uint64(LOCAL_WINDOW)) & (a < np.uint64(LOCAL_WINDOW + WINDOW_SIZE))] = 2
    return space


def window_offsets(addrs, window: int) -> np.ndarray:
    """Offsets into a window's space of addresses that are either offsets already (a .shared or
    .local access) or generic addresses inside the window (cvta's results), as int64."""
    a = np.asarray(addrs).astype(np.uint64, copy=False)
    return np.where(a >= np.uint64(window), a - np.uint64(window), a).astype(np.int64)


def local_hardware_bytes(lanes, addrs, nbytes: int) -> tuple:
    """Where a warp's local accesses lie in the hardware's local memory, which interleaves the lanes
    of a warp by 4-byte word (lane l's word w at w * 128 + l * 4): (per lane and word of the access,
    the byte address in the warp's local memory, the lane's index into `lanes`, bytes each). An
    access of 8 or 16 bytes is 2 or 4 words, 128 bytes apart."""
    off = window_offsets(addrs, LOCAL_WINDOW)
    lane = (np.asarray(lanes) & 31).astype(np.int64)
    words = max(1, nbytes // 4)
    hw = ((off >> 2)[:, None] + np.arange(words)) * 128 + (lane * 4 + (off & 3))[:, None]
    return hw.ravel(), np.repeat(np.arange(len(off)), words), min(nbytes, 4)


def aligned(addrs, size: int) -> np.ndarray:
    """Per lane: the address is a multiple of the access's width (every space demands it).
    Widths are powers of two: a mask of the low bits, not a 64-bit division per lane."""
    addrs = np.asarray(addrs)
    if size & (size - 1) == 0:
        return addrs & addrs.dtype.type(size - 1) == 0
    return addrs % addrs.dtype.type(size) == 0


def inside(offsets, size: int, limit: int) -> np.ndarray:
    """Per lane: [offset, offset + size) lies in a space of `limit` bytes and is aligned to size."""
    offsets = np.asarray(offsets, dtype=np.int64)
    multiple = offsets & (size - 1) == 0 if size & (size - 1) == 0 else offsets % size == 0
    return (offsets >= 0) & (offsets + size <= limit) & multiple
