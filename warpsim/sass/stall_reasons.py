"""Nsight Compute's warp stall reasons, in one table: the timing model, its per-line view and the
metric names all derive their lists from it.

A reason is what a warp that did not issue in a cycle was waiting for. `produced_by` names
the parts of warpsim's timing model that charge it (an empty tuple: Nsight Compute reports
it, warpsim predicts none), so a reason is added here once, and then charged in the module
of the component that produces it:

- WALK: one warp alone through each SASS block, from its control codes and scoreboards
  (timing/walk.py), charged per instruction;
- TAKEN_BRANCHES: refetching and resolving after a taken branch (timing/model.py);
- QUEUEING: waiting behind other warps for the issue slot, a pipe, the MIO, L1 or memory
  bandwidth (timing/model.py's closed queueing network);
- CHIP: a chip-wide bound longer than the SMs' time (timing/model.py).

Table order is the order the model's stations and sums use, so it is part of the figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from .executor.table import PIPES

WALK, TAKEN_BRANCHES, QUEUEING, CHIP = "walk", "taken branches", "queueing", "chip-wide bound"


@dataclass(frozen=True)
class StallReason:
    name: str                       # Nsight Compute's name, as in its metrics
    description: str                # what the warp waits for
    produced_by: tuple = ()         # WALK, TAKEN_BRANCHES, QUEUEING, CHIP
    scoreboard_pipes: tuple = ()    # pipes whose scoreboard-released results a warp waits for here

    @property
    def metric(self) -> str:
        """Nsight Compute's metric: warps stalled for this reason per issue-active cycle."""
        return f"smsp__average_warps_issue_stalled_{self.name}_per_issue_active.ratio"


_MEMORY_PIPES = ("global", "local")
# every other pipe of the SASS opcode table releases through an MIO scoreboard
_MIO_PIPES = tuple(p for p in PIPES if p not in _MEMORY_PIPES)

STALL_REASONS = (
    StallReason("selected", "issuing this cycle (the issue itself)", (WALK, QUEUEING)),
    StallReason("wait", "a fixed-latency dependency: the producer's stall count in its control code, "
                "or its pipe's own time", (WALK, QUEUEING)),
    StallReason("short_scoreboard", "a result from the MIO: shared memory, MUFU, conversions, special "
                "registers", (WALK,), _MIO_PIPES),
    StallReason("long_scoreboard", "a result from global or local memory (L1TEX)", (WALK, QUEUEING, CHIP),
                _MEMORY_PIPES),
    StallReason("barrier", "the other warps of the CTA at a barrier, or a warpgroup's wgmma groups not yet "
                "complete (WARPGROUP.DEPBAR)", (WALK,)),
    StallReason("gmma", "the other warps of a warpgroup not yet at its wgmma"),
    StallReason("branch_resolving", "a branch target being computed", (WALK, TAKEN_BRANCHES)),
    StallReason("no_instruction", "instructions not fetched yet (after a taken branch)", (TAKEN_BRANCHES,)),
    StallReason("not_selected", "eligible, but another warp was selected", (QUEUEING,)),
    StallReason("math_pipe_throttle", "a math pipe busy with other warps' instructions", (QUEUEING,)),
    StallReason("mio_throttle", "the MIO queue full (shared memory, MUFU)", (QUEUEING,)),
    StallReason("lg_throttle", "the L1TEX queue for global and local memory full", (QUEUEING,)),
    StallReason("drain", "stores and atomics draining to memory after EXIT", (CHIP,)),
    StallReason("dispatch_stall", "the dispatcher holding back an issued instruction (the register banks "
                "serving more reads than issues)", (QUEUEING,)),
    StallReason("imc_miss", "an immediate constant cache miss"),
    StallReason("membar", "a memory barrier"),
    StallReason("misc", "a reason Nsight Compute does not name"),
    StallReason("sleeping", "NANOSLEEP, or all threads of the warp blocked or sleeping"),
    StallReason("tex_throttle", "the texture unit's queue full"),
)

BY_NAME = {reason.name: reason for reason in STALL_REASONS}


def produced_by(component: str) -> tuple:
    """Names of the reasons `component` charges, in table order."""
    return tuple(r.name for r in STALL_REASONS if component in r.produced_by)


def reason_of_scoreboard_wait(pipe: str) -> str:
    """The reason a warp waiting on the scoreboard of a producer on `pipe` is counted under."""
    for reason in STALL_REASONS:
        if pipe in reason.scoreboard_pipes:
            return reason.name
    raise KeyError(f"no stall reason waits on the scoreboard of pipe {pipe!r} (sass/stall_reasons.py)")
