"""The SM clock kernels read (semantics/clock.py), on the PTX machine and the SASS executor."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.semantics.clock import LONE_WARP_CYCLES_PER_ISSUE, SMS, clock_per_cycle

pytestmark = pytest.mark.nvrtc

SPIN = r"""
extern "C" __global__ void spin(long long cycles, long long *waited, int *rounds, unsigned *low_word) {
    long long start = clock64(), now = start;
    unsigned start32 = clock();
    int n = 0;
    while (now - start < cycles) { now = clock64(); ++n; }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    waited[i] = now - start;
    rounds[i] = n;
    low_word[i] = clock() - start32;
}
"""


def test_an_issue_stands_for_a_round_of_the_launchs_warps_on_their_sm():
    def per_issue(batch_warps, grid, block):        # clock ticks of one PTX instruction without SASS
        return LONE_WARP_CYCLES_PER_ISSUE * clock_per_cycle(batch_warps, grid, block)
    one = LONE_WARP_CYCLES_PER_ISSUE
    assert per_issue(1, (1, 1, 1), (1, 1, 1)) == one                 # one warp: its dependent chain
    assert per_issue(8, (1, 1, 1), (256, 1, 1)) == pytest.approx(one / 8)
    assert per_issue(32, (1, 1, 1), (1024, 1, 1)) == pytest.approx(8 / 32)   # 8 a scheduler: turns
    # a batch of a larger launch: the launch's 64 warps an SM set the pace, not the batch's
    assert per_issue(4096, (1056, 1, 1), (256, 1, 1)) == pytest.approx(16 / 4096)
    assert per_issue(256, (1056, 1, 1), (256, 1, 1)) == pytest.approx(16 / 256)
    assert per_issue(SMS, (SMS, 1, 1), (32, 1, 1)) == pytest.approx(one / SMS)   # a warp on each SM


def _spin(blocks: int, threads: int, cycles: int, profiled: bool):
    f = cp.RawModule(code=SPIN).get_function("spin")
    n = blocks * threads
    waited, rounds, low = cp.zeros(n, np.int64), cp.zeros(n, np.int32), cp.zeros(n, np.uint32)
    args = (np.int64(cycles), waited, rounds, low)
    if profiled:
        with cp.settings(sass_verify=False), cp.profile(level="sass") as prof:
            f((blocks,), (threads,), args)
        assert prof[0].execution == "sass", prof[0].execution_note
    else:
        f((blocks,), (threads,), args)
    return waited.get(), rounds.get(), low.get()


@pytest.mark.parametrize("profiled", [False, True], ids=["ptx", "sass"])
def test_a_busy_wait_runs_the_iterations_its_cycles_take(profiled):
    cycles = 4000
    waited, rounds, low = _spin(1, 1, cycles, profiled)
    assert cycles <= waited[0] < cycles + 64                # it stops at the first reading past the wait
    assert low[0] >= waited[0]                              # the 32-bit clock() reads the same clock
    # each iteration issues a few dependent instructions, each 4 cycles apart for a warp alone: far
    # fewer iterations than cycles, and not fewer than a 64-instruction iteration would give
    assert cycles / (64 * LONE_WARP_CYCLES_PER_ISSUE) < rounds[0] < cycles / (2 * LONE_WARP_CYCLES_PER_ISSUE)


def test_warps_sharing_an_sm_wait_fewer_iterations_each():
    cycles = 4000
    _, alone, _ = _spin(1, 1, cycles, profiled=False)
    _, shared, _ = _spin(1, 1024, cycles, profiled=False)
    # 32 warps on one SM's four schedulers issue every 8 cycles each, where one warp alone issues every 4
    assert shared.max() == pytest.approx(alone[0] / 2, rel=0.1)


def test_the_sass_clock_advances_by_the_loops_stall_counts():
    """On the SASS executor each instruction holds its warp's issue for its control code's stall count,
    as on the GPU, and the latch's taken branch its refetch: a one-warp wait runs cycles / (the loop's
    stall counts and a taken branch) iterations."""
    from warpsim.sass import sass_of
    from warpsim.semantics.clock import TAKEN_BRANCH_CYCLES, issue_cycles
    cycles = 4000
    _, rounds, _ = _spin(1, 1, cycles, profiled=True)
    f = cp.RawModule(code=SPIN).get_function("spin")
    instructions = sass_of(f.loaded_module).kernel("spin").instructions
    clock_reads = [k for k, ins in enumerate(instructions) if ins.opcode in ("CS2R", "S2UR", "S2R")
                   and any(op.text.startswith("SR_CLOCK") for op in ins.operands)]
    branch = next(k for k in range(clock_reads[1], len(instructions)) if instructions[k].opcode == "BRA")
    loop = sum(issue_cycles(ins.control.stall) for ins in instructions[clock_reads[1]:branch + 1])
    assert loop > 2 * 4                              # ptxas's stall counts, not one cycle an instruction
    loop += TAKEN_BRANCH_CYCLES                      # and the latch's taken branch
    assert rounds[0] == pytest.approx(cycles / loop, rel=0.05)      # (the loop block may hold one more)


def test_the_ptx_machine_runs_the_wait_as_the_sass_executor_does():
    """A kernel that reads the clock has each PTX block clocked by the SASS it stands for (the
    machine's clock source, sass/ptx_blocks.py): a plain launch, a profile with a GPU and the SASS
    executor run the same iterations, and the timing model predicts the same cycles from either."""
    cycles = 40000
    f = cp.RawModule(code=SPIN).get_function("spin")
    runs = {}
    for level in ("ptx", "sass"):
        waited, rounds, low = cp.zeros(1, np.int64), cp.zeros(1, np.int32), cp.zeros(1, np.uint32)
        with cp.settings(sass_verify=False, gpu="h200"), cp.profile(level=level) as prof:
            f((1,), (1,), (np.int64(cycles), waited, rounds, low))
        assert prof[0].execution == level
        runs[level] = int(rounds.get()[0]), prof[0].timing.cycles
    _, plain, _ = _spin(1, 1, cycles, profiled=False)
    assert runs["ptx"][0] == pytest.approx(runs["sass"][0], abs=2) == plain[0]
    assert runs["ptx"][1] == pytest.approx(runs["sass"][1], rel=0.1)


def test_without_sass_a_ptx_instruction_is_four_cycles(monkeypatch):
    """Where no clock source knows the kernel's SASS (ptxas refused its PTX), each PTX instruction
    stands for LONE_WARP_CYCLES_PER_ISSUE cycles: more iterations than the SASS's clock gives."""
    from warpsim.machine import engine
    _, with_sass, _ = _spin(1, 1, 4000, profiled=False)
    monkeypatch.setattr(engine, "CLOCK_SOURCES", [])
    f = cp.RawModule(code=SPIN + "\n").get_function("spin")      # a fresh module: nothing kept
    waited, rounds, low = cp.zeros(1, np.int64), cp.zeros(1, np.int32), cp.zeros(1, np.uint32)
    f((1,), (1,), (np.int64(4000), waited, rounds, low))
    assert rounds.get()[0] > 1.5 * with_sass[0]


def test_a_branch_is_taken_by_rule_when_unconditional_or_backward():
    from warpsim.semantics.clock import TAKEN_BRANCH_CYCLES, branch_cycles
    assert branch_cycles(10, 3, conditional=True) == TAKEN_BRANCH_CYCLES      # a loop's latch
    assert branch_cycles(10, 20, conditional=True) == 0                        # an if's jump forward
    assert branch_cycles(10, 20, conditional=False) == TAKEN_BRANCH_CYCLES     # a plain jump
    assert branch_cycles(10, None, conditional=False) == 0                     # no target it names


CLOCK32 = r"""
extern "C" __global__ void wait32(long long cycles, long long *waited) {
    unsigned start = clock();
    long long offset = 0;
    while (offset < cycles) offset = (long long)(unsigned)(clock() - start);
    waited[0] = offset;
}
"""


@pytest.mark.parametrize("level", ["ptx", "sass"])
def test_a_wait_on_the_32_bit_clock_takes_its_cycles(level):
    """clock() reads SR_CLOCKLO through S2R, and the compare waits on its scoreboard: the clock counts
    that wait as the timing model does, so the predicted time of the wait is its cycles."""
    cycles = 200000
    f = cp.RawModule(code=CLOCK32).get_function("wait32")
    waited = cp.zeros(1, np.int64)
    with cp.settings(sass_verify=False, gpu="h200"), cp.profile(level=level) as prof:
        f((1,), (1,), (np.int64(cycles), waited))
    assert cycles <= waited.get()[0] < cycles + 100
    assert prof[0].timing.cycles == pytest.approx(cycles, rel=0.05)
