"""The scheduling models on synthetic warp states: no compiler, no engine loop.

A hand-written PTX module gives the blocks and their post-dominators; the
tests move lanes by hand (as if a block had run) and look at what the model
selects and how the reconvergence stack pushes and pops.
"""

import numpy as np
import pytest

import warpsim
from warpsim.errors import LaunchError
from warpsim.machine.program import Program
from warpsim.machine.scheduling import (MODELS, NO_PC, LowestPc, ReconvergenceStack, get_model,
                                        lane_bits, model_for, register_model)
from warpsim.machine.scheduling.stack import EXIT
from warpsim.machine.state import AT_BARRIER, EXITED, LaunchState
from warpsim.ptx.parser import parse_ptx
from warpsim.settings import current

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

# B0 splits even/odd lanes; the odd side (B1) sends some lanes into the middle
# of the even side (B4, past B3), the rest through B2; everything joins at B5.
CROSS = HEADER + r"""
.visible .entry cross(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    mov.u32 %r1, %laneid;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra THEN;
    and.b32 %r3, %r1, 3;
    setp.eq.u32 %p2, %r3, 1;
    @%p2 bra MID;
    add.s32 %r4, %r1, 7;
    bra JOIN;
THEN:
    add.s32 %r4, %r1, 1;
MID:
    shfl.sync.idx.b32 %r5, %r4, 0, 31, -1;
    add.s32 %r4, %r4, %r5;
JOIN:
    ret;
}
"""
B0, ELSE, ELSE2, THEN, MID, JOIN = range(6)
ALL = 0xFFFFFFFF
EVEN, ODD = 0x55555555, 0xAAAAAAAA
INTO_MID, THROUGH_ELSE2 = 0x22222222, 0x88888888


def launch_state(ptx=CROSS, kernel="cross", threads=32):
    program = Program(parse_ptx(ptx, "<test>"), "<test>")
    return LaunchState(program, kernel, (1, 1, 1), (threads, 1, 1), np.arange(1), np.zeros(16, np.uint8),
                       0, 0, None, current())


def mask_lanes(mask):
    return np.flatnonzero([(mask >> k) & 1 for k in range(32)])


def move(ctx, mask, gid):
    """As if the lanes in `mask` (warp 0) had run their block and gone to `gid`."""
    ctx.pc[mask_lanes(mask)] = gid


def select(model, ctx):
    warp_pc, chosen = model.select(ctx, ctx.status == 0)
    return int(warp_pc[0]), int(lane_bits(chosen)[0])


@pytest.fixture
def stack():
    model = ReconvergenceStack()
    ctx = launch_state()
    model.start(ctx)
    return model, ctx


def test_the_program_has_the_blocks_the_tests_name():
    ctx = launch_state()
    cfg = ctx.program.cfgs["cross"]
    assert [b.successors for b in cfg.blocks] == [[THEN, ELSE], [MID, ELSE2], [JOIN], [MID], [JOIN], []]
    assert cfg.blocks[B0].ipdom == JOIN and cfg.blocks[ELSE].ipdom == JOIN


def test_a_converged_warp_issues_its_whole_mask_and_keeps_one_entry(stack):
    model, ctx = stack
    assert select(model, ctx) == (B0, ALL)
    assert ctx.scheduling_state.entries(0) == [(B0, ALL, (EXIT, 0))]


def test_divergence_turns_the_top_into_the_reconvergence_entry_and_pushes_each_side(stack):
    model, ctx = stack
    select(model, ctx)
    move(ctx, EVEN, THEN)
    move(ctx, ODD, ELSE)
    assert select(model, ctx) == (ELSE, ODD)              # lowest block first
    assert ctx.scheduling_state.entries(0) == [
        (JOIN, ALL, (EXIT, 0)), (THEN, EVEN, (JOIN, 0)), (ELSE, ODD, (JOIN, 0))]


def test_a_branch_that_reconverges_where_the_top_does_replaces_the_top(stack):
    model, ctx = stack
    select(model, ctx)
    move(ctx, EVEN, THEN)
    move(ctx, ODD, ELSE)
    select(model, ctx)
    move(ctx, INTO_MID, MID)
    move(ctx, THROUGH_ELSE2, ELSE2)
    assert select(model, ctx) == (ELSE2, THROUGH_ELSE2)
    assert ctx.scheduling_state.entries(0) == [
        (JOIN, ALL, (EXIT, 0)), (THEN, EVEN, (JOIN, 0)), (MID, INTO_MID, (JOIN, 0)),
        (ELSE2, THROUGH_ELSE2, (JOIN, 0))]


def test_the_stack_runs_the_shared_block_once_per_entry_where_lowest_pc_merges(stack):
    model, ctx = stack
    issued = []
    route = {B0: [(EVEN, THEN), (ODD, ELSE)], ELSE: [(INTO_MID, MID), (THROUGH_ELSE2, ELSE2)]}
    for _ in range(8):
        pc, lanes = select(model, ctx)
        if pc == NO_PC:
            break
        issued.append((pc, lanes))
        for mask, target in route.get(pc, [(lanes, pc + 1 if pc != ELSE2 else JOIN)]):
            move(ctx, mask & lanes, target)
        if pc == JOIN:
            ctx.status[:] = EXITED
            ctx.pc[:] = -1
    assert issued == [(B0, ALL), (ELSE, ODD), (ELSE2, THROUGH_ELSE2), (MID, INTO_MID),
                      (THEN, EVEN), (MID, EVEN), (JOIN, ALL)]
    assert ctx.scheduling_state.top[0] == -1              # every entry popped

    lowest, ctx = LowestPc(), launch_state()
    lowest.start(ctx)
    issued = []
    for _ in range(8):
        pc, lanes = select(lowest, ctx)
        if pc == NO_PC:
            break
        issued.append((pc, lanes))
        for mask, target in route.get(pc, [(lanes, pc + 1 if pc != ELSE2 else JOIN)]):
            move(ctx, mask & lanes, target)
        if pc == JOIN:
            ctx.status[:] = EXITED
            ctx.pc[:] = -1
    assert issued == [(B0, ALL), (ELSE, ODD), (ELSE2, THROUGH_ELSE2), (THEN, EVEN),
                      (MID, EVEN | INTO_MID), (JOIN, ALL)]


def test_lanes_that_exit_leave_the_stack(stack):
    model, ctx = stack
    select(model, ctx)
    move(ctx, EVEN, THEN)
    move(ctx, ODD, ELSE)
    select(model, ctx)
    ctx.status[mask_lanes(ODD)] = EXITED                  # the odd side exits instead
    ctx.pc[mask_lanes(ODD)] = -1
    assert select(model, ctx) == (THEN, EVEN)
    ctx.status[mask_lanes(EVEN)] = EXITED
    ctx.pc[mask_lanes(EVEN)] = -1
    assert select(model, ctx)[0] == NO_PC
    assert ctx.scheduling_state.top[0] == -1


def test_lanes_at_a_barrier_keep_the_warp_until_they_are_released(stack):
    model, ctx = stack
    select(model, ctx)
    ctx.status[:] = AT_BARRIER                            # as if B0 were a barrier block
    assert select(model, ctx)[0] == NO_PC
    assert select(model, ctx)[0] == NO_PC
    ctx.status[:] = 0                                     # released: moved to the next block
    ctx.pc[:] = ELSE
    assert select(model, ctx) == (ELSE, ALL)


def test_a_block_that_loops_to_itself_stays_on_top(stack):
    model, ctx = stack
    select(model, ctx)                                    # lanes ran B0 and are at B0 again
    assert select(model, ctx) == (B0, ALL)
    assert ctx.scheduling_state.entries(0) == [(B0, ALL, (EXIT, 0))]


def meet_at_mid(model, ctx, issuing):
    """Both sides at MID; the model is asked to run MID for `issuing` only."""
    move(ctx, EVEN | INTO_MID, MID)
    move(ctx, THROUGH_ELSE2, JOIN)
    idx = mask_lanes(issuing)
    return model.meet(ctx, ctx.program.blocks[MID], idx)


def test_a_sync_instruction_is_met_only_by_the_stack_entry_that_issues_it(stack):
    model, ctx = stack
    with pytest.raises(LaunchError, match="not converged"):
        meet_at_mid(model, ctx, INTO_MID)


def test_lowest_pc_takes_every_lane_at_the_block_into_the_meeting():
    model, ctx = LowestPc(), launch_state()
    model.start(ctx)
    move(ctx, THROUGH_ELSE2, JOIN)
    ctx.status[mask_lanes(THROUGH_ELSE2)] = EXITED
    met = meet_at_mid(model, ctx, EVEN | INTO_MID)
    assert lane_bits(np.isin(np.arange(32), met)[None])[0] == EVEN | INTO_MID


def test_registry_names_and_auto():
    assert {"its", "stack", "lowest-pc"} <= set(MODELS)
    assert model_for("auto", ("sm_60",)).name == "stack"
    assert model_for("auto", ("sm_80",)).name == "its"
    assert get_model("lowest-pc").name == "lowest-pc"
    with pytest.raises(ValueError, match="unknown scheduling model 'nope'.*its, stack, lowest-pc"):
        get_model("nope")


def test_settings_accept_registered_names_only():
    with pytest.raises(ValueError, match="choose from auto, its, stack, lowest-pc"):
        with warpsim.settings(scheduling="pre-volta"):
            pass
    with warpsim.settings(scheduling="lowest-pc"):
        assert current().scheduling == "lowest-pc"


def test_a_model_must_have_a_name():
    class Nameless(ReconvergenceStack):
        name = ""
    with pytest.raises(ValueError, match="name"):
        register_model(Nameless())
