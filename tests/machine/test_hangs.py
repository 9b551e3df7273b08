"""Kernels and modules that would hang: each ends quickly with a named error."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import BudgetExceeded, DeadlockError, StackOverflow
from warpsim.ptx.parser import parse_ptx

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"


def test_a_huge_register_range_loads_without_expanding():
    ptx = HEADER + """
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<100000000>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r99999999, 7;
    st.global.u32 [%rd1], %r99999999;
    ret;
}
"""
    fn = parse_ptx(ptx).functions["k"]
    assert len(dict(fn.regs)) <= 3                  # only the registers the code names
    assert fn.regs["%r123"] == "b32" and "%r100000000" not in fn.regs and "%r012" not in fn.regs
    out = cp.zeros(1, dtype=cp.uint32)
    cp.RawModule(ptx=ptx).get_function("k")((1,), (1,), (out,))
    assert out.get()[0] == 7


def test_a_negative_register_count_is_a_parse_error():
    with pytest.raises(cp.PtxParseError, match="register count"):
        parse_ptx(HEADER + ".visible .entry k()\n{\n.reg .b32 %r<-5>;\nret;\n}\n")


RECURSE = HEADER + """
.func (.param .b32 ret) down(.param .b32 n)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [n];
    add.s32 %r2, %r1, 1;
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r2;
    call.uni (res), down, (arg);
    ld.param.b32 %r3, [res];
    }
    st.param.b32 [ret], %r3;
    ret;
}

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 0;
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r1;
    call.uni (res), down, (arg);
    ld.param.b32 %r2, [res];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
"""


def test_infinite_recursion_overflows_the_stack_at_once():
    k = cp.RawModule(ptx=RECURSE).get_function("k")
    out = cp.zeros(1, dtype=cp.uint32)
    with pytest.raises(StackOverflow) as caught:
        k((1,), (32,), (out,))
    message = str(caught.value)
    assert "65 deep" in message and "1024 bytes" in message and "stack_size" in message
    assert "call.uni" in message
    with cp.settings(stack_size=4096), pytest.raises(StackOverflow, match="257 deep"):
        k((1,), (32,), (out,))


SPIN_FOREVER = HEADER + """
.visible .entry k(.param .u64 counter)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [counter];
LOOP:
    ld.global.u32 %r1, [%rd1];
    add.s32 %r1, %r1, 1;
    st.global.u32 [%rd1], %r1;
    bra LOOP;
}
"""


def test_the_watchdog_stops_a_runaway_launch_in_seconds():
    k = cp.RawModule(ptx=SPIN_FOREVER).get_function("k")
    counter = cp.zeros(1, dtype=cp.uint32)
    with cp.settings(watchdog_seconds=0.3), pytest.raises(BudgetExceeded) as caught:
        k((1,), (32,), (counter,))
    assert "watchdog" in str(caught.value) and "watchdog_seconds" in str(caught.value)


def test_the_watchdog_is_off_at_zero_and_the_round_budget_still_holds():
    k = cp.RawModule(ptx=SPIN_FOREVER).get_function("k")
    counter = cp.zeros(1, dtype=cp.uint32)
    with cp.settings(watchdog_seconds=0, max_rounds=500), pytest.raises(BudgetExceeded) as caught:
        k((1,), (32,), (counter,))
    assert "max_rounds" in str(caught.value)


def _spin_wait(atomic):
    """Lane 0 spins on a flag with `atomic` (which writes the value already there); lane 1 sets it."""
    return HEADER + f"""
.visible .entry k(.param .u64 flag)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [flag];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SET;
SPIN:
    {atomic}
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra SPIN;
    bra DONE;
SET:
    atom.global.exch.b32 %r3, [%rd1], 1;
DONE:
    ret;
}}
"""


@pytest.mark.parametrize("atomic", ["atom.global.add.u32 %r2, [%rd1], 0;",
                                    "atom.global.cas.b32 %r2, [%rd1], 5, 6;",
                                    "st.global.u32 [%rd1+4], 9;\n    ld.volatile.global.u32 %r2, [%rd1];"],
                         ids=["atomicAdd-0", "failed-cas", "same-value-store"])
def test_a_spin_wait_on_an_atomic_that_changes_nothing_is_a_livelock(atomic):
    k = cp.RawModule(ptx=_spin_wait(atomic)).get_function("k")
    flag = cp.zeros(2, dtype=cp.uint32)
    with cp.settings(scheduling="stack", max_rounds=20_000), pytest.raises(DeadlockError) as caught:
        k((1,), (32,), (flag,))
    assert "livelock" in str(caught.value) and "pre-Volta" in str(caught.value)
    with cp.settings(scheduling="its"):
        k((1,), (32,), (flag,))
    assert flag.get()[0] == 1


RECURSIVE_SUM = r"""
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void fibs(const int* n, int* out) { out[threadIdx.x] = fib(n[threadIdx.x]); }
"""


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_a_deep_recursion_that_writes_no_memory_until_it_returns_is_no_livelock(engine):
    """Two points of a recursion can hold the same registers: the livelock watch tells them apart by
    the call stack and the saved frames (fib(13) and up were stopped as livelocks)."""
    n = np.random.default_rng(4).integers(10, 17, 4).astype(np.int32)
    out = cp.zeros(4, dtype=np.int32)
    with cp.settings(engine=engine):
        cp.RawModule(code=RECURSIVE_SUM).get_function("fibs")((1,), (4,), (cp.asarray(n), out))
    fib = [0, 1]
    while len(fib) < 20:
        fib.append(fib[-1] + fib[-2])
    np.testing.assert_array_equal(out.get(), np.array(fib)[n])
