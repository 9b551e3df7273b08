"""The SIMT machine on hand-written PTX: no compiler needed."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.device import SyncWarning
from warpsim.errors import BudgetExceeded, DeadlockError, MemoryFault, TrapError, UnsupportedInstruction

from ptx_kernels import ADD, HEADER



def test_vector_add_every_element():
    rng = np.random.default_rng(1)
    n = 1000
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    out = cp.full(n + 24, -12345, dtype=cp.int32)
    k = cp.RawModule(ptx=ADD).get_function("add")
    k(((n + 127) // 128,), (128,), (cp.asarray(a), cp.asarray(b), out, np.uint32(n)))
    got = out.get()
    assert np.array_equal(got[:n], (a.astype(np.int64) + b).astype(np.int32))
    assert (got[n:] == -12345).all()


def test_out_of_bounds_store_names_thread_and_line():
    k = cp.RawModule(ptx=ADD).get_function("add")
    a = cp.zeros(64, dtype=cp.int32)
    out = cp.zeros(32, dtype=cp.int32)
    with pytest.raises(MemoryFault) as info:
        k((1,), (64,), (a, a, out, np.uint32(64)))
    msg = str(info.value)
    assert "global store of 4 bytes" in msg and "past the end" in msg
    assert "thread: (32, 0, 0)" in msg and "block: (0, 0, 0)" in msg
    assert "PTX line 27" in msg and "st.global.u32" in msg


BARRIERS = HEADER + r"""
.visible .entry split(.param .u32 which)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra FIRST;
    bar.sync 1;
    bra DONE;
FIRST:
    bar.sync 0;
DONE:
    ret;
}
"""


def test_barriers_that_never_complete_are_a_deadlock():
    k = cp.RawModule(ptx=BARRIERS).get_function("split")
    with pytest.raises(DeadlockError) as info:
        k((1,), (64,), (np.uint32(0),))
    msg = str(info.value)
    assert "waiting at a CTA barrier" in msg and "bar.sync 1" in msg and "bar.sync 0" in msg


SPIN = HEADER + r"""
.visible .entry spin()
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, 0;
LOOP:
    add.s32 %r1, %r1, 1;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra LOOP;
    ret;
}
"""


def test_runaway_launch_stops_at_its_budget():
    k = cp.RawModule(ptx=SPIN).get_function("spin")
    with cp.settings(max_rounds=500):
        with pytest.raises(BudgetExceeded) as info:
            k((1,), (32,), ())
    assert "budget" in str(info.value) and "lanes [0-31]" in str(info.value)


TRAP = HEADER + r"""
.visible .entry t()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 trap;
    ret;
}
"""


def test_trap_reports_the_trapping_thread():
    k = cp.RawModule(ptx=TRAP).get_function("t")
    with pytest.raises(TrapError) as info:
        k((1,), (32,), ())
    assert "thread: (5, 0, 0)" in str(info.value)


def test_unsupported_instruction_is_reported_at_load_time():
    text = HEADER + ".visible .entry u()\n{\n .reg .b32 %r<2>;\n tex.1d.v4.f32.s32 {%r1,%r1,%r1,%r1}, [tex, {%r1}];\n ret;\n}\n"
    with pytest.raises(UnsupportedInstruction) as info:
        cp.RawModule(ptx=text).get_function("u")
    assert "'tex'" in str(info.value) and "PTX line 7 column 2, in u" in str(info.value)


def test_an_unsupported_kernel_leaves_the_modules_other_kernels_usable():
    text = (ADD + ".visible .entry u()\n{\n .reg .b32 %r<2>;\n"
            " tex.1d.v4.f32.s32 {%r1,%r1,%r1,%r1}, [tex, {%r1}];\n ret;\n}\n")
    module = cp.RawModule(ptx=text)
    with pytest.raises(UnsupportedInstruction):
        module.get_function("u")
    a = cp.asarray(np.arange(32, dtype=np.int32))
    out = cp.zeros(32, dtype=cp.int32)
    module.get_function("add")((1,), (32,), (a, a, out, np.uint32(32)))
    assert np.array_equal(out.get(), 2 * np.arange(32))


DIVERGE = HEADER + r"""
.visible .entry d(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.s32 %p1, %r2, 0;
    mov.u32 %r3, 0;
    @%p1 bra EVEN;
    mov.u32 %r4, 100;
    bra JOIN;
EVEN:
    mov.u32 %r4, 200;
JOIN:
    activemask.b32 %r5;
    mov.u32 %r6, %laneid;
    add.s32 %r7, %r4, %r6;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r7, %r5};
    ret;
}
"""


def test_divergent_paths_reconverge_at_the_join():
    out = cp.zeros((64, 2), dtype=cp.uint32)
    cp.RawModule(ptx=DIVERGE).get_function("d")((1,), (64,), (out,))
    got = out.get()
    lanes = np.arange(64) % 32
    assert np.array_equal(got[:, 0], np.where(np.arange(64) % 2 == 0, 200, 100) + lanes)
    assert (got[:, 1] == 0xFFFFFFFF).all()     # reconverged: every lane active at the join


ELECT = HEADER + r"""
.visible .entry leaders(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 5;
    @%p1 bra DONE;
    elect.sync %r2|%p2, 0xfffffff0;
    selp.u32 %r3, 1000, 0, %p2;
    add.u32 %r4, %r2, %r3;
    mov.u32 %r5, %tid.x;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
DONE:
    ret;
}
"""


def test_elect_sync_picks_the_lowest_named_lane_taking_part():
    out = cp.full(32, 7, dtype=cp.uint32)
    with pytest.warns(SyncWarning, match="names lanes that have exited"):
        cp.RawModule(ptx=ELECT).get_function("leaders")((1,), (32,), (out,))
    got = out.get()
    assert (got[:5] == 7).all()                      # lanes 0-4 took the branch away
    assert got[5] == 1005 and (got[6:] == 5).all()   # lanes 0-3 are not named, lane 4 left
