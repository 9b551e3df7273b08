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
and consumed in the next) count in steady state. A block starts with the
scoreboards its predecessor left pending: with the launch's execution counts,
the predecessor that most of its executions come from, by a jump, a fall-
through or a loop's back edge (the function is walked twice, so a loop's head
starts from its latch's steady state, and a branch never taken leaves no
state); without them, the block before it in the code when it falls through.
"""

from __future__ import annotations

import numpy as np

from ..sass.stall_reasons import WALK, produced_by
from .facts import function_facts
from .pipes import stall_reason_of_wait

REASONS = produced_by(WALK)     # selected, wait, short_scoreboard, long_scoreboard, barrier, branch_resolving
DELAYS_OF_WALK = tuple(r for r in REASONS if r != "selected")     # the walk's cycles a warp waits alone
READ_LATENCY = 4.0          # cycles until a store's or atomic's source registers are read


class Walk:
    """Per SASS instruction: cycles of each reason before it issues (arrays over instructions)."""

    def __init__(self, n: int):
        self.cost = {r: np.zeros(n) for r in REASONS}

    def gap(self) -> np.ndarray:
        return sum(self.cost.values())


def release(ready: dict, barrier: int, at: float, reason: str, load: tuple | None = None) -> None:
    """A producer's scoreboard `barrier` released at `at`: a scoreboard counts its producers in
    flight, so a consumer waiting on it waits for the last of them (two loads on one barrier: the
    slower one), not for the one set last. `load`: (region, share from HBM) of a memory load, kept
    with its time for the consumer's spread (spread_wait)."""
    pending = ready.get(barrier)
    loads = pending[2] if pending is not None else ()
    if load is not None:
        loads = loads + ((at, *load),)
    if pending is None or at >= pending[0]:
        ready[barrier] = (at, reason, loads)
    else:
        ready[barrier] = (pending[0], pending[1], loads)


def spread_wait(outstanding: list, spread_cycles: float) -> float:
    """What a warp waits beyond one load's latency for loads still in flight from k regions at once:
    the slowest of them, spread_cycles (1 - 1/k) scaled by their share from HBM (forty-sixth batch, on
    an H100: one iteration a trip, k loads from k arrays, 763 cycles at k = 1, 868 / 893 / 913 at
    k = 2 / 3 / 4; from one stream, lines 128 bytes apart, 763-786)."""
    regions = {region for _, region, _ in outstanding}
    if len(regions) < 2:
        return 0.0
    share = sum(hbm for _, _, hbm in outstanding) / len(outstanding)
    return spread_cycles * (1.0 - 1.0 / len(regions)) * share


def walk_function(function, preset, memory_latency: dict, barrier_cycles: float = 0.0,
                  executed: np.ndarray | None = None, memory_regions: dict | None = None,
                  split_share: np.ndarray | None = None, slow_resume_share: np.ndarray | None = None) -> Walk:
    """Walk every reachable block of `function` (a SassFunction).

    memory_latency: instruction index -> expected latency of that global/local load (cycles);
    loads without an entry get the preset's L2 hit latency.
    barrier_cycles: the wait charged to each BAR (the model's estimate of the CTA's skew).
    executed: per instruction, how many times warps issued it (the launch's counts): what decides
    the predecessor whose pending scoreboards a block starts with.
    memory_regions: load instruction index -> (the region it reads, its share from HBM): a consumer
    of loads from several regions waits for the slowest (spread_wait).
    split_share: per instruction, the share of a BRA's issues that split the warp (Execution.split_share):
    each costs branch_split_cycles of branch_resolving more (presets' sixty-first batch).
    slow_resume_share: per instruction, the share of a BRA's issues that split the half of the warp an
    earlier split ran first (Execution.slow_resume_share): each costs slow_resume_cycles more, the wait
    to resume that earlier split's other half (sass/compiled/resumes.py).
    """
    facts = function_facts(function)
    tables = (facts, facts.on(preset))
    walk = Walk(len(function.instructions))
    blocks = [b for b in function.blocks if b.reachable and b.end > b.start]
    loop_heads = {s for b in blocks for s in b.successors if s < b.index}
    sources = _main_predecessors(blocks, executed) if executed is not None else None
    exits = {}                   # block index -> (pending scoreboards relative to its last issue, the cycles
    #                              its last instruction holds the issue)
    for record in ((False, True) if sources is not None else (True,)):
        previous = None
        for block in function.blocks:
            if not block.reachable or block.end <= block.start:
                previous = None
                continue
            if sources is not None:
                state = exits.get(sources[block.index])
            elif block.index in loop_heads:
                # the head of a loop of several blocks: a wait its fall-through predecessor left pending is
                # paid once on entering the loop, not on every iteration the back edge starts
                state = None
            else:
                state = exits.get(previous.index) if previous is not None and previous.end == block.start else None
            exits[block.index] = _walk_block(block, tables, preset, memory_latency, barrier_cycles, walk.cost,
                                             state or ({}, None), record, memory_regions or {})
            previous = block
    if split_share is not None:
        walk.cost["branch_resolving"] += split_share * preset.branch_split_cycles
    if slow_resume_share is not None:
        walk.cost["branch_resolving"] += slow_resume_share * preset.slow_resume_cycles
    return walk


def _main_predecessors(blocks: list, executed) -> dict:
    """Block index -> the index of the predecessor most of its executions come from (None where no
    executed one leads to it). A branch's executions go to its executed successors in proportion to
    theirs."""
    runs = {b.index: float(executed[b.start]) for b in blocks}
    flow = {}
    for b in blocks:
        if runs[b.index] <= 0:
            continue
        going = [s for s in b.successors if runs.get(s, 0.0) > 0]
        total = sum(runs[s] for s in going)
        for s in going:
            share = runs[b.index] * runs[s] / total
            if share > flow.get(s, (0.0, None))[0]:
                flow[s] = (share, b.index)
    return {b.index: flow[b.index][1] if b.index in flow else None for b in blocks}


def _walk_block(block, tables, preset, memory_latency, barrier_cycles, cost, state, record: bool,
                memory_regions: dict) -> tuple:
    """One block from `state` (pending scoreboards, the cycles the instruction before it holds the issue);
    a block that branches to itself twice, the second pass its steady state. Adds its costs to `cost`
    where `record`; returns the state it leaves. `tables`: the function's FunctionFacts and their
    PresetFacts on `preset` (facts.py: each control code read once per kernel)."""
    facts, on_gpu = tables
    pipes, opcodes, latencies = facts.pipes, facts.opcodes, on_gpu.result_latency
    issue_after, waits_on, reasons = facts.issue_after, facts.waits_on, facts.wait_reason
    write_barrier, read_barrier = facts.write_barrier, facts.read_barrier
    defers, waits_for_deferred, joins_jump_table = facts.defers, facts.waits_for_deferred, facts.joins_jump_table
    pending, held = state
    default_mem = (preset.l2_hit_latency_near + preset.l2_hit_latency_far) / 2
    spread = preset.hbm_latency_spread
    passes = 2 if block.index in block.successors else 1
    for p in range(passes):
        keep = record and p == passes - 1
        t = 0.0                  # the previous instruction issued at 0 (none: the first issues at 0)
        ready = dict(pending)
        deferred = 0.0           # a BAR.SYNC.DEFER_BLOCKING's wait the warp has not yet issued past
        for i in range(block.start, block.end):
            # a deferred BAR that ends its block is waited for at the BAR: nothing of the block issues past it
            deferring = defers[i] and i < block.end - 1
            fixed = 0.0 if held is None else held
            t_fixed = t + fixed
            t_issue, reason = t_fixed, None
            outstanding = []
            for sb in waits_on[i]:
                if sb in ready:
                    r_t, r_reason, loads = ready[sb]
                    if r_t > t_issue:
                        t_issue, reason = r_t, r_reason
                    if loads:
                        outstanding.extend(load for load in loads if load[0] > t_fixed)
                        ready[sb] = (r_t, r_reason, ())         # the consumer has them all
            if len(outstanding) > 1:
                extra = spread_wait(outstanding, spread)
                if extra > 0.0:
                    t_issue, reason = t_issue + extra, "long_scoreboard"
            if keep:
                cost["selected"][i] = 1.0
                cost["wait"][i] = max(0.0, fixed - 1.0)
                if reason is not None:
                    cost[reason][i] += t_issue - t_fixed
                if pipes[i] == "barrier" and not deferring:
                    cost["barrier"][i] += barrier_cycles
                elif opcodes[i] == "BSYNC":     # per group of lanes arriving (sass/issues.py)
                    cost["branch_resolving"][i] += preset.bsync_cycles_jump_table if joins_jump_table[i] \
                        else preset.bsync_cycles
            if deferred > 0.0:
                # the warp issued on while the barrier resolved: that much of its wait is behind it, and
                # Nsight Compute counts the warp's fixed waits meanwhile as `barrier` (the twenty-seventh
                # batch's one FFMA a __syncthreads: 1.8 barrier and 1.8 wait an issue, where the stall
                # counts alone give 3.8 wait; its rounds at 2 warps 29.9 cycles, the counts and the refetch 29.4)
                hidden = min(deferred, t_issue - t)
                deferred -= hidden
                if keep:
                    relabelled = min(hidden, cost["wait"][i])
                    cost["wait"][i] -= relabelled
                    cost["barrier"][i] += relabelled
                if waits_for_deferred[i] or i == block.end - 1:
                    if keep:
                        cost["barrier"][i] += deferred
                    deferred = 0.0
            if deferring:
                deferred = barrier_cycles
            t = t_issue
            if write_barrier[i] is not None:
                lat = latencies[i]
                release(ready, write_barrier[i], t + (memory_latency.get(i, default_mem) if lat is None else lat),
                        reasons[i] or stall_reason_of_wait(pipes[i]), memory_regions.get(i))
            if read_barrier[i] is not None:
                release(ready, read_barrier[i], t + READ_LATENCY, "short_scoreboard")
            held = issue_after[i]
        pending = {sb: (rt - t, rr, tuple((lt - t, region, hbm) for lt, region, hbm in loads if lt - t > 0))
                   for sb, (rt, rr, loads) in ready.items() if rt - t > 0}
    return pending, held
