"""The device heap as a real device's allocator: a size limit, out-of-memory that
changes nothing, merged free blocks, and use-after-free named as such."""

import gc

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.arrays import use_device
from warpsim.errors import MemoryFault, OutOfMemoryError
from warpsim.machine.device import Device
from warpsim.machine.memory import GLOBAL_BASE, GlobalMemory

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

COPY = HEADER + r"""
.visible .entry copy(.param .u64 src, .param .u64 dst)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    st.global.u32 [%rd5], %r2;
    ret;
}
"""


def _state(memory):
    return (memory.top, dict(memory.live), len(memory.buffer), list(memory._holes_by_size))


def test_a_failed_huge_allocation_changes_nothing_and_later_ones_work():
    memory = cp.zeros(1).device.memory
    before = _state(memory)
    with pytest.raises(OutOfMemoryError) as caught:
        cp.zeros(10**12)
    assert isinstance(caught.value, MemoryError)            # what `except MemoryError` expects
    assert "8,000,000,000,000 bytes" in str(caught.value) and "device memory" in str(caught.value)
    assert _state(memory) == before
    assert np.array_equal(cp.zeros(10).get(), np.zeros(10))


def test_device_memory_size_is_a_setting_and_a_device_argument():
    small = Device(memory_size=4 << 20)
    with use_device(small):
        kept = cp.zeros(3 << 20, dtype=cp.uint8)
        with pytest.raises(OutOfMemoryError, match="allocated so far: 3,145,728 bytes"):
            cp.zeros(2 << 20, dtype=cp.uint8)
        del kept
        gc.collect()
        assert cp.zeros(3 << 20, dtype=cp.uint8).size == 3 << 20   # freed bytes are usable again
    with cp.settings(device_memory=1 << 30):
        assert Device().memory.limit == 1 << 30
    assert Device().memory.limit <= 141 * 10**9


def test_out_of_memory_is_exported_as_cupy_names_it():
    assert cp.OutOfMemoryError is OutOfMemoryError


def test_freed_neighbours_merge_and_the_heap_end_shrinks():
    memory = GlobalMemory()
    a, b, c = (memory.allocate(1000) for _ in range(3))
    memory.free(b)
    memory.free(a)
    assert len(memory._holes_by_size) == 1                  # a and b are one hole
    merged = memory.allocate(2000)
    assert merged == a
    memory.free(merged)
    memory.free(c)
    assert memory.top == a - GLOBAL_BASE and not memory._holes_by_size


def test_growing_arrays_one_alive_at_a_time_keep_the_heap_small():
    memory = GlobalMemory()
    largest = 0
    x = None
    for k in range(1, 301):
        size = 4000 * k
        new = memory.allocate(size)
        if x is not None:
            memory.free(x)
        x, largest = new, size
    assert memory.top < 3 * largest                         # 180 MB before blocks merged


def test_host_copies_do_not_rebuild_the_device_index():
    memory = GlobalMemory()
    for _ in range(2000):
        memory.allocate(64)

    def rebuilt():
        raise AssertionError("a host copy rebuilt the index of every live allocation")

    memory._index = rebuilt
    address = memory.allocate(64)
    memory.write_bytes(address, b"x" * 64)
    assert memory.read_bytes(address, 64).tobytes() == b"x" * 64


def test_a_kernel_reading_freed_memory_is_told_use_after_free():
    device = Device()
    with use_device(device):
        kernel = cp.RawModule(ptx=COPY).get_function("copy")
        neighbour = cp.zeros(64, dtype=cp.uint32)   # a live allocation right before the freed one
        freed = cp.arange(64, dtype=cp.uint32)
        out = cp.zeros(64, dtype=cp.uint32)
        address = freed.data.ptr
        del freed
        gc.collect()
        with pytest.raises(MemoryFault) as caught:
            kernel((1,), (64,), (np.uint64(address), out))
    message = str(caught.value)
    assert "use after free" in message and "256-byte allocation" in message
    assert f"0x{address:x}" in message and "test_allocator.py" in message
    assert "past the end" not in message and neighbour.size == 64


def test_freed_bytes_are_poisoned_and_a_host_copy_names_the_free():
    memory = GlobalMemory()
    address = memory.allocate(16)
    memory.write_bytes(address, bytes(range(16)))
    memory.free(address)
    assert (memory.buffer[address - GLOBAL_BASE:][:16] == 0xA5).all()
    with pytest.raises(ValueError, match="use after free: the 16-byte allocation"):
        memory.read_bytes(address, 16)


def test_reused_memory_is_not_reported_as_freed():
    memory = GlobalMemory()
    address = memory.allocate(1000)
    memory.free(address)
    again = memory.allocate(16)
    assert again == address and memory.freed_allocation(address + 512) is None


def test_the_device_heap_takes_at_most_its_share_of_the_host(monkeypatch):
    """Each device byte is two of the host's (value and initialized flag): on a 23 GB host the heap is
    capped near 10 GB, so a program's 15 GB of cudaMalloc is refused, not killed by the system."""
    from warpsim.machine import memory
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 23 * 10**9 // 4096}
    monkeypatch.setattr(memory.os, "sysconf", lambda name: pages[name])
    size = memory.default_memory_size()
    assert size == int(4096 * pages["SC_PHYS_PAGES"] * memory.HOST_SHARE)
    assert 2 * size < 23 * 10**9
