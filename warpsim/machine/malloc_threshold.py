"""Keeping glibc's malloc from serving a batch's NumPy temporaries from fresh pages.

glibc serves a block above its mmap threshold (128 KB at start) from a new mapping, which
costs a page fault per 4 KB page at its first write (about 4 us each) and is unmapped when
freed, and it gives free memory at the top of its heap above its trim threshold (128 KB at
start) back to the system, to be faulted in again by the next launch. A batch of 65,536
threads makes every temporary 256-512 KB, above both: a plain launch of such a batch took
700-4,000 faults (3-16 ms). glibc raises both thresholds when a mapped block is freed: the
mmap threshold to its size and the trim threshold to twice that, up to 32 MB. So each batch
shape, when first made, frees one block sized by its thread count, and the temporaries of
its launches (and their register files) come from pages the process keeps. What the process
keeps is bounded by glibc: free heap above twice the threshold, 64 MB at most, is still
given back. Other allocators ignore the block.
"""

from __future__ import annotations

import numpy as np

PAGE = 4096
MMAP_THRESHOLD_MAX = 32 << 20     # glibc's DEFAULT_MMAP_THRESHOLD_MAX (64-bit): a larger block freed moves nothing
# The largest block that moves them: glibc compares the block's size field, flag bits and all, with
# 32 MB, and a block of 32 MB less one page maps 32 MB (it moved nothing: 131,072 threads, 1,500 faults).
LARGEST_BLOCK = MMAP_THRESHOLD_MAX - 2 * PAGE
BYTES_PER_THREAD = 256            # what a batch's temporaries and registers need the heap to keep, per thread slot
                                  # (measured: 65,536 threads, row_dot needs 12 MB, the others 8 MB)

_raised_to = 0                    # the largest block freed here: process-wide, as malloc's thresholds are


def raise_mmap_threshold(nbytes: int) -> None:
    """Free one block of nbytes (at most 32 MB less two pages, LARGEST_BLOCK), unless one as large was
    freed here before: blocks up to its size then come from the heap, and up to twice its size of
    free heap stays mapped."""
    global _raised_to
    nbytes = min(int(nbytes), LARGEST_BLOCK)
    if nbytes <= _raised_to:
        return
    block = np.empty(nbytes, dtype=np.uint8)
    del block                         # (untouched: a mapping's pages cost faults only when written, and its
                                      # size alone moves the thresholds)
    _raised_to = nbytes


def keep_heap_for_threads(threads: int) -> None:
    """Raise the thresholds for a batch of `threads` thread slots (BYTES_PER_THREAD each)."""
    raise_mmap_threshold(threads * BYTES_PER_THREAD)
