"""The short cuts of a small launch give what the long way gives.

The first round skips the scheduling model's select (every thread starts at the
entry block), and a block whose lanes all exit writes no register back. Both are
checked against the long way: select on the same starting state, and the
registers a later block could read.
"""

import numpy as np
import pytest

from warpsim.machine.engine import starting_group
from warpsim.machine.liveness import ALWAYS_WRITTEN, exits_every_lane, kept_registers
from warpsim.machine.program import Program
from warpsim.machine.scheduling import NO_PC, MODELS
from warpsim.machine.state import LaunchState
from warpsim.ptx.parser import parse_ptx
from warpsim.settings import current

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

# One block: load the parameters, store one value per thread, exit.
STORE = HEADER + r"""
.visible .entry store(.param .u64 out, .param .u32 v)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [v];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r1;
    ret;
}
"""

# The first block's registers are read by the second; the second's lanes all exit, the
# guarded exit of the first does not make every lane leave.
TWO_BLOCKS = HEADER + r"""
.visible .entry two(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.gt.u32 %p1, %r1, 40;
    @%p1 ret;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
"""


def launch_state(ptx, kernel, threads, ctas=1):
    program = Program(parse_ptx(ptx, "<test>"), "<test>")
    return LaunchState(program, kernel, (ctas, 1, 1), (threads, 1, 1), np.arange(ctas),
                       np.zeros(16, np.uint8), 0, 0, None, current())


@pytest.mark.parametrize("threads,ctas", [(32, 1), (45, 3), (1, 2), (1024, 1)])
@pytest.mark.parametrize("name", ["its", "lowest-pc"])
def test_converged_start_is_what_select_gives(name, threads, ctas):
    model = MODELS[name]
    quick, slow = (launch_state(STORE, "store", threads, ctas) for _ in range(2))
    for ctx in (quick, slow):
        model.start(ctx)
    assert model.select_converged_start(quick)
    warp_pc, chosen = model.select(slow, slow.status == 0)
    [(gid, slots, warps)] = starting_group(quick)
    assert (warp_pc != NO_PC).all() and (warp_pc == gid).all()
    expected = (np.arange(slow.n_warps)[:, None] * 32 + np.arange(32))[chosen]
    assert np.array_equal(slots, expected)
    assert np.array_equal(warps, np.arange(slow.n_warps))
    for state in ("starved", "rotating", "last_pc"):
        assert np.array_equal(getattr(quick, state), getattr(slow, state)), state


def test_the_stack_model_asks_select():
    ctx = launch_state(STORE, "store", 32)
    MODELS["stack"].start(ctx)
    assert not MODELS["stack"].select_converged_start(ctx)


def test_a_block_whose_lanes_exit_writes_nothing_back():
    program = Program(parse_ptx(STORE, "<test>"), "<test>")
    [block] = program.blocks
    assert exits_every_lane(block)
    assert kept_registers(program, block) == ALWAYS_WRITTEN


def test_registers_a_later_block_reads_are_still_written_back():
    program = Program(parse_ptx(TWO_BLOCKS, "<test>"), "<test>")
    first, second = program.blocks
    assert not exits_every_lane(first)          # a guarded ret: the other lanes go on
    assert {"%rd1", "%r1"} <= kept_registers(program, first)
    assert exits_every_lane(second)
    assert kept_registers(program, second) == ALWAYS_WRITTEN


@pytest.mark.parametrize("scheduling", ["its", "lowest-pc", "stack"])
def test_a_one_block_launch_stores_and_counts(scheduling):
    from warpsim.machine.device import Device
    device = Device(memory_size=1 << 20)
    loaded = device.load_module(STORE, "<test>")
    threads, ctas = 45, 3
    out = device.memory.allocate(4 * threads)
    device.memory.memset(out, 0, 4 * threads)
    value = int(np.random.default_rng(5).integers(1, 1 << 31))
    params = np.array([out], np.uint64).tobytes() + np.array([value], np.uint32).tobytes()
    for _ in range(2):                          # the second launch runs from the caches
        result = loaded.launch("store", (ctas, 1, 1), (threads, 1, 1), params, scheduling=scheduling)
        got = np.frombuffer(bytes(device.memory.read_bytes(out, 4 * threads)), np.uint32)
        assert (got == value).all()
        assert result.rounds == 1
        assert result.warp_instructions == ctas * 2 * 8          # two warps a CTA, eight instructions
        assert result.thread_instructions == ctas * threads * 8


def _random_round_state(ctx, rng, gid):
    """Every warp's runnable lanes at block gid; other lanes exited or at a barrier; the
    model's per-warp state from earlier rounds made up."""
    from warpsim.machine.state import AT_BARRIER, EXITED, RUNNING
    status = rng.choice([RUNNING, EXITED, AT_BARRIER], size=ctx.n, p=[0.6, 0.3, 0.1]).astype(np.uint8)
    status[np.arange(ctx.n_warps) * 32 + rng.integers(0, 32, ctx.n_warps)] = RUNNING
    status[~ctx.exists] = EXITED
    for w in range(ctx.n_warps):                      # a warp with no living lane runs its first one
        lanes = np.arange(w * 32, w * 32 + 32)
        if not (status[lanes] == RUNNING).any():
            status[lanes[ctx.exists[lanes]][0]] = RUNNING
    ctx.status[:] = status
    ctx.pc[:] = np.where(status == RUNNING, gid, rng.integers(0, 3, ctx.n))
    ctx.starved = rng.integers(0, 3000, ctx.n_warps)
    ctx.rotating = rng.random(ctx.n_warps) < 0.3
    ctx.last_pc = rng.integers(0, 3, ctx.n_warps)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", ["its", "lowest-pc"])
def test_a_converged_round_is_what_select_gives(name, seed):
    from warpsim.machine.engine import LANES, converged_group, issuing_groups
    rng = np.random.default_rng(seed)
    model = MODELS[name]
    threads, ctas = int(rng.integers(1, 300)), int(rng.integers(1, 4))
    quick, slow = (launch_state(TWO_BLOCKS, "two", threads, ctas) for _ in range(2))
    _random_round_state(slow, rng, gid=1)
    for name_ in ("pc", "status", "starved", "rotating", "last_pc"):
        setattr(quick, name_, getattr(slow, name_).copy())
    runnable = slow.status == 0
    [(gid, idx, warps)] = converged_group(quick, model, runnable)
    [(want_gid, want_idx, want_warps)] = issuing_groups(slow, model, runnable, LANES)
    assert gid == want_gid == 1
    assert np.array_equal(idx, want_idx) and np.array_equal(warps, want_warps)
    for state in ("starved", "rotating", "last_pc"):
        assert np.array_equal(getattr(quick, state), getattr(slow, state)), state


def test_a_divergent_round_goes_to_select():
    from warpsim.machine.engine import converged_group
    ctx = launch_state(TWO_BLOCKS, "two", 64)
    ctx.pc[5] = 1                                     # one lane ahead of the others
    assert converged_group(ctx, MODELS["its"], ctx.status == 0) is None
    assert converged_group(ctx, MODELS["stack"], np.ones(ctx.n, bool)) is None
