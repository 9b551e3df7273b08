"""Device memory as a shard receives it and as it comes back: plain arrays and byte runs.

A shard gets the heap's bytes up to its top (every live allocation, at the
same offsets) and the live-allocation table, so device pointers in the
kernel's arguments mean the same thing on the worker. What it sends back is
described by runs: sorted, disjoint [start, stop) byte ranges of the heap.
"""

from __future__ import annotations

import numpy as np

from ..machine.memory import GlobalMemory


def capture(memory) -> dict:
    """The image of a device heap a launch can read (shared, not copied: send it before changing it)."""
    return {"buffer": memory.buffer[:memory.top], "live": dict(memory.live), "top": int(memory.top)}


def image_bytes(image: dict) -> int:
    return int(image["buffer"].nbytes)


def rebuild(image: dict) -> GlobalMemory:
    """A heap of its own holding the image's bytes and allocations, for one shard to change.

    Every byte counts as initialized: initcheck runs in one process, never in shards.
    """
    top = image["top"]
    buffer = np.zeros(max(top, 1 << 12), dtype=np.uint8)
    buffer[:top] = image["buffer"]
    memory = heap_over(buffer, image["live"], top)
    memory.initialized[:] = True
    return memory


def heap_over(buffer: np.ndarray, live: dict, top: int) -> GlobalMemory:
    """A heap whose bytes are `buffer` (not copied) with these live allocations.

    Its `initialized` bytes start False and only shards use it: initcheck runs in
    one process, never in shards, so nothing reads them (and untouched pages cost nothing).
    """
    memory = GlobalMemory(capacity=8)
    memory.buffer = buffer
    memory.initialized = np.zeros(len(buffer), dtype=np.bool_)
    memory.live = dict(live)
    memory.top = top
    if hasattr(memory, "spans"):           # heaps that keep reserved spans and a sorted index
        memory.spans = {offset: size for offset, size in memory.live.items()}
    if hasattr(memory, "_sorted_starts"):
        memory._sorted_starts = sorted(memory.live)
    memory._index_dirty = True              # the allocation index is rebuilt from `live`
    return memory


# ---------------------------------------------------------------- byte runs

def runs_of(mask: np.ndarray) -> np.ndarray:
    """(n, 2) int64 [start, stop) of the True runs of a boolean array."""
    if not mask.any():
        return np.zeros((0, 2), dtype=np.int64)
    edges = np.diff(mask.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    return np.stack([np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)], axis=1).astype(np.int64)


def mask_of(runs: np.ndarray, size: int) -> np.ndarray:
    """The boolean array of `size` bytes that is True inside the runs."""
    if len(runs) <= 4096:                  # the usual case: a few arrays, set as slices
        mask = np.zeros(size, dtype=bool)
        for start, stop in runs.tolist():
            mask[start:stop] = True
        return mask
    marks = np.zeros(size + 1, dtype=np.int32)
    if len(runs):
        np.add.at(marks, runs[:, 0], 1)
        np.add.at(marks, runs[:, 1], -1)
    return np.cumsum(marks[:-1]) > 0


def gather(buffer: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The bytes of `buffer` where mask is True (mask covers the start of the buffer), in order."""
    return buffer[:len(mask)][mask]


def scatter_into(buffer: np.ndarray, mask: np.ndarray, data: np.ndarray) -> None:
    """Write data (as `gather` made it) back into buffer where mask is True."""
    buffer[:len(mask)][mask] = data
