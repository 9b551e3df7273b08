"""The SM clock a kernel reads (%clock, %clock64; SASS's SR_CLOCKLO/HI and CS2R), from the warp
instructions a batch has issued.

A GPU's clock counts the SM's cycles. warpsim runs no cycles, so the clock stands for the cycles the
issues so far would take: a warp alone issues one dependent instruction every
LONE_WARP_CYCLES_PER_ISSUE cycles (a chain of FADD, FFMA or IMAD: 4.07 cycles on an H200, the
preset's alu_latency and fma_latency), and an SM's four schedulers issue at most one each a cycle
among the launch's warps on that SM. So a busy-wait on clock64() for N cycles runs about as many
iterations as on the GPU (N over its few instructions' cycles, not N over their count), and the
timing model's time for it is about N cycles too; a kernel timing a stretch of its own code with
clock64() reads about the cycles that stretch takes beside the other warps of its SM. Where the
kernel's SASS is known (the SASS executor always; the PTX machine through its clock source,
machine/engine.block_cycles) an instruction counts what it holds a lone warp's issue: its control
code's stall count (issue_cycles), a taken branch's refetch (branch_cycles) and an S2R's scoreboard
wait (SPECIAL_REGISTER_LATENCY; sass/ir.SassFunction.block_clock_cycles), so a one-warp wait runs
the GPU's iterations. The value only ever increases within a batch, as a clock must.
"""

from __future__ import annotations

LONE_WARP_CYCLES_PER_ISSUE = 4     # a dependent ALU/FMA chain's issue interval, cycles (H200: 4.07)
SCHEDULERS_PER_SM = 4              # warp instructions an SM issues a cycle, at most
SMS = 132                          # the H200's SMs (machine/isa/moves.NUM_SMS is this)
MAX_WARPS_PER_SM = 64              # the H200's resident warps an SM


def warps_per_sm(grid, block) -> int:
    """The warps a launch keeps on each SM it fills: its warps over min(CTAs, SMS) SMs, at most an
    SM's 64 (later waves take turns). From the launch, not the batch warpsim runs: a batch is a part
    of what runs side by side."""
    ctas = max(1, int(grid[0]) * int(grid[1]) * int(grid[2]))
    warps_per_cta = -(-int(block[0]) * int(block[1]) * int(block[2]) // 32)
    return min(MAX_WARPS_PER_SM, max(1, -(-ctas * warps_per_cta // min(ctas, SMS))))


def round_cycles(grid, block) -> float:
    """Cycles a warp of the launch takes for each instruction it issues: LONE_WARP_CYCLES_PER_ISSUE
    alone, or its turn among the SM's warps where they outnumber what four schedulers issue."""
    return max(float(LONE_WARP_CYCLES_PER_ISSUE), warps_per_sm(grid, block) / SCHEDULERS_PER_SM)


def clock_per_cycle(batch_warps: int, grid, block) -> float:
    """Clock ticks one issue cycle of a warp instruction of a batch of `batch_warps` warps stands for:
    a round in which each of them issues an instruction of LONE_WARP_CYCLES_PER_ISSUE cycles takes
    round_cycles."""
    return round_cycles(grid, block) / (LONE_WARP_CYCLES_PER_ISSUE * max(1, batch_warps))


def sm_clock(cycles: float, batch_warps: int, grid, block) -> int:
    """The 64-bit clock after the batch's warp instructions of `cycles` issue cycles in all (each PTX
    instruction LONE_WARP_CYCLES_PER_ISSUE, or the cycles of the SASS it stands for where the kernel's
    SASS is known: machine/engine.block_cycles)."""
    return int(cycles * clock_per_cycle(batch_warps, grid, block))


def issue_cycles(stall: int | None) -> int:
    """The cycles a SASS instruction holds its warp's issue: its control code's stall count (ptxas
    sets it to the next instruction's fixed-latency wait), at least one."""
    return max(1, stall or 1)


TAKEN_BRANCH_CYCLES = 5     # a taken branch's target resolution and refetch beyond its stall count (H200;
                            # the timing presets' branch_taken_cycles)
SPECIAL_REGISTER_LATENCY = 20   # an S2R's result (a special register: %clock, %tid) through its scoreboard
                                # (the timing walk's latency of the 'special' pipe)


def branch_cycles(at: int, target: int | None, conditional: bool) -> int:
    """The cycles a branch at instruction `at` to instruction `target` adds to its stall count on the
    clock: TAKEN_BRANCH_CYCLES where it is taken by rule, as a lone warp's loop takes its latch: an
    unconditional branch, or a conditional one back to an earlier instruction (a guarded branch
    forward is counted not taken). A one-warp wait on clock64() then runs the GPU's iterations
    (validation/clock: an H100's 39 cycles an iteration where the stall counts add to 34)."""
    if target is None:
        return 0
    return TAKEN_BRANCH_CYCLES if not conditional or target <= at else 0


def sass_clock(stall_cycles: int, grid, block) -> int:
    """The SASS executor's clock: the stall cycles of the steps its groups ran (each group's block as
    one warp alone would issue it), stretched where the SM's warps outnumber what its schedulers
    issue beside each other (round_cycles over LONE_WARP_CYCLES_PER_ISSUE)."""
    return int(stall_cycles * round_cycles(grid, block) / LONE_WARP_CYCLES_PER_ISSUE)
