"""What the timing model reads of a kernel's SASS that no launch changes, worked out once.

Every launch the model predicts went through the same per-instruction tables: each
instruction's pipe, which are branches and barriers, its register-bank reads, the stretches
between CTA barriers, and with a GPU preset the cycles it holds its pipe. A loop of small
launches paid for those tables each time (bench/timing_cost.py: most of the model's cost on a
4 ms launch), so they are kept on the SassFunction, the preset's beside it. They depend on the
function's instructions and blocks only (and on the preset), never on the launch's geometry or
counts. The arrays are read-only: the model shares them between launches.
"""

from __future__ import annotations

import numpy as np

from ..semantics.clock import issue_cycles
from .async_groups import is_mma_wait
from .pipes import (
    QUEUE_PIPES,
    pipe_cycles,
    pipe_of,
    pipe_passes,
    result_latency,
    stall_reason_of_wait,
    tensor_cycles,
)
from .register_banks import bank_reads

BRANCH_OPCODES = ("BRA", "BRX", "JMP", "JMX")
# What waits for a BAR.SYNC.DEFER_BLOCKING: the warp issues value instructions on while its barrier
# resolves, and stops at the first instruction of these pipes (a branch, another barrier, a memory
# access, a shuffle or a tensor-core instruction; NOP aside). walk.py charges the barrier's wait there,
# less the cycles the warp spent issuing and waiting meanwhile.
DEFERRED_BARRIER_WAITERS = ("branch", "barrier", "global", "shared", "local", "warp", "tensor", "special")
MEMORY_PIPES = ("global", "local")      # loads whose latency the model works out per launch (walk.py)
SCOREBOARDS = 6           # a control code's scoreboards (its wait mask's bits)
PRESETS_KEPT = 4          # presets whose tables a function keeps (a GPU and its tensor-clock copy, say)


class FunctionFacts:
    """Per instruction of one SassFunction: what the model reads of it on any GPU."""

    def __init__(self, function):
        self.instructions = instructions = function.instructions
        n = len(instructions)
        self.opcodes = [ins.opcode for ins in instructions]
        self.pipes = [pipe_of(ins.opcode, ins.mods) for ins in instructions]
        self.passes = [pipe_passes(ins.opcode, ins.mods) for ins in instructions]
        self.branches = [i for i, op in enumerate(self.opcodes) if op in BRANCH_OPCODES]
        self.guarded = {i: instructions[i].is_guarded for i in self.branches}
        self.is_barrier = _frozen(np.array([p == "barrier" for p in self.pipes], dtype=float))
        self.defers = [ins.opcode == "BAR" and "DEFER_BLOCKING" in ins.mods for ins in instructions]
        self.joins_jump_table = joins_jump_table(function)
        self.waits_for_deferred = [p in DEFERRED_BARRIER_WAITERS and op != "NOP"
                                   for p, op in zip(self.pipes, self.opcodes)]
        self.is_wgmma_wait = _frozen(np.array([is_mma_wait(ins) for ins in instructions], dtype=float))
        self.is_fp32 = _frozen(np.array([p == "fp32" for p in self.pipes], dtype=float))
        self.is_exit = _frozen(np.array([op == "EXIT" for op in self.opcodes], dtype=float))
        self.issues_to_pipe = _frozen(np.array([1.0 if p not in ("branch", "uniform") else 0.0 for p in self.pipes]))
        self.bank_reads = _frozen(bank_reads(instructions, self.pipes))
        # which stretch between CTA barriers each instruction is in, one-hot: stretch b ends at the b-th BAR
        barrier_at = np.flatnonzero(self.is_barrier)
        self.in_stretch = _frozen(np.eye(len(barrier_at) + 1)[np.searchsorted(barrier_at, np.arange(n))]) \
            if len(barrier_at) else None
        self.before_barrier = _frozen(before_barrier(function, self.is_barrier))
        # the walk's reading of each control code (walk.py): the cycles it holds the warp's issue, the
        # scoreboards it waits on (in order), the ones it sets, and why a wait on what it writes stalls
        controls = [ins.control for ins in instructions]
        self.issue_after = [float(issue_cycles(cc.stall if cc is not None else 1)) for cc in controls]
        self.waits_on = [tuple(sb for sb in range(SCOREBOARDS) if cc.wait_mask >> sb & 1)
                         if cc is not None and cc.wait_mask else () for cc in controls]
        self.write_barrier = [cc.write_barrier if cc is not None else None for cc in controls]
        self.read_barrier = [cc.read_barrier if cc is not None else None for cc in controls]
        self.wait_reason = [_scoreboard_reason(p) if wb is not None else None
                            for p, wb in zip(self.pipes, self.write_barrier)]
        self._presets: list = []      # [(preset, PresetFacts)], the latest last

    def on(self, preset) -> PresetFacts:
        """The tables of this function on `preset` (made on first use, kept for a few presets)."""
        for kept, facts in self._presets:
            if kept is preset:
                return facts
        for kept, facts in self._presets:
            if kept == preset:        # an equal copy (presets are frozen dataclasses)
                return facts
        facts = PresetFacts(self, preset)
        self._presets = self._presets[-(PRESETS_KEPT - 1):] + [(preset, facts)]
        return facts


class PresetFacts:
    """Per instruction of one SassFunction on one GPU preset: the cycles it holds each unit of its
    sub-partition (the issue slot, each register bank, each pipe) and the tensor core."""

    def __init__(self, facts: FunctionFacts, preset):
        n = len(facts.pipes)
        hold = pipe_cycles(preset)
        self.pipe_hold = {p: _frozen(np.array([hold[p] * k if q == p else 0.0
                                               for q, k in zip(facts.pipes, facts.passes)]))
                          for p in QUEUE_PIPES}
        self.pipe_hold["tensor"] = _frozen(np.array([tensor_cycles(ins.opcode, ins.mods, preset) if q == "tensor"
                                                     else 0.0 for ins, q in zip(facts.instructions, facts.pipes)]))
        # what each instruction holds its sub-partition for: the issue slot or its pipe, and apart from
        # that the tensor core, which runs a wgmma while the warps issue on
        self.unit_holds = [_frozen(np.ones(n))] + list(facts.bank_reads.T) + \
            [self.pipe_hold[p] for p in QUEUE_PIPES if p != "tensor"]
        self.hold = _frozen(np.maximum.reduce(self.unit_holds))
        # the tensor core and the FP32 datapath do not work at once: a sub-partition's wgmma time and
        # its FP32 instructions' issues add up (seventeenth batch: a warpgroup's wgmma loop beside
        # another's FFMA loop in the same sub-partitions takes 0.87 of the two alone added, ncu's
        # dispatch_stall 1.27 an issue; beside MUFU work it keeps its pace)
        self.hold_tensor = _frozen(self.pipe_hold["tensor"] + facts.is_fp32 * hold["fp32"])
        # cycles until a scoreboard-released result is ready; None for memory, whose latency the model
        # works out per launch
        self.result_latency = [None if q in MEMORY_PIPES else result_latency(op, q, preset)
                               for op, q in zip(facts.opcodes, facts.pipes)]


def function_facts(function) -> FunctionFacts:
    """The FunctionFacts of a SassFunction, kept on it (made again for an object that keeps nothing)."""
    found = getattr(function, "_timing_facts", None)
    if found is not None and found.instructions is function.instructions:
        return found
    facts = FunctionFacts(function)
    try:
        function._timing_facts = facts
    except AttributeError:           # (a frozen or slotted stand-in for a function)
        pass
    return facts


def joins_jump_table(function) -> list:
    """Per instruction: whether it is a BSYNC whose BSSY region (the BSSY to the label at or just past it)
    holds an indirect branch (BRX), a switch compiled to a jump table. Groups of lanes arriving there
    cost far more than at a BSYNC after compares and branches (presets' bsync_cycles_jump_table)."""
    instructions = function.instructions
    joins = [False] * len(instructions)
    for start, ins in enumerate(instructions):
        end = function.labels.get(ins.branch_target) if ins.opcode == "BSSY" else None
        if end is None or not any(i.opcode == "BRX" for i in instructions[start:end]):
            continue
        for k in (end, end - 1):
            if 0 <= k < len(instructions) and instructions[k].opcode == "BSYNC":
                joins[k] = True
                break
    return joins


def before_barrier(function, is_barrier: np.ndarray) -> np.ndarray:
    """Per instruction, 1 where a CTA barrier can still come before the warp exits: a BAR later in its
    block or in a block reachable from it (a loop's body after its BAR meets that BAR again), so the
    warp's queueing there spreads the CTA's warps at a barrier, not at their end."""
    blocks = function.blocks
    reaches = {b.index: bool(is_barrier[b.start:b.end].any()) for b in blocks}
    changed = True
    while changed:
        changed = False
        for b in blocks:
            if not reaches[b.index] and any(reaches.get(s, False) for s in b.successors):
                reaches[b.index] = changed = True
    out = np.zeros(len(is_barrier))
    for b in blocks:
        later = any(reaches.get(s, False) for s in b.successors)
        for i in range(b.start, b.end):
            out[i] = float(later or is_barrier[i:b.end].any())
    return out


def _scoreboard_reason(pipe: str) -> str | None:
    """stall_reason_of_wait, None for a pipe no reason waits on (the walk raises that if it gets there)."""
    try:
        return stall_reason_of_wait(pipe)
    except KeyError:
        return None


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array
