"""cupy.cuda.memory's allocator, pools and pointers, and the streams and events around them."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api import memory, streams
from warpsim.errors import OutOfMemoryError

pytestmark = pytest.mark.nvrtc

SCALE = cp.RawKernel('extern "C" __global__ void scale(double* x, int n) {'
                     ' int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 2.0 * x[i] + 1.0; }',
                     "scale")


def test_alloc_gives_a_pointer_a_kernel_and_an_array_both_use():
    values = np.random.default_rng(3).standard_normal(100)
    pointer = memory.alloc(values.nbytes)
    source = cp.asarray(values)
    pointer.copy_from(source.data, values.nbytes)                 # device to device
    SCALE((1,), (128,), (pointer, np.int32(100)))                 # a MemoryPointer as the argument
    view = cp.ndarray((100,), np.float64, memptr=pointer)
    np.testing.assert_array_equal(view.get(), 2.0 * values + 1.0)
    host = np.empty(100)
    pointer.copy_to_host(host, values.nbytes)
    np.testing.assert_array_equal(host, 2.0 * values + 1.0)
    pointer.memset(0, values.nbytes)
    assert not view.get().any()


def test_the_default_pool_counts_live_allocations_and_honours_its_limit():
    pool = memory.get_default_memory_pool()
    before = pool.used_bytes()
    a = cp.zeros(1000, np.float32)                                # 4000 bytes -> 4096 (512-byte units)
    assert pool.used_bytes() - before == 4096
    del a
    assert pool.used_bytes() == before
    pool.set_limit(size=before + 8192)
    try:
        with pytest.raises(OutOfMemoryError, match="set_limit"):
            cp.empty(4096, np.float32)
        kept = cp.empty(1024, np.float32)
        assert kept.size == 1024
    finally:
        pool.set_limit(size=0)
    pool.free_all_blocks()


def test_set_allocator_allocates_every_array():
    calls = []

    def allocator(size):
        calls.append(size)
        return memory.MemoryPointer(memory.Memory(memory.current_device(), size))
    memory.set_allocator(allocator)
    try:
        x = cp.arange(10, dtype=np.int32)
    finally:
        memory.set_allocator(memory.get_default_memory_pool().malloc)
    assert calls == [40] and x.get().tolist() == list(range(10))


def test_managed_memory_runs_a_kernel():
    values = np.random.default_rng(4).standard_normal(64)
    pointer = memory.malloc_managed(values.nbytes)
    array = cp.ndarray((64,), np.float64, memptr=pointer)
    array.set(values)
    SCALE((1,), (64,), (array, np.int32(64)))
    np.testing.assert_array_equal(array.get(), 2.0 * values + 1.0)


def test_pinned_memory_is_host_memory_a_copy_fills():
    values = np.arange(16, dtype=np.float32) * 1.5
    pinned = memory.alloc_pinned_memory(values.nbytes)
    device = cp.asarray(values)
    device.data.copy_to_host(pinned, values.nbytes)
    np.testing.assert_array_equal(np.asarray(pinned).view(np.float32), values)


def test_streams_are_exported_and_events_time_the_host():
    a = cp.empty(10)
    assert a.__cuda_array_interface__["stream"] == streams.LEGACY_DEFAULT_STREAM
    stream = streams.Stream()
    with stream:
        assert streams.get_current_stream() is stream
        assert a.__cuda_array_interface__["stream"] == stream.ptr not in (0, 1, 2)
    with streams.Stream.ptds:
        assert a.__cuda_array_interface__["stream"] == streams.PER_THREAD_DEFAULT_STREAM
    start, end = streams.Event(), streams.Event()
    start.record()
    end.record(stream)
    assert streams.get_elapsed_time(start, end) >= 0
    with pytest.raises(RuntimeError, match="never recorded"):
        streams.get_elapsed_time(streams.Event(), end)
