"""One warp alone through each SASS block: the cycles between consecutive issues, and why.

ptxas encodes fixed-latency dependencies in the stall count of the producer
(the warp may not issue again for that many cycles) and variable-latency
ones in scoreboards: the producer names a write barrier released when its
result arrives, the consumer a wait mask. Walking a block in order with
those two rules gives, for every instruction, the gap before it issues in a
warp that has the sub-partition to itself. The gap is split into Nsight
Compute's stall reasons: `selected` (the issue cycle), `wait` (the fixed
stall count), `short_scoreboard` / `long_scoreboard` (waiting on a
scoreboard of an MIO or a memory producer), `barrier`.

A block that branches to itself is walked twice and the second pass kept,
so a loop's carried scoreboards (a load issued at the end of one iteration
and consumed in the next) count in steady state. A block entered by fall-
through starts with the scoreboards its predecessor left pending.
"""

from __future__ import annotations

import numpy as np

from ..sass.stall_reasons import WALK, produced_by
from .pipes import pipe_of, result_latency, stall_reason_of_wait

REASONS = produced_by(WALK)     # selected, wait, short_scoreboard, long_scoreboard, barrier, branch_resolving
DELAYS_OF_WALK = tuple(r for r in REASONS if r != "selected")     # the walk's cycles a warp waits alone
READ_LATENCY = 4.0          # cycles until a store's or atomic's source registers are read


class Walk:
    """Per SASS instruction: cycles of each reason before it issues (arrays over instructions)."""

    def __init__(self, n: int):
        self.cost = {r: np.zeros(n) for r in REASONS}

    def gap(self) -> np.ndarray:
        return sum(self.cost.values())


def instruction_facts(function, preset):
    """(pipes, opcodes) per instruction of a SassFunction."""
    opcodes = [ins.opcode for ins in function.instructions]
    return [pipe_of(op) for op in opcodes], opcodes


def release(ready: dict, barrier: int, at: float, reason: str) -> None:
    """A producer's scoreboard `barrier` released at `at`: a scoreboard counts its producers in
    flight, so a consumer waiting on it waits for the last of them (two loads on one barrier: the
    slower one), not for the one set last."""
    pending = ready.get(barrier)
    if pending is None or at >= pending[0]:
        ready[barrier] = (at, reason)


def walk_function(function, preset, memory_latency: dict, barrier_cycles: float = 0.0) -> Walk:
    """Walk every reachable block of `function` (a SassFunction).

    memory_latency: instruction index -> expected latency of that global/local load (cycles);
    loads without an entry get the preset's L2 hit latency.
    barrier_cycles: the wait charged to each BAR (the model's estimate of the CTA's skew).
    """
    instructions = function.instructions
    pipes, opcodes = instruction_facts(function, preset)
    walk = Walk(len(instructions))
    cost = walk.cost
    default_mem = (preset.l2_hit_latency_near + preset.l2_hit_latency_far) / 2
    exit_state = None            # (pending scoreboards relative to the last issue, its stall count)
    previous_end = None
    back_edge_targets = {s for b in function.blocks if b.reachable for s in b.successors if s < b.index}
    for block in function.blocks:
        if not block.reachable or block.end <= block.start:
            previous_end = None
            continue
        loops = block.index in block.successors
        pending, stall_prev = exit_state if (exit_state and previous_end == block.start) else ({}, None)
        if block.index in back_edge_targets:
            # the head of a loop of several blocks: a wait its fall-through predecessor left pending is
            # paid once on entering the loop, not on every iteration the back edge starts
            pending = {}
        passes = 2 if loops else 1
        for p in range(passes):
            record = p == passes - 1
            t = 0.0                  # the previous instruction issued at 0 (none: the first issues at 0)
            ready = dict(pending)
            for i in range(block.start, block.end):
                ins = instructions[i]
                cc = ins.control
                fixed = 0.0 if stall_prev is None else max(1.0, float(stall_prev))
                t_fixed = t + fixed
                t_issue, reason = t_fixed, None
                if cc is not None and cc.wait_mask:
                    for sb in range(6):
                        if cc.wait_mask >> sb & 1 and sb in ready:
                            r_t, r_reason = ready[sb]
                            if r_t > t_issue:
                                t_issue, reason = r_t, r_reason
                if record:
                    cost["selected"][i] = 1.0
                    cost["wait"][i] = max(0.0, fixed - 1.0)
                    if reason is not None:
                        cost[reason][i] += t_issue - t_fixed
                    if pipes[i] == "barrier":
                        cost["barrier"][i] += barrier_cycles
                    elif opcodes[i] == "BSYNC":     # per group of lanes arriving (sass/issues.py)
                        cost["branch_resolving"][i] += preset.bsync_cycles
                t = t_issue
                if cc is not None:
                    if cc.write_barrier is not None:
                        pipe = pipes[i]
                        lat = memory_latency.get(i, default_mem) if pipe in ("global", "local") else \
                            result_latency(opcodes[i], pipe, preset)
                        release(ready, cc.write_barrier, t + lat, stall_reason_of_wait(pipe))
                    if cc.read_barrier is not None:
                        release(ready, cc.read_barrier, t + READ_LATENCY, "short_scoreboard")
                    stall_prev = cc.stall
                else:
                    stall_prev = 1
            pending = {sb: (rt - t, rr) for sb, (rt, rr) in ready.items() if rt - t > 0}
        exit_state = (pending, stall_prev)
        previous_end = block.end
    return walk
