"""A pipelined loop's waits on its own asynchronous groups, for the walk of one warp alone.

Two kinds of group end with a wait that names no scoreboard of the control codes, so the walk
(walk.py) would not see it:

- cp.async: LDGSTS copies, committed by LDGDEPBAR (which counts groups on a scoreboard SBn);
  DEPBAR.LE SBn, N waits until at most N of them are pending;
- wgmma: HGMMAs (QGMMA for fp8), the last of a group marked `gsb0`; WARPGROUP.DEPBAR.LE gsb0, N waits until at
  most N groups are pending.

A loop (Triton's K loops: one block; a hand-written ring: branches and inner loops too) keeps groups
in flight across iterations: at a wait, the group it needs was committed earlier in the iteration or
some iterations back. The loop is run
iteration by iteration from the walk's gaps (each instruction issues at its offset plus the waits
before it in the iteration), until the waits repeat, and each wait's steady-state cycles are
charged to the waiting instruction: long_scoreboard for cp.async (as Nsight Compute counts DEPBAR
on LDGSTS) and barrier for wgmma (as it counts WARPGROUP.DEPBAR: the twenty-sixth microbenchmark
batch, where a warpgroup's wait for its wgmmas is its top stall with no BAR in its loop, and its
`gmma` stall grows only with how far apart its warps reach the wgmmas). In closed form, with a
group committed m iterations back at offset t_c after the wait at t_w (offsets without waiting),
T0 the iteration's length without waiting and L the group's latency from its commit, the period
is T = max(T0, (t_c - t_w + L) / m).

L for cp.async is the copy's latency from L2 or HBM (eighth and sixty-eighth microbenchmark batches)
plus the group's bytes at the warp's share of its SM's copy rate; for a wgmma group, its HGMMAs'
issue interval times their count (they run one after another on the tensor core) plus the last
one's latency beyond its interval.
"""

from __future__ import annotations

import numpy as np

from .pipes import WGMMA_OPCODES, tensor_cycles
from .tensor_core import hgmma_latency

COPY_COMMIT, COPY_WAIT = "LDGDEPBAR", "DEPBAR"
MMA_WAIT = "WARPGROUP"


def _is_copy_wait(ins) -> bool:
    return ins.opcode == COPY_WAIT and "LE" in ins.mods and len(ins.operands) >= 2 and \
        ins.operands[0].kind == "scoreboard" and ins.operands[1].value is not None


def is_mma_wait(ins) -> bool:
    return ins.opcode == MMA_WAIT and "DEPBAR" in ins.mods and len(ins.operands) >= 2 and \
        ins.operands[1].value is not None


def _is_mma_commit(ins) -> bool:
    return ins.opcode in WGMMA_OPCODES and any(op.text == "gsb0" for op in ins.operands)


COPY_REASON, MMA_REASON = "long_scoreboard", "barrier"    # Nsight Compute's names for the two waits
ITERATIONS = 240         # iterations a loop is run for its steady state
STEADY = 60              # the last ones, averaged (a whole number of cycles of 1 to 6 iterations)


def add_group_waits(function, walk, preset, copy_latency: float, executions, copy_bytes=None,
                    copy_rate: float = np.inf, tensor_sharers: float = 1.0) -> None:
    """Charge each loop's waits on its cp.async and wgmma groups to walk.cost (in place): the loop is
    run iteration by iteration (`_run_loop`) and its last iterations' waits averaged.
    A copy group lands a copy's latency (copy_latency) after its commit, plus the time its bytes take
    to reach the SM: copy_bytes[i], the bytes of a warp's execution of copy i, at copy_rate bytes a
    cycle (the warp's share of its SM's fill rate). The sixty-eighth batch on an H100: 16 KB stages
    that 8-32 CTAs read from HBM at once took 1,250-1,400 cycles from commit to landing where one
    line took 690.

    A loop's mean iteration is its instructions in address order, each taking its walk gap as often
    as it runs an iteration (executions, the sample's warp executions of each instruction, over its
    first instruction's): a branch taken half the time counts half, an inner loop's body as many
    times as it turns. Its commits and waits must run once an iteration (else the loop is left
    alone: groups committed on some iterations only are not modelled); inner loops come first and a
    wait is charged once.

    A copy group's wait counts the time its warp's HGMMAs queue behind the other warps sharing their
    sub-partition's tensor core (`tensor_sharers` warps, it among them, the HGMMAs taking turns) as
    time the copies fly: a two-warpgroup matmul's iteration takes both warpgroups' tensor-core time,
    which hides a stage's latency that one warpgroup alone would wait for. Its wgmma waits are the
    warp's alone (the tensor core's queue is the queueing network's)."""

    instructions = function.instructions
    gap = walk.gap()
    charged = set()
    for start, end in loop_bodies(function.blocks):
        entries = executions[start]
        if entries <= 0:
            continue
        per_iteration = executions[start:end] / entries
        transfer = 0.0
        if copy_bytes is not None:
            commits = sum(per_iteration[i - start] for i in range(start, end) if instructions[i].opcode == COPY_COMMIT)
            transfer = float(copy_bytes[start:end] @ per_iteration) / max(1.0, commits) / copy_rate
        events = [e for e in _events(instructions, start, end, preset, copy_latency + transfer) if e[0] not in charged]
        if not any(kind == "wait" for _, kind, _ in events):
            continue
        if any(abs(per_iteration[i - start] - 1.0) > 1e-6 for i, _, _ in events):
            continue
        offsets = np.cumsum(gap[start:end] * per_iteration)
        waits = _run_loop(events, offsets, float(offsets[-1]), start)
        if tensor_sharers > 1 and any(kind == "mma" for _, kind, _ in events):
            shared = _run_loop(events, offsets, float(offsets[-1]), start, tensor_sharers)
            waits.update({i: shared.get(i, (reason, 0.0)) for i, (reason, _) in waits.items()
                          if reason == COPY_REASON})
        for i, (reason, cycles) in waits.items():
            walk.cost[reason][i] += cycles
            charged.add(i)


def loop_bodies(blocks) -> list:
    """[start, end) of each loop, innermost first: a block branching back to a block at or before it
    closes a loop from that block's start to its own end (ptxas lays a loop's blocks out in one
    run). Its body may branch and hold inner loops (add_group_waits weighs each instruction by how
    often it runs); a Triton K loop is one block, or several where an instruction that ends a block
    without branching splits it (the WARPSYNC.ALL ptxas puts before a loop's wgmmas when warps took
    different paths to it)."""
    loops = []
    for block in blocks:
        if not block.reachable or block.end <= block.start:
            continue
        for head in sorted(h for h in block.successors if h <= block.index):
            loops.append((blocks[head].start, block.end))
    return sorted(set(loops), key=lambda span: (span[1] - span[0], span[0]))


def _events(instructions, start: int, end: int, preset, copy_latency: float) -> list:
    """(index, 'commit' | 'mma' | 'wait', payload) of a block, in order. A commit's payload is its queue
    ('copy' or 'mma') and the group's latency; an HGMMA's its interval and latency; a wait's its queue
    and how many groups it lets pend."""
    events = []
    for i in range(start, end):
        ins = instructions[i]
        if ins.opcode == COPY_COMMIT:
            events.append((i, "commit", ("copy", copy_latency)))
        elif _is_copy_wait(ins):
            events.append((i, "wait", ("copy", ins.operands[1].value)))
        elif ins.opcode in WGMMA_OPCODES:
            events.append((i, "mma", (tensor_cycles(ins.opcode, ins.mods, preset), hgmma_latency(ins.mods, preset),
                                      _is_mma_commit(ins))))
        elif is_mma_wait(ins):
            events.append((i, "wait", ("mma", ins.operands[1].value)))
    return events


def _run_loop(events: list, offsets, t0: float, start: int, tensor_sharers: float = 1.0) -> dict:
    """The loop run iteration by iteration. An instruction issues at its offset in the iteration (the
    walk's gaps) plus the waits before it; a wait lasts until the group it needs is ready (the
    (pending + 1)-th newest of its queue; groups of the loop's entry count as done). HGMMAs run one
    after another on the tensor core, each holding it `tensor_sharers` times its interval (its turn and
    the other warps'); a wgmma group is ready its last HGMMA's latency beyond that HGMMA's interval
    after the core finishes it; a cp.async group its latency after its commit.
    Returns {instruction: (reason, mean wait over the last STEADY iterations)}."""
    ready = {"copy": [], "mma": []}
    pipe_free = -np.inf
    sums = {}
    begin = 0.0
    for iteration in range(ITERATIONS):
        delay = 0.0
        for i, kind, payload in events:
            t = begin + offsets[i - start] + delay
            if kind == "commit":
                queue, latency = payload
                ready[queue].append(t + latency)
            elif kind == "mma":
                interval, latency, commits = payload
                pipe_free = max(pipe_free, t) + interval * tensor_sharers
                if commits:
                    ready["mma"].append(pipe_free + latency - interval)
            else:
                queue, pending = payload
                groups = ready[queue]
                need = groups[len(groups) - 1 - pending] if len(groups) > pending else -np.inf
                wait = max(0.0, need - t)
                delay += wait
                if iteration >= ITERATIONS - STEADY:
                    reason = COPY_REASON if queue == "copy" else MMA_REASON
                    sums[i] = (reason, sums.get(i, (reason, 0.0))[1] + wait / STEADY)
        begin += t0 + delay
    return sums


def copy_group_latency(preset, dram_fraction: float) -> float:
    """Cycles from a cp.async group's commit until its copies have landed: the copy latency from
    L2 and from HBM (eighth batch, one thread's 16-byte copies), mixed as the launch's reads are."""
    return dram_fraction * preset.cp_async_latency_hbm + (1.0 - dram_fraction) * preset.cp_async_latency_l2


def cp_async_l2_share(preset, active_sms: int):
    """Bytes per SM clock an SM's cp.async copies draw from L2 when `active_sms` SMs copy at once: the
    chip's measured rate at that many SMs (interpolated between the measured counts), shared among
    them. Fewer SMs draw less of the chip's L2 bandwidth (66 SMs 3.3 KB/clk, 132 SMs 5.1 KB/clk on the
    H200). None where the preset has no table."""
    table = preset.cp_async_l2_bytes_per_clk
    if not table:
        return None
    sms = np.array(sorted(table), dtype=float)
    chip = np.array([table[k] for k in sorted(table)], dtype=float)
    k = float(max(1, active_sms))
    total = float(np.interp(k, sms, chip)) if k <= sms[-1] else float(chip[-1])
    return total / k
