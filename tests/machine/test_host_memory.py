"""Kernels that read and write host memory in place: registered host ranges of the device's memory.

Each test launches a real NVRTC kernel on NumPy arrays (or torch CPU tensors)
registered with warpsim.host_registered: the device address is the host
address, the arrays' own bytes change, and nothing is allocated on the heap.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.device import default_device
from warpsim.sass.replay import ReplayRequest

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void pick(const float* heap, const float* host, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float* from = (i & 1) ? host : heap;      // one load, lanes in the heap and in host memory
    if (i < n) out[i] = from[i] * 2.0f;
}
extern "C" __global__ void histogram(const int* keys, int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i]], 1);
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def launch_saxpy(module, x, y, a, n, blocks=None):
    module.get_function("saxpy")((blocks or (n + 127) // 128,), (128,), (x, y, np.float32(a), np.int32(n)))


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_kernel_reads_and_writes_numpy_arrays_in_place(module, engine):
    rng = np.random.default_rng(11)
    n = 3001
    x, y = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    before, address = y.copy(), y.ctypes.data
    memory = default_device().memory
    gc.collect()
    live = dict(memory.live)
    with cp.settings(engine=engine), cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        assert dx.data.ptr == x.ctypes.data and dy.data.ptr == address      # no translation
        # (an earlier test's arrays may still be collected meanwhile: only new allocations count)
        assert not set(memory.live.items()) - set(live.items()), "no heap allocation backs a host range"
        launch_saxpy(module, dx, dy, 1.5, n)
        np.testing.assert_array_equal(dy.get(), y)
    assert y.ctypes.data == address
    np.testing.assert_allclose(y, np.float32(1.5) * x + before, rtol=1e-6)
    assert not memory.host, "the ranges are released after the block"


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_one_load_with_lanes_in_the_heap_and_in_host_memory(module, engine):
    rng = np.random.default_rng(12)
    n = 1000
    heap_values, host_values = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    with cp.settings(engine=engine), cp.host_registered(host_values) as dhost, cp.host_registered(out) as dout:
        module.get_function("pick")((8,), (128,), (cp.asarray(heap_values), dhost, dout, np.int32(n)))
    want = np.where(np.arange(n) & 1, host_values, heap_values) * np.float32(2)
    np.testing.assert_array_equal(out, want)


def test_atomics_on_host_memory(module):
    rng = np.random.default_rng(13)
    keys = rng.integers(0, 37, 5000).astype(np.int32)
    counts = np.zeros(37, dtype=np.int32)
    with cp.host_registered(keys) as dkeys, cp.host_registered(counts) as dcounts:
        module.get_function("histogram")((40,), (128,), (dkeys, dcounts, np.int32(len(keys))))
    np.testing.assert_array_equal(counts, np.bincount(keys, minlength=37))


def test_access_past_a_host_range_is_a_fault_naming_the_range(module):
    x, y = np.ones(100, dtype=np.float32), np.ones(100, dtype=np.float32)
    with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        with pytest.raises(cp.MemoryFault) as caught:
            launch_saxpy(module, dx, dy, 1.0, 130, blocks=2)
    text = str(caught.value)
    assert "out of bounds: 0 bytes past the end of the 400-byte host range at" in text
    assert "numpy.ndarray float32[100]" in text


def test_memcheck_reports_an_access_past_a_host_range_as_it_reports_heap_ones(module):
    x, y = np.ones(100, dtype=np.float32), np.ones(100, dtype=np.float32)
    with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        with cp.check("memcheck") as chk:
            with pytest.raises(cp.MemoryFault):
                launch_saxpy(module, dx, dy, 1.0, 130, blocks=2)
    error, = chk.errors
    assert error.tool == "memcheck" and error.kind == "invalid read" and error.space == "global"
    assert error.address == x.ctypes.data + 400
    assert error.accesses[0].thread == (100, 0, 0)
    assert "is out of bounds: 0 bytes past the end of the 400-byte host range" in error.text()


def test_initcheck_counts_host_memory_as_written(module):
    x, y = np.ones(256, dtype=np.float32), np.ones(256, dtype=np.float32)
    with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        with cp.check("initcheck") as chk:
            launch_saxpy(module, dx, dy, 2.0, 256)
    assert chk.ok
    np.testing.assert_array_equal(y, np.full(256, 3, np.float32))


def test_host_copies_reach_a_registered_range():
    memory = default_device().memory
    a = np.arange(64, dtype=np.uint8)
    with cp.host_registered(a) as da:
        memory.write_bytes(da.data.ptr + 8, np.uint8([200, 201]))
        assert memory.read_bytes(da.data.ptr + 7, 3).tolist() == [7, 200, 201]
        with pytest.raises(ValueError, match="outside any allocation"):
            memory.read_bytes(da.data.ptr + 60, 8)
    assert a[8] == 200 and a[9] == 201


def test_a_range_over_the_heap_is_refused():
    memory = default_device().memory
    address = cp.zeros(16, dtype=np.float32).data.ptr
    with pytest.raises(ValueError, match="over the device heap's addresses"):
        memory.register_host(address, 64)


def test_sharded_launch_refuses_host_ranges(module):
    x, y = np.ones(4096, dtype=np.float32), np.ones(4096, dtype=np.float32)
    with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        with cp.settings(workers=2), pytest.raises(cp.LaunchError, match="cannot address host memory"):
            launch_saxpy(module, dx, dy, 1.0, 4096)


@pytest.mark.sass
def test_sass_replay_agrees_on_a_launch_with_host_ranges(module):
    rng = np.random.default_rng(14)
    n = 700
    x, y = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    before = y.copy()
    with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        with ReplayRequest() as request:
            launch_saxpy(module, dx, dy, 3.0, n)
            (_, replay), = request._replays.values()
            outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    np.testing.assert_allclose(y, np.float32(3) * x + before, rtol=1e-6)   # written once, by the PTX run


def test_predicted_time_of_a_launch_on_host_memory_is_the_heap_launchs(module):
    n = 1 << 14
    x, y = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
    with cp.settings(gpu="h200"), cp.profile() as prof:
        launch_saxpy(module, cp.asarray(x), cp.asarray(y), 1.0, n)
        with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
            launch_saxpy(module, dx, dy, 1.0, n)
    heap, host = (launch.timing for launch in prof.launches)
    assert host.time_s > 0
    assert host.time_s == pytest.approx(heap.time_s, rel=0.2)     # the same traffic, other addresses


def test_torch_cpu_tensors_in_place(module):
    torch = pytest.importorskip("torch")
    generator = torch.Generator().manual_seed(15)
    x, y = torch.rand(2000, generator=generator), torch.rand(2000, generator=generator)
    before, address = y.clone(), y.data_ptr()
    with cp.host_registered(x) as dx, cp.host_registered(y) as dy:
        assert dy.data.ptr == address
        launch_saxpy(module, dx, dy, 0.5, 2000)
    np.testing.assert_allclose(y.numpy(), 0.5 * x.numpy() + before.numpy(), rtol=1e-6)


def test_numba_kernel_on_registered_host_arrays():
    from warpsim import cuda

    @cuda.jit
    def scale(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * 3

    rng = np.random.default_rng(16)
    x, out = rng.random(500).astype(np.float32), np.zeros(500, np.float32)
    with cp.host_registered(x) as dx, cp.host_registered(out) as dout:
        scale[4, 128](dx, dout)
    np.testing.assert_allclose(out, np.float32(3) * x, rtol=1e-6)


def test_copies_refill_the_arrays_of_the_last_one_and_drop_unregistered_ranges():
    """A launch's timing sample copies the registered host ranges each time: into the same arrays
    (a fresh one of a large range costs page faults), with the bytes as they are now."""
    from warpsim.machine.host_memory import HostRangeTable
    rng = np.random.default_rng(9)
    first, second = rng.integers(0, 256, 3000, dtype=np.uint8), rng.integers(0, 256, 500, dtype=np.uint8)
    table = HostRangeTable()
    table.add(first.ctypes.data, first.size, "first", first)
    table.add(second.ctypes.data, second.size, "second", second)
    scratch = {}
    copy = table.copy(scratch)
    held = {base: r.view for base, r in copy.ranges.items()}
    np.testing.assert_array_equal(held[first.ctypes.data], first)
    held[first.ctypes.data][:] = 0                                   # the copy's writes stay in it
    assert first.any()
    first[:10] = 77
    table.remove(second.ctypes.data)
    again = table.copy(scratch)
    view = again.ranges[first.ctypes.data].view
    assert view.ctypes.data == held[first.ctypes.data].ctypes.data   # the same array, refilled
    np.testing.assert_array_equal(view, first)
    assert list(scratch) == [(first.ctypes.data, first.size)]
