"""Which registers a block must write back: liveness over each function's CFG.

A register a block writes is written back to the launch state only if a later
block may read it (it is live at the block's exit) or an instruction of the
block itself reads it through the launch state rather than through the
compiled block's local value (memory, warp and call emitters do). Everything
else is a dead write: about two thirds of the writes of a typical NVVM loop
body, whose temporaries die inside the block.

A block whose lanes all exit at its end writes nothing back (exits_every_lane).
The analysis is conservative where PTX lets it be: only an unguarded value
instruction kills a register (a guarded write keeps the old value on some
lanes, so it reads it); the carry flag and the registers of recursive
functions (saved and restored per activation) are always written back.
"""

from __future__ import annotations

from ..ptx.ir import Addr, Not, Reg, Vec
from .isa.table import VALUE, entry

ALWAYS_WRITTEN = frozenset({"__cc"})


def registers_in(op) -> list:
    """Register names an operand mentions (through addresses, vectors and negations)."""
    if isinstance(op, Reg):
        return [op.name]
    if isinstance(op, Not):
        return [op.reg.name]
    if isinstance(op, Addr):
        return registers_in(op.base) if op.base is not None else []
    if isinstance(op, Vec):
        return [name for item in op.items for name in registers_in(item)]
    if isinstance(op, (tuple, list)):
        return [name for item in op for name in registers_in(item)]
    return []


def _is_value(ins) -> bool:
    spec = entry(ins)
    return spec is not None and spec.kind == VALUE


def instruction_reads(ins, guard: bool = True) -> list:
    """Registers an instruction may read (a guarded or non-value write reads its destination)."""
    names = registers_in(ins.srcs)
    if ins.guard is not None and guard:
        names += [ins.guard.reg.name]
    if ins.call is not None:
        names += registers_in(ins.call.args) + registers_in(ins.call.returns)
    if ins.guard is not None or not _is_value(ins):
        names += registers_in(ins.dsts)
    return names


def instruction_kills(ins) -> list:
    """Registers an instruction overwrites on every lane that runs it."""
    if ins.guard is not None or not _is_value(ins):
        return []
    return [op.name for op in ins.dsts if isinstance(op, Reg)]


class FunctionLiveness:
    """Live-out register sets of every block of one function (local CFG block ids)."""

    def __init__(self, cfg, body):
        blocks = cfg.blocks
        uses, kills = [], []
        for b in blocks:
            used, killed = set(), set()
            for ins in body[b.start:b.end]:
                used.update(r for r in instruction_reads(ins) if r not in killed)
                killed.update(instruction_kills(ins))
            uses.append(used)
            kills.append(killed)
        live_in = [set(u) for u in uses]
        live_out = [set() for _ in blocks]
        changed = True
        while changed:                    # backward dataflow to a fixed point
            changed = False
            for b in reversed(blocks):
                out = set().union(*(live_in[s] for s in b.successors)) if b.successors else set()
                if out != live_out[b.id]:
                    live_out[b.id] = out
                    new_in = uses[b.id] | (out - kills[b.id])
                    if new_in != live_in[b.id]:
                        live_in[b.id] = new_in
                    changed = True
        self.live_out = [frozenset(s) for s in live_out]


def kept_registers(program, pblock) -> frozenset | None:
    """Registers of the block whose writes must reach the launch state (None: all of them)."""
    fn = pblock.function
    if fn.name in program.recursive_functions:
        return None
    cache = program.__dict__.setdefault("_liveness", {})
    analysis = cache.get(fn.name)
    if analysis is None:
        analysis = cache[fn.name] = FunctionLiveness(program.cfgs[fn.name], fn.body)
    local_id = pblock.gid - program.function_entry[fn.name]
    if exits_every_lane(pblock):
        return analysis.live_out[local_id] | ALWAYS_WRITTEN
    # Emitters read guards through the block's locals, other operands maybe through ctx.
    read_by_emitters = {r for ins in pblock.instructions if not _is_value(ins)
                        for r in instruction_reads(ins, guard=False)}
    return analysis.live_out[local_id] | read_by_emitters | ALWAYS_WRITTEN


def exits_every_lane(pblock) -> bool:
    """A kernel's block that ends in an unguarded exit or ret and holds no warp-synchronous
    instruction (those start blocks of their own): every lane that runs it exits at its end, and
    no emitter reads a register of an exited lane through the launch state, so nothing the
    block writes is read again (a one-block kernel wrote back every register its loads and
    stores name)."""
    last = pblock.instructions[-1]
    return (pblock.kind == "code" and pblock.function.kind == "entry" and last.guard is None
            and last.opcode in ("exit", "ret"))
