"""Unstructured control flow, where the reconvergence stack and lowest-pc part ways.

On code whose branches reconverge at their immediate post-dominator (what
NVRTC emits for normal kernels) the three models issue the same instructions.
Here they do not: the stack runs a block once per stack entry that reaches it,
while lowest-pc (and its, which picks groups the same way) merges every group
of a warp that meets at the block. Results are the same; `activemask` and the
SIMT efficiency show the difference.
"""

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.program import Program
from warpsim.machine.scheduling import MODELS as REGISTRY, ReconvergenceStack, register_model
from warpsim.ptx.parser import parse_ptx

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
MODELS = ("stack", "lowest-pc", "its")
EFFICIENCY = "smsp__thread_inst_executed_per_inst_executed.ratio"

# if (x%4 == 0) { x += 1; MID: mask; x *= 3 } else { x -= 5; if (x%4 == 1) goto MID; x ^= 7 }
CROSS_EDGE = HEADER + r"""
.visible .entry cross_edge(.param .u64 px, .param .u64 pout, .param .u64 pmid, .param .u64 pjoin)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [pout];
    ld.param.u64 %rd3, [pmid];
    ld.param.u64 %rd4, [pjoin];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r6, %ntid.x;
    mov.u32 %r7, %tid.x;
    mad.lo.s32 %r1, %r1, %r6, %r7;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.u32 %r2, [%rd6];
    and.b32 %r3, %r2, 3;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra THEN;
    add.s32 %r2, %r2, -5;
    setp.eq.u32 %p2, %r3, 1;
    @%p2 bra MID;
    xor.b32 %r2, %r2, 7;
    bra JOIN;
THEN:
    add.s32 %r2, %r2, 1;
MID:
    activemask.b32 %r4;
    add.s64 %rd7, %rd3, %rd5;
    st.global.u32 [%rd7], %r4;
    mul.lo.s32 %r2, %r2, 3;
JOIN:
    activemask.b32 %r5;
    add.s64 %rd8, %rd4, %rd5;
    st.global.u32 [%rd8], %r5;
    add.s64 %rd9, %rd2, %rd5;
    st.global.u32 [%rd9], %r2;
    ret;
}
"""

# for (i = 0;; ) { acc = acc*3 + i; if (i == a) { EXIT_A } if (++i >= limit) { EXIT_B } }
TWO_EXITS = HEADER + r"""
.visible .entry two_exits(.param .u64 pa, .param .u64 plimit, .param .u64 px, .param .u64 pout,
                          .param .u64 pmask)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [plimit];
    ld.param.u64 %rd3, [px];
    ld.param.u64 %rd4, [pout];
    ld.param.u64 %rd5, [pmask];
    mov.u32 %r8, %ctaid.x;
    mov.u32 %r9, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r4, %r8, %r9, %r4;
    mul.wide.u32 %rd6, %r4, 4;
    add.s64 %rd7, %rd1, %rd6;
    ld.global.u32 %r1, [%rd7];
    add.s64 %rd7, %rd2, %rd6;
    ld.global.u32 %r2, [%rd7];
    add.s64 %rd7, %rd3, %rd6;
    ld.global.u32 %r6, [%rd7];
    mov.u32 %r5, 0;
LOOP:
    mad.lo.s32 %r6, %r6, 3, %r5;
    setp.eq.u32 %p1, %r5, %r1;
    @%p1 bra EXIT_A;
    add.s32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, %r2;
    @%p2 bra LOOP;
EXIT_B:
    activemask.b32 %r7;
    add.s32 %r6, %r6, 1000;
    bra DONE;
EXIT_A:
    activemask.b32 %r7;
    add.s32 %r6, %r6, -1000;
DONE:
    add.s64 %rd8, %rd4, %rd6;
    st.global.u32 [%rd8], %r6;
    add.s64 %rd9, %rd5, %rd6;
    st.global.u32 [%rd9], %r7;
    ret;
}
"""


class StackOneWarpAtATime(ReconvergenceStack):
    """The same stack with the path order overridden, so every split takes the per-warp path."""

    name = "stack-one-warp-at-a-time"

    def paths_in_run_order(self, ctx, block, targets):
        return sorted(targets)


@pytest.fixture(scope="module", autouse=True)
def per_warp_stack():
    register_model(StackOneWarpAtATime())
    yield
    del REGISTRY[StackOneWarpAtATime.name]


def block_size(ptx, kernel, label):
    """Instructions in the block that starts at `label`."""
    program = Program(parse_ptx(ptx, "<test>"), "<test>")
    fn = program.module.functions[kernel]
    return len(program.blocks[program.label_gid(fn, label)].instructions)


def run(ptx, kernel, model, grid, block, args):
    function = cp.RawModule(ptx=ptx).get_function(kernel)
    with cp.settings(scheduling=model), cp.profile(level="ptx") as prof:
        function(grid, block, args)
    launch = function.last_launch
    return launch, prof.launches[0].metrics[EFFICIENCY]


def masks_of(groups, per_warp=32):
    """Per lane, the mask of the lanes of its warp with the same group key (None: no mask)."""
    out = np.zeros(len(groups), dtype=np.uint32)
    for w in range(0, len(groups), per_warp):
        keys = groups[w:w + per_warp]
        for lane, key in enumerate(keys):
            if key is not None:
                out[w + lane] = sum(1 << k for k, other in enumerate(keys) if other == key)
    return out


# ---------------------------------------------------------------- a branch into the other side

def cross_edge_reference(x):
    x = x.astype(np.uint32)
    sel = x & 3
    out = np.where(sel == 0, (x + 1) * 3, np.where(sel == 1, (x - 5) * 3, (x - 5) ^ 7)).astype(np.uint32)
    return out, sel


@pytest.fixture(scope="module")
def cross_edge_runs():
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    runs = {}
    for model in MODELS + (StackOneWarpAtATime.name,):
        out, mid, join = (cp.zeros(128, dtype=cp.uint32) for _ in range(3))
        launch, efficiency = run(CROSS_EDGE, "cross_edge", model, (2,), (64,),
                                 (cp.asarray(x), out, mid, join))
        runs[model] = dict(out=out.get(), mid=mid.get(), join=join.get(), launch=launch,
                           efficiency=efficiency)
    return x, runs


@pytest.mark.parametrize("model", MODELS)
def test_cross_edge_results_match_numpy(cross_edge_runs, model):
    x, runs = cross_edge_runs
    expected, _ = cross_edge_reference(x)
    assert np.array_equal(runs[model]["out"], expected)
    assert (runs[model]["join"] == 0xFFFFFFFF).all()          # every model reconverges at JOIN


def test_cross_edge_stack_runs_the_shared_block_once_per_side(cross_edge_runs):
    x, runs = cross_edge_runs
    _, sel = cross_edge_reference(x)
    at_mid = np.where(sel <= 1, sel, 9)
    side = [int(s) if s <= 1 else None for s in at_mid]              # the stack: one entry per side
    merged = [0 if s <= 1 else None for s in at_mid]                 # lowest-pc: both sides together
    assert np.array_equal(runs["stack"]["mid"], masks_of(side))
    assert np.array_equal(runs["lowest-pc"]["mid"], masks_of(merged))
    assert np.array_equal(runs["its"]["mid"], masks_of(merged))


def test_cross_edge_costs_the_stack_one_more_issue_of_the_shared_block(cross_edge_runs):
    x, runs = cross_edge_runs
    _, sel = cross_edge_reference(x)
    warps_with_both = sum(int((s == 0).any() and (s == 1).any()) for s in sel.reshape(-1, 32))
    stack, lowest = runs["stack"]["launch"], runs["lowest-pc"]["launch"]
    assert warps_with_both == 4
    assert stack.thread_instructions == lowest.thread_instructions
    assert (stack.warp_instructions - lowest.warp_instructions
            == warps_with_both * block_size(CROSS_EDGE, "cross_edge", "MID"))
    assert runs["its"]["launch"].warp_instructions == lowest.warp_instructions
    for model in MODELS:
        launch = runs[model]["launch"]
        assert runs[model]["efficiency"] == pytest.approx(
            launch.thread_instructions / launch.warp_instructions)
    assert runs["stack"]["efficiency"] < runs["lowest-pc"]["efficiency"]


# ---------------------------------------------------------------- a loop with two exits

def two_exits_reference(a, limit, x):
    """Per lane: the result, and the exit it takes ('A' or 'B') with the iteration it leaves at."""
    acc, out, group = x.astype(np.uint32), np.zeros(len(x), dtype=np.uint32), [None] * len(x)
    live = np.ones(len(x), dtype=bool)
    for i in range(int(limit.max())):
        acc = np.where(live, acc * np.uint32(3) + np.uint32(i), acc).astype(np.uint32)
        leave_a = live & (a == i)
        leave_b = live & ~leave_a & (i + 1 >= limit)
        out[leave_a] = acc[leave_a] - np.uint32(1000)
        out[leave_b] = acc[leave_b] + np.uint32(1000)
        for lane in np.flatnonzero(leave_a):
            group[lane] = ("A", i)
        for lane in np.flatnonzero(leave_b):
            group[lane] = ("B", i)
        live &= ~(leave_a | leave_b)
    return out, group


@pytest.fixture(scope="module")
def two_exits_runs():
    rng = np.random.default_rng(12)
    n = 64
    a = rng.integers(0, 8, n).astype(np.uint32)
    limit = rng.integers(1, 9, n).astype(np.uint32)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    runs = {}
    for model in MODELS + (StackOneWarpAtATime.name,):
        out, mask = cp.zeros(n, dtype=cp.uint32), cp.zeros(n, dtype=cp.uint32)
        launch, efficiency = run(TWO_EXITS, "two_exits", model, (1,), (n,),
                                 (cp.asarray(a), cp.asarray(limit), cp.asarray(x), out, mask))
        runs[model] = dict(out=out.get(), mask=mask.get(), launch=launch, efficiency=efficiency)
    return (a, limit, x), runs


@pytest.mark.parametrize("model", MODELS)
def test_two_exit_loop_results_match_numpy(two_exits_runs, model):
    inputs, runs = two_exits_runs
    expected, _ = two_exits_reference(*inputs)
    assert np.array_equal(runs[model]["out"], expected)


def test_two_exit_loop_stack_runs_each_exit_once_per_iteration_that_takes_it(two_exits_runs):
    inputs, runs = two_exits_runs
    _, group = two_exits_reference(*inputs)
    by_exit = [g[0] for g in group]
    assert np.array_equal(runs["stack"]["mask"], masks_of(group))
    assert np.array_equal(runs["lowest-pc"]["mask"], masks_of(by_exit))
    assert np.array_equal(runs["its"]["mask"], masks_of(by_exit))


def test_two_exit_loop_issue_counts(two_exits_runs):
    inputs, runs = two_exits_runs
    _, group = two_exits_reference(*inputs)
    extra = 0
    for label, kind in (("EXIT_A", "A"), ("EXIT_B", "B")):
        size = block_size(TWO_EXITS, "two_exits", label)
        for w in range(0, len(group), 32):
            iterations = {g[1] for g in group[w:w + 32] if g[0] == kind}
            extra += size * max(0, len(iterations) - 1)
    stack, lowest = runs["stack"]["launch"], runs["lowest-pc"]["launch"]
    assert extra > 0
    assert stack.thread_instructions == lowest.thread_instructions
    assert stack.warp_instructions - lowest.warp_instructions == extra
    assert runs["its"]["launch"].warp_instructions == lowest.warp_instructions
    assert runs["stack"]["efficiency"] < runs["lowest-pc"]["efficiency"]


@pytest.mark.parametrize("runs", ["cross_edge_runs", "two_exits_runs"])
def test_whole_array_and_per_warp_stack_updates_agree(runs, request):
    _, runs = request.getfixturevalue(runs)
    fast, slow = runs["stack"], runs[StackOneWarpAtATime.name]
    for key in fast:
        if key == "launch":
            assert (fast[key].warp_instructions, fast[key].thread_instructions, fast[key].rounds) == \
                   (slow[key].warp_instructions, slow[key].thread_instructions, slow[key].rounds)
        elif key != "efficiency":
            assert np.array_equal(fast[key], slow[key]), key
