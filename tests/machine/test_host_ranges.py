"""Host blocks (torch CPU tensors' storages, NumPy arrays) registered for a launch, addressed in place."""

import numpy as np

from warpsim.machine.device import Device
from warpsim.machine.host_ranges import HostRanges, host_bytes, merged


def block_of(array):
    return array.__array_interface__["data"][0], array.nbytes


def test_merged_joins_overlapping_blocks_only():
    assert merged([(100, 50), (0, 10), (120, 100), (300, 8)]) == [(0, 10), (100, 120), (300, 8)]


def test_kernel_view_of_host_bytes_reads_and_writes_the_array_itself():
    rng = np.random.default_rng(3)
    memory = Device().memory
    a = rng.random(1000).astype(np.float32)
    b = rng.integers(0, 100, 77).astype(np.int64)
    with HostRanges(memory).launch([block_of(a), block_of(b)]) as device_address:
        da, db = device_address(block_of(a)[0]), device_address(block_of(b)[0] + 8)
        np.testing.assert_array_equal(memory.read_bytes(da, a.nbytes).view(np.float32), a)
        assert memory.read_bytes(db, 8).view(np.int64)[0] == b[1]
        memory.write_bytes(da + 4 * 10, np.float32([7.5]))          # what a kernel's store does
        expected = a.copy()
        expected[10] = 7.5
        assert da == block_of(a)[0], "a host byte's device address is its host address"
        assert memory.live == {}, "nothing is copied into the heap"
    np.testing.assert_array_equal(a, expected)
    assert not memory.host, "the launch's ranges are released after it"


def test_two_views_of_one_storage_share_one_range():
    base = np.zeros(64, dtype=np.uint8)
    first, second = base[:40], base[20:]
    memory = Device().memory
    with HostRanges(memory).launch([block_of(first), block_of(second)]) as device_address:
        assert device_address(block_of(second)[0]) - device_address(block_of(first)[0]) == 20
        assert len(memory.host.ranges) == 1 and memory.live == {}
        memory.write_bytes(device_address(block_of(second)[0]), np.uint8([9]))
    assert base[20] == 9 and host_bytes(block_of(base)[0], 64)[20] == 9

