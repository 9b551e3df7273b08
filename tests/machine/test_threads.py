"""One device shared by Python threads: launches serialized, allocation never racing one.

Every result is checked element by element against NumPy: a launch that lost
writes to a heap grown under it, or two threads handed the same hole, shows
up as wrong elements.
"""

import threading
import time

import numpy as np

import warpsim as cp
from warpsim.api.args import pack_arguments
from warpsim.api.arrays import use_device
from warpsim.machine.device import Device
from warpsim.machine.events import LaunchObserver

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

# out[i] = a[i] * 3 + b[i], computed over `rounds` read-modify-write passes of out.
AXPB = HEADER + r"""
.visible .entry axpb(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n, .param .u32 rounds)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r9, [rounds];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.u32 %r6, [%rd5];
    ld.global.u32 %r7, [%rd6];
    st.global.u32 [%rd7], %r7;
    mov.u32 %r10, 0;
LOOP:
    ld.global.u32 %r8, [%rd7];
    add.s32 %r8, %r8, %r6;
    st.global.u32 [%rd7], %r8;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, %r9;
    @%p2 bra LOOP;
DONE:
    ret;
}
"""


def _run_threads(target, count):
    errors = []

    def guarded(k):
        try:
            target(k)
        except BaseException as exc:   # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_allocation_while_a_kernel_runs_loses_no_writes():
    device = Device()        # a fresh 1 MB heap: the allocations below grow it
    with use_device(device):
        kernel = cp.RawModule(ptx=AXPB).get_function("axpb")
        n = 32768
        a = np.arange(n, dtype=np.uint32)
        b = np.full(n, 7, dtype=np.uint32)
        da, db, out = cp.asarray(a), cp.asarray(b), cp.zeros(n, dtype=cp.uint32)
    started = threading.Event()
    kept, times = [], {}

    class Started(LaunchObserver):
        def batch_started(self, ctx):       # inside the launch, which holds the device
            started.set()

        def launch_finished(self, result):  # still inside it (after the launch returns, the allocating
            times["launch finished"] = time.perf_counter()      # thread may run first)

    def launch():
        params = pack_arguments(kernel.kernel_name, kernel.params,
                                (da, db, out, np.uint32(n), np.uint32(40)))
        kernel.loaded_module.launch(kernel.kernel_name, (n // 256,), (256,), params, observers=[Started()])

    def allocate():
        started.wait()
        time.sleep(0.02)
        with use_device(device):
            for size in range(1, 60):     # growing arrays: the heap would grow under the kernel
                kept.append(cp.zeros(size * 20_000, dtype=cp.uint8))
                times.setdefault("first allocation", time.perf_counter())

    _run_threads(lambda k: (launch if k == 0 else allocate)(), 2)
    assert times["first allocation"] >= times["launch finished"], "allocated during a launch"
    with use_device(device):
        assert np.array_equal(out.get(), a * 40 + b)
        assert all(not arr.get().any() for arr in kept)


def test_threads_mixing_allocation_copies_and_launches():
    module = cp.RawModule(ptx=AXPB)

    device = Device()

    def work(seed):
        with use_device(device):
            _work(seed)

    def _work(seed):
        rng = np.random.default_rng(seed)
        kernel = module.get_function("axpb")
        for _ in range(6):
            n = int(rng.integers(1, 5000))
            a = rng.integers(0, 1 << 20, n, dtype=np.uint32)
            b = rng.integers(0, 1 << 20, n, dtype=np.uint32)
            scratch = cp.asarray(rng.integers(0, 255, int(rng.integers(1, 200_000)), dtype=np.uint8))
            out = cp.full(n + 8, 0xDEAD, dtype=cp.uint32)
            da, db = cp.asarray(a), cp.asarray(b)
            kernel(((n + 127) // 128,), (128,), (da, db, out, np.uint32(n), np.uint32(2)))
            got = out.get()
            assert np.array_equal(got[:n], a * 2 + b), f"thread {seed}: wrong results"
            assert (got[n:] == 0xDEAD).all(), f"thread {seed}: wrote past the end"
            assert np.array_equal(da.get(), a) and np.array_equal(db.get(), b)
            del scratch

    _run_threads(work, 8)
