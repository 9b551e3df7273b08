"""The heap of a whole program in memory files: copy-on-write copies for the timing sample."""

import mmap
import os

import numpy as np
import pytest

from warpsim.runtime.heap import memory_file, private_view

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="memory files are Linux's")


def test_a_private_view_reads_the_file_and_keeps_its_writes():
    size = 4 * mmap.PAGESIZE
    fd = memory_file("test-heap", size)
    assert fd >= 0
    try:
        shared = np.frombuffer(mmap.mmap(fd, size, flags=mmap.MAP_SHARED), dtype=np.uint8)
        data = np.random.default_rng(4).integers(0, 256, size, dtype=np.uint8)
        shared[:] = data
        copy = private_view(fd, 3 * mmap.PAGESIZE, np.uint8)
        np.testing.assert_array_equal(copy, data[:3 * mmap.PAGESIZE])       # reads what the file holds
        copy[::7] ^= 0xFF                                                    # writes stay in the copy
        np.testing.assert_array_equal(shared, data)
        assert (copy[::7] == data[:3 * mmap.PAGESIZE:7] ^ 0xFF).all()
        second = private_view(fd, 3 * mmap.PAGESIZE, np.uint8)
        np.testing.assert_array_equal(second, data[:3 * mmap.PAGESIZE])     # another copy starts clean
        flags = private_view(fd, 0, np.bool_)
        assert flags.size == 0
    finally:
        os.close(fd)
