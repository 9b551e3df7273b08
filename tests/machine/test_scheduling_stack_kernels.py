"""The reconvergence stack on hand-written PTX: exits, calls, barriers, a model of one's own."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import DeadlockError
from warpsim.machine.scheduling import MODELS, ReconvergenceStack, register_model

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
MODELS_COMPARED = ("stack", "lowest-pc", "its")
ODD, EVEN = 0xAAAAAAAA, 0x55555555


def launch(ptx, kernel, model, block, *args):
    function = cp.RawModule(ptx=ptx).get_function(kernel)
    with cp.settings(scheduling=model):
        function((1,), (block,), args)
    return function.last_launch


# ---------------------------------------------------------------- ipdom None: two ways out

TWO_RETURNS = HEADER + r"""
.func (.param .b32 result) pick(.param .b32 value, .param .u64 inside)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    ld.param.b32 %r1, [value];
    ld.param.u64 %rd1, [inside];
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    activemask.b32 %r4;
    st.global.u32 [%rd1], %r4;
    mul.lo.s32 %r3, %r1, 3;
    st.param.b32 [result], %r3;
    ret;
EVEN:
    activemask.b32 %r4;
    st.global.u32 [%rd1], %r4;
    shr.u32 %r3, %r1, 1;
    st.param.b32 [result], %r3;
    ret;
}

.visible .entry call_two_returns(.param .u64 px, .param .u64 pout, .param .u64 pinside,
                                 .param .u64 pafter)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [pout];
    ld.param.u64 %rd3, [pinside];
    ld.param.u64 %rd8, [pafter];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.u32 %r2, [%rd5];
    add.s64 %rd9, %rd3, %rd4;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r2;
    .param .b64 param1;
    st.param.b64 [param1], %rd9;
    .param .b32 retval0;
    call.uni (retval0), pick, (param0, param1);
    ld.param.b32 %r3, [retval0];
    }
    activemask.b32 %r4;
    add.s64 %rd6, %rd2, %rd4;
    st.global.u32 [%rd6], %r3;
    add.s64 %rd7, %rd8, %rd4;
    st.global.u32 [%rd7], %r4;
    ret;
}
"""


@pytest.mark.parametrize("model", MODELS_COMPARED)
def test_a_function_with_two_returns_reconverges_where_it_returns_to(model):
    x = np.random.default_rng(21).integers(0, 2**31, 32).astype(np.uint32)
    out, inside, after = (cp.zeros(32, dtype=cp.uint32) for _ in range(3))
    launch(TWO_RETURNS, "call_two_returns", model, 32, cp.asarray(x), out, inside, after)
    assert np.array_equal(out.get(), np.where(x % 2, x * np.uint32(3), x >> 1))
    odd = sum(1 << k for k in range(32) if x[k] % 2)
    assert inside.get().tolist() == [odd if x[k] % 2 else odd ^ 0xFFFFFFFF for k in range(32)]
    assert (after.get() == 0xFFFFFFFF).all()


EARLY_RETURN = HEADER + r"""
.func (.param .b32 result) clamp(.param .b32 value)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [value];
    st.param.b32 [result], %r1;
    setp.lt.u32 %p1, %r1, 100;
    @%p1 ret;
    activemask.b32 %r2;
    st.param.b32 [result], %r2;
    ret;
}

.visible .entry early_return(.param .u64 px, .param .u64 pout, .param .u64 pafter)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [pout];
    ld.param.u64 %rd3, [pafter];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.u32 %r2, [%rd5];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r2;
    .param .b32 retval0;
    call.uni (retval0), clamp, (param0);
    ld.param.b32 %r3, [retval0];
    }
    activemask.b32 %r4;
    add.s64 %rd6, %rd2, %rd4;
    st.global.u32 [%rd6], %r3;
    add.s64 %rd7, %rd3, %rd4;
    st.global.u32 [%rd7], %r4;
    ret;
}
"""


@pytest.mark.parametrize("model", MODELS_COMPARED)
def test_lanes_that_return_early_wait_for_the_others_at_the_return_block(model):
    x = np.random.default_rng(22).integers(0, 200, 32).astype(np.uint32)
    out, after = cp.zeros(32, dtype=cp.uint32), cp.zeros(32, dtype=cp.uint32)
    launch(EARLY_RETURN, "early_return", model, 32, cp.asarray(x), out, after)
    big = sum(1 << k for k in range(32) if x[k] >= 100)
    assert np.array_equal(out.get(), np.where(x < 100, x, big))
    assert (after.get() == 0xFFFFFFFF).all()


TWO_EXITS = HEADER + r"""
.visible .entry exit_two_ways(.param .u64 pout)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    activemask.b32 %r3;
    st.global.u32 [%rd3], %r3;
    exit;
EVEN:
    activemask.b32 %r3;
    st.global.u32 [%rd3], %r3;
    ret;
}
"""


def test_paths_that_end_at_different_exits_each_run_alone_and_leave_the_stack():
    out = cp.zeros(64, dtype=cp.uint32)
    result = launch(TWO_EXITS, "exit_two_ways", "stack", 64, out)
    assert out.get().tolist() == [EVEN if k % 2 == 0 else ODD for k in range(64)]
    assert result.thread_instructions == 64 * 10


# ---------------------------------------------------------------- CTA barriers

HALF_AT_BARRIER = HEADER + r"""
.visible .entry half_at_barrier(.param .u64 pout)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra JOIN;
    bar.sync 0;
JOIN:
    activemask.b32 %r3;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"""


def test_a_warp_passes_a_barrier_that_only_some_of_its_lanes_reach():
    """Pre-Volta barriers count warps: the held-back lanes count for their warp.

    Under the stack the lanes that skipped the barrier wait at the join, so the
    warp is whole there; lowest-pc and its let them run on while the others wait.
    """
    masks = {}
    for model in MODELS_COMPARED:
        out = cp.zeros(64, dtype=cp.uint32)
        launch(HALF_AT_BARRIER, "half_at_barrier", model, 64, out)
        masks[model] = out.get()
    assert (masks["stack"] == 0xFFFFFFFF).all()
    halves = [0x0000FFFF] * 16 + [0xFFFF0000] * 16 + [0xFFFFFFFF] * 32
    assert masks["lowest-pc"].tolist() == halves and masks["its"].tolist() == halves


SPLIT_BARRIERS = HEADER + r"""
.visible .entry split_barriers()
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra SECOND;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra ONE;
    bar.sync 0;
    bra DONE;
ONE:
    bar.sync 1;
    bra DONE;
SECOND:
    bar.sync 2;
DONE:
    ret;
}
"""


def test_a_warp_held_at_a_barrier_that_cannot_fill_is_a_named_deadlock():
    with pytest.raises(DeadlockError) as info:
        launch(SPLIT_BARRIERS, "split_barriers", "stack", 64)
    msg = str(info.value)
    assert "waits at a CTA barrier that cannot fill" in msg and "bar.sync 0" in msg
    assert "lanes 0x55555555" in msg and "lanes 0xaaaaaaaa" in msg


# ---------------------------------------------------------------- a model of one's own

ORDER = HEADER + r"""
.visible .entry order(.param .u64 pticket, .param .u64 pcounter)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [pticket];
    ld.param.u64 %rd2, [pcounter];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    atom.global.add.u32 %r3, [%rd2], 1;
    bra JOIN;
EVEN:
    atom.global.add.u32 %r3, [%rd2], 1;
JOIN:
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r3;
    ret;
}
"""


class TakenSideFirst(ReconvergenceStack):
    """The reconvergence stack, but a divergent branch runs its taken side first."""

    name = "taken-first"

    def paths_in_run_order(self, ctx, block, targets):
        branch = block.instructions[-1]
        taken = ctx.program.label_gid(block.function, branch.srcs[0].name)
        return sorted(targets, key=lambda target: (target[0] != taken, target))


@pytest.fixture
def taken_first():
    model = register_model(TakenSideFirst())
    yield model.name
    del MODELS[model.name]


def tickets(model):
    ticket, counter = cp.zeros(32, dtype=cp.uint32), cp.zeros(1, dtype=cp.uint32)
    launch(ORDER, "order", model, 32, ticket, counter)
    got = ticket.get()
    return got[1::2], got[0::2]          # odd lanes fall through, even lanes take the branch


def test_a_registered_model_runs_through_the_settings(taken_first):
    odd, even = tickets(taken_first)
    assert even.max() < odd.min()                          # the taken side ran first
    odd, even = tickets("stack")
    assert odd.max() < even.min()                          # the default: fall-through first
    assert sorted(np.concatenate([odd, even]).tolist()) == list(range(32))


# ---------------------------------------------------------------- recursion, through NVRTC

RECURSION = r"""
__device__ __noinline__ int walk(int depth, int seed) {
    if (depth <= 0) return seed;
    int r = (seed & 1) ? walk(depth - 1, seed * 3 + 1) : walk(depth - 2, seed / 2);
    return r * 5 + depth;
}
extern "C" __global__ void k(const int* x, int* out) {
    int t = threadIdx.x;
    out[t] = walk(x[t] % 9, x[t]);
}
"""


def walk_reference(depth, seed):
    if depth <= 0:
        return seed
    r = walk_reference(depth - 1, seed * 3 + 1) if seed & 1 else walk_reference(depth - 2, seed // 2)
    return (r * 5 + depth) & 0xFFFFFFFF


@pytest.mark.nvrtc
@pytest.mark.parametrize("model", MODELS_COMPARED)
def test_recursion_with_divergent_depths(model):
    """Lanes of one warp at different depths of the same function: each depth reconverges alone."""
    x = np.random.default_rng(23).integers(0, 1000, 64).astype(np.int32)
    out = cp.zeros(64, dtype=cp.int32)
    with cp.settings(scheduling=model):
        cp.RawModule(code=RECURSION).get_function("k")((1,), (64,), (cp.asarray(x), out))
    expected = np.array([walk_reference(int(v) % 9, int(v)) for v in x], dtype=np.uint32)
    assert np.array_equal(out.get().view(np.uint32), expected)
