"""The SM clock a kernel reads (%clock, %clock64; SASS's SR_CLOCKLO/HI and CS2R), from the warp
instructions a batch has issued.

A GPU's clock counts the SM's cycles. warpsim runs no cycles, so the clock stands for the cycles the
issues so far would take: a warp alone issues one dependent instruction every
LONE_WARP_CYCLES_PER_ISSUE cycles (a chain of FADD, FFMA or IMAD: 4.07 cycles on an H200, the
preset's alu_latency and fma_latency), an SM's four schedulers issue at most one each a cycle, and
the batch's CTAs spread over the SMs. So a busy-wait on clock64() for N cycles runs about as many
iterations as on the GPU (N over its few instructions' cycles, not N over their count), and the
timing model's time for it is about N cycles too; a kernel timing a stretch of its own code with
clock64() reads about the cycles that stretch takes beside the other warps of its SM. The SASS
executor knows more: each instruction's control code says how many cycles it holds its warp's issue
(sass_clock), as the timing model's walk reads them. The value only ever increases within a batch,
as a clock must.
"""

from __future__ import annotations

LONE_WARP_CYCLES_PER_ISSUE = 4     # a dependent ALU/FMA chain's issue interval, cycles (H200: 4.07)
SCHEDULERS_PER_SM = 4              # warp instructions an SM issues a cycle, at most
SMS = 132                          # the H200's SMs (machine/isa/moves.NUM_SMS is this)


def cycles_per_issue(warps: int, ctas: int, sms: int = SMS) -> float:
    """SM cycles one warp instruction issued by a batch of `warps` warps in `ctas` CTAs stands for:
    the inverse of the issues a cycle of the SMs its CTAs fill."""
    sms_used = max(1, min(ctas, sms))
    warps_per_sm = max(1, -(-warps // sms_used))
    per_sm = min(SCHEDULERS_PER_SM, warps_per_sm / LONE_WARP_CYCLES_PER_ISSUE)
    return 1.0 / (per_sm * sms_used)


def sm_clock(issued: int, warps: int, ctas: int) -> int:
    """The 64-bit clock after `issued` warp instructions of the batch (cycles_per_issue)."""
    return int(issued * cycles_per_issue(warps, ctas))


def issue_cycles(stall: int | None) -> int:
    """The cycles a SASS instruction holds its warp's issue: its control code's stall count (ptxas
    sets it to the next instruction's fixed-latency wait), at least one."""
    return max(1, stall or 1)


def sass_clock(stall_cycles: int, warps: int, ctas: int, sms: int = SMS) -> int:
    """The SASS executor's clock: the stall cycles of the steps its groups ran (each group's block as
    one warp alone would issue it), stretched where an SM's warps outnumber what its schedulers
    issue beside each other (more than SCHEDULERS_PER_SM x LONE_WARP_CYCLES_PER_ISSUE)."""
    warps_per_sm = max(1, -(-warps // max(1, min(ctas, sms))))
    crowding = max(1.0, warps_per_sm / (SCHEDULERS_PER_SM * LONE_WARP_CYCLES_PER_ISSUE))
    return int(stall_cycles * crowding)
