"""A kernel's SASS made ready to run: every reachable instruction decoded into a Step, in blocks.

Blocks here are the units the engine issues: they start at the SASS blocks'
starts, at every label a branch or call names, and at each instruction where
lanes wait for each other (BSYNC, WARPSYNC, BAR, UCGABAR_WAIT), which is a
block of its own so that lanes stop just before it. A block ends after a control instruction
(BRA, EXIT, CALL, RET, BRX), so lanes only ever stand at block starts.

Loading decodes every instruction control can reach (from the entry, through
branches, calls and fall-through); anything the executor does not implement
is collected and raised as one SassUnsupported, before a lane runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compiled.segment import segments_of
from .control import LINKED
from .errors import SassUnsupported
from .operands import predicate
from .table import (NO_WAIT, WAIT_BAR, WAIT_BSYNC, WAIT_KINDS, WAIT_POLL, WAIT_WARPSYNC,  # noqa: F401
                    Step, Unsupported, build_step)
from .tensor import hgmma_highest_register

INSTRUCTION_BYTES = 16
ENDS_BLOCK = {"BRA", "JMP", "EXIT", "KILL", "CALL", "RET", "BRX"}


@dataclass
class ExecBlock:
    index: int
    start: int                 # instruction indices [start, end)
    end: int
    steps: list                # Step per instruction
    guards: list               # guard reader or None, per step
    control: Step | None       # the last step when it is a control instruction
    issue_cycles: int = 0      # a lone warp's cycles for it on the clock (SassFunction.block_clock_cycles)

    @property
    def instructions(self) -> list:
        return [step.ins for step in self.steps]


class SassProgram:
    """The executable form of one SASS function (a kernel and the functions ptxas put in its section)."""

    def __init__(self, function):
        self.function = function
        self.name = function.name
        self.instructions = function.instructions
        for k, ins in enumerate(self.instructions):
            if ins.offset != k * INSTRUCTION_BYTES:
                raise SassUnsupported(function.name, [(ins.text, "instructions not contiguous")])
        self.labels = dict(function.labels)
        self.function_start = 0
        self.registers, self.uniform_registers = _register_counts(self.instructions)
        reachable = self._reachable()
        steps, problems = {}, []
        for k in sorted(reachable):
            ins = self.instructions[k]
            try:
                built = build_step(ins)
                if not isinstance(built, Step):
                    built = LINKED[ins.opcode](ins, self)
                steps[k] = built
            except Unsupported as why:
                problems.append((ins.full_opcode if str(why) != "unknown opcode" else ins.opcode,
                                 f"{why} at /*{ins.offset:04x}*/"))
        if problems:
            unique = list(dict.fromkeys(problems))
            raise SassUnsupported(function.name, unique)
        self.steps = steps
        self.blocks, self.block_at = self._blocks(reachable)
        self.yields = np.zeros(len(self.instructions) + 1, dtype=bool)   # PCs of blocks with a YIELD
        for block in self.blocks:
            if any(step.ins.opcode == "YIELD" for step in block.steps):
                self.yields[block.start:block.end] = True
        self.wait_kind = np.zeros(len(self.instructions) + 1, dtype=np.int8)
        for k, step in steps.items():
            if step.wait is not None:
                self.wait_kind[k] = WAIT_KINDS[step.wait[0]]
        self.segments, self.segment_why = segments_of(self)

    def index_of(self, ins) -> int:
        return ins.offset // INSTRUCTION_BYTES

    def index_of_offsets(self, base: int, offsets: np.ndarray) -> np.ndarray:
        return (np.asarray(offsets, dtype=np.int64) + base) // INSTRUCTION_BYTES

    def successors(self, k: int) -> list:
        ins = self.instructions[k]
        out = []
        label = ins.branch_target
        if label is not None and label in self.labels:
            out.append(self.labels[label])
        if ins.opcode in ("EXIT", "KILL", "RET") and not ins.is_conditional:
            return out
        if ins.opcode in ("BRA", "JMP") and not ins.is_conditional and "DIV" not in ins.mods:
            return out
        if ins.opcode == "BRX":
            missing = [label for label in ins.branch_targets if label not in self.labels]
            if not ins.branch_targets or missing:
                raise SassUnsupported(self.name, [(ins.full_opcode, "indirect branch without its target list "
                                                   f"at /*{ins.offset:04x}*/")])
            out = [self.labels[label] for label in ins.branch_targets]
            return out + [k + 1] if ins.is_guarded else out
        out.append(k + 1)
        return out

    def _reachable(self) -> set:
        seen, stack = set(), [0]
        count = len(self.instructions)
        while stack:
            k = stack.pop()
            if k in seen or k >= count:
                continue
            seen.add(k)
            stack.extend(self.successors(k))
        return seen

    def _blocks(self, reachable: set):
        starts = {0}
        for block in self.function.blocks:
            starts.add(block.start)
        starts.update(index for index in self.labels.values())
        for k, step in self.steps.items():
            if step.wait is not None:
                starts.update((k, k + 1))
            if step.target is not None or self.instructions[k].opcode in ENDS_BLOCK:
                starts.add(k + 1)
        ordered = sorted(s for s in starts if s in reachable)
        blocks, block_at = [], {}
        for start in ordered:
            end = start
            while True:
                end += 1
                if end in starts or end not in reachable or end >= len(self.instructions):
                    break
            steps = [self.steps[k] for k in range(start, end)]
            guards = [predicate(step.ins.guard) if step.ins.is_guarded and not step.reads_guard else None
                      for step in steps]
            control = steps[-1] if steps[-1].target is not None else None
            cycles = self.function.block_clock_cycles(start, end)
            block = ExecBlock(len(blocks), start, end, steps, guards, control, cycles)
            block_at[start] = block
            blocks.append(block)
        return blocks, block_at


def _register_counts(instructions) -> tuple:
    """(R rows, UR rows) to allocate: the highest register named, plus room for 128-bit operands."""
    high_r, high_ur = 0, 0

    def visit(op):
        nonlocal high_r, high_ur
        if op.kind == "reg" and op.number is not None:
            high_r = max(high_r, op.number)
        elif op.kind == "ureg" and op.number is not None:
            high_ur = max(high_ur, op.number)
        for part in op.parts:
            visit(part)
        if op.descriptor is not None:
            visit(op.descriptor)

    for ins in instructions:
        for op in ins.operands:
            visit(op)
        if ins.opcode in ("HGMMA", "QGMMA", "IGMMA"):
            high_r = max(high_r, hgmma_highest_register(ins))
    return min(256, high_r + 4), min(64, high_ur + 4)
