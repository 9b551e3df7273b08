"""Multiply-add contraction: the PTX add/sub that ptxas fused with a multiply.

PTX `mul`/`add`/`sub` on floats without a rounding modifier may be contracted
by ptxas (what NVVM emits under its default -fmad=true): `p = x * y; r = p - q`
becomes one FFMA (DFMA, HFMA2) that rounds x*y - q once, where running the two
PTX instructions rounds twice. Which pairs ptxas fuses is its own decision
(uses, scheduling, register pressure), so warpsim does not guess it: a finder
registered by the SASS layer (`sass/contraction.py`) compiles the module with
ptxas and reads, at each candidate's PTX line, whether the GPU adds or fuses.

This module finds the candidates in the IR and marks the fused ones: the
add/sub gets `contracted` (the position of the source the product stands in)
and the multiply's two sources appended to its own, so it computes
fma(±x, y, ±other) rounded once (`isa/floating.contraction_signs` says which
sign) in every tier, and liveness sees it read them. The multiply still runs:
its result may have other uses. `warpsim.settings(contract='none')` loads
modules unfused.

A candidate is safe to fuse only where the multiply's sources still hold at
the add what they held at the multiply: the product, and every register the
multiply reads, has one definition in the function (NVVM's PTX defines each
%f once); the definition of the product dominates its use, and then so do the
definitions of its sources, with no redefinition in between. Or the multiply
is in the add's own block, the last write of the product before it, and no
instruction between them writes a source of the multiply: a loop-carried
accumulator (`mul %f5, %f4, %f7; sub %f7, %f6, %f5`, %f7 defined before the loop
and in it) reads at the add the value the multiply read.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ptx.ir import Reg
from ..settings import check_contract, current as current_settings
from .liveness import registers_in

CONTRACTABLE_TYPES = frozenset({"f32", "f64", "f16", "f16x2", "bf16", "bf16x2"})
ROUNDINGS = frozenset({"rn", "rz", "rm", "rp"})

_finders: list = []       # the SASS layer's: (module, [Candidate]) -> {add instruction: multiply instruction}


@dataclass(frozen=True)
class Candidate:
    """An add/sub one or both of whose sources a contractable multiply defined."""
    function: str
    add: object                 # the add/sub Instruction
    multiplies: tuple           # (position, mul Instruction, safe to fuse) for each source a multiply defined


def contraction_finder(function):
    """Register `function(module, candidates) -> {add: mul}` (the SASS layer does, once)."""
    if function not in _finders:
        _finders.append(function)
    return function


def _contractable(ins) -> bool:
    """Rounded as the compiler likes: no rounding modifier, no .sat, unguarded, one plain register out."""
    return (ins.type in CONTRACTABLE_TYPES and len(ins.types) == 1 and ins.guard is None
            and not ins.flags & (ROUNDINGS | {"sat", "relu"}) and len(ins.dsts) == 1
            and isinstance(ins.dsts[0], Reg) and len(ins.srcs) == 2)


def _definition_counts(fn) -> dict:
    counts: dict = {}
    for ins in fn.body:
        for name in _written(ins):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _written(ins) -> list:
    names = registers_in(ins.dsts)
    if ins.call is not None:
        names += registers_in(ins.call.returns)
    return names


def _multiply_in_block(fn, index: int, name: str, block_starts) -> tuple:
    """(the multiply, safe) where the last write of `name` before fn.body[index], in its block, is
    a contractable multiply (safe: nothing between them writes the multiply's sources); (None,
    False) where that write is something else; None where the block does not write `name`."""
    for k in range(index - 1, -1, -1):
        ins = fn.body[k]
        if name in _written(ins):
            if ins.opcode != "mul" or not _contractable(ins):
                return None, False
            sources = set(registers_in(ins.srcs))
            return ins, not any(sources.intersection(_written(between)) for between in fn.body[k + 1:index])
        if k in block_starts:
            return None
    return None


def candidates(module) -> list:
    """Every add/sub of the module that ptxas may have fused with a multiply."""
    found = []
    for fn in module.functions.values():
        if not fn.has_body:
            continue
        defined_by = {}
        for ins in fn.body:
            if ins.opcode == "mul" and _contractable(ins):
                defined_by[ins.dsts[0].name] = ins
        if not defined_by:
            continue
        counts = _definition_counts(fn)
        block_starts = set(fn.labels.values())

        def single(name):
            return counts.get(name, 0) <= 1

        for index, ins in enumerate(fn.body):
            if ins.opcode not in ("add", "sub") or not _contractable(ins) or ins.contracted >= 0:
                continue
            muls = []
            for position, src in enumerate(ins.srcs):
                if not isinstance(src, Reg) or src.name not in defined_by:
                    continue
                mul, safe = _multiply_in_block(fn, index, src.name, block_starts) or (defined_by[src.name], None)
                if safe is None:        # written in another block: one definition of each register
                    safe = counts.get(src.name) == 1 and all(single(name) for name in registers_in(mul.srcs))
                if mul is not None and mul.type == ins.type and mul.flags == ins.flags:
                    muls.append((position, mul, safe))
            if any(safe for _, _, safe in muls):
                found.append(Candidate(fn.name, ins, tuple(muls)))
    return found


def contract(module) -> int:
    """Mark the add/sub instructions ptxas fused (under the `contract` setting); how many."""
    setting = current_settings().contract
    check_contract(setting)                 # WARPSIM_CONTRACT is read unchecked
    if setting == "none" or not _finders:
        return 0
    found = candidates(module)
    if not found:
        return 0
    fused = {}
    for finder in _finders:
        fused.update(finder(module, found))
    for candidate in found:
        mul = fused.get(candidate.add)
        position = next((p for p, m, safe in candidate.multiplies if m is mul and safe), None)
        if position is not None:
            mark(candidate.add, position, mul)
    return sum(1 for c in found if c.add.contracted >= 0)


def mark(add, position: int, mul) -> None:
    """The add/sub computes fma(±mul's sources, ±its other source), rounded once."""
    add.srcs = tuple(add.srcs) + tuple(mul.srcs)
    add.contracted = position
