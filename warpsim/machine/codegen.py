"""Compile a basic block of PTX into one vectorized Python function.

The generated function `run(ctx, idx)` executes the block for the threads
`idx` (every thread of the batch that is at this block in a selected warp
group): it gathers each register it reads once, runs the block's instructions
as NumPy operations on those local arrays, scatters the registers it wrote, and
sets each thread's next block. `WARPSIM_DUMP_BLOCKS=1` prints the source.

Instruction families with their own runtime (memory access, atomics, warp
exchange, calls) are emitted by the functions in EMITTERS, one per opcode
group; value instructions all go through the instruction table.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ..errors import TrapError, UnsupportedInstruction
from ..ptx.ir import Imm, Not, Reg, Sink, Sym
from ..ptx.types import TYPES, reinterpret, to_storage
from . import access, atomics, builtins, mbarrier, tensor, warp_ops
from .semantics.evaluate import typed_immediate
from .semantics.registry import VALUE, lookup
from .special_registers import SPECIAL_REGISTERS, read_special
from .state import AT_BARRIER, EXITED

SPACES = {"global": "global", "shared": "shared", "shared::cta": "shared",
          "shared::cluster": "shared", "local": "local", "const": "const", "param": "param",
          "param::entry": "param", "param::func": "param"}
FUNCTION_POINTER_BASE = 0x7E00_0000_0000


class Site:
    """What runtime helpers need to know about the instruction they serve."""

    def __init__(self, program, fn, ins):
        self.ins = ins
        self.function = fn.name
        self.source_line = program.source_line(ins)
        self.program = program

    @property
    def described(self) -> str:
        """The source line and its text, for error messages (read only when an error happens)."""
        return self.program.source_line_with_text(self.ins)

    def space_of(self, addr: int) -> str:
        """The state space the instruction names, or the one a generic address falls in."""
        for m in self.ins.mods:
            if m in SPACES:
                return SPACES[m]
        return access.GENERIC_SPACES[int(access.generic_space(np.array([addr], dtype=np.uint64))[0])]


def fit(values, n):
    """Broadcast a scalar result to one value per thread."""
    values = np.asarray(values)
    if values.shape == (n,):
        return values
    return np.broadcast_to(values, (n,)).copy()


def store_value(values, ptype, bits, n):
    return fit(to_storage(values, ptype, bits), n)


def exit_threads(ctx, idx):
    ctx.status[idx] = EXITED
    ctx.pc[idx] = -1


def trap(ctx, site, idx):
    if len(idx):
        where = ctx.where(int(idx[0]))
        what = "(an assert() or __trap())"
        if "cooperative_groups" in site.source_line:
            what = ("in cooperative groups: a grid-wide sync (this_grid().sync()) needs a cooperative "
                    "launch, which warpsim does not simulate")
        raise TrapError(f"trap executed by {len(idx)} thread(s) {what}",
                        kernel=ctx.kernel, block=where["block"], thread=where["thread"],
                        ptx_line=site.ins.line, instruction=str(site.ins),
                        source_line=site.described)


def count_guard(ctx, key, guard):
    """Profiling: add the threads whose guard is true at instruction key = (block, position)."""
    ctx.guard_true[key] = ctx.guard_true.get(key, 0) + int(np.count_nonzero(guard))


class BlockCompiler:
    def __init__(self, program, pblock):
        self.program = program
        self.block = pblock
        self.fn = pblock.function
        self.lines: list[str] = []
        # What generated code may call: NumPy and the machine's runtime modules.
        self.env: dict = {"np": np, "fit": fit, "store_value": store_value,
                          "reinterpret": reinterpret, "read_special": read_special,
                          "access": access, "atomics": atomics, "builtins": builtins,
                          "mbarrier": mbarrier, "tensor": tensor, "warp_ops": warp_ops,
                          "exit_threads": exit_threads, "trap": trap, "count_guard": count_guard,
                          "AT_BARRIER": AT_BARRIER}
        self.local: dict[str, str] = {}      # register -> python variable holding its bits
        self.dirty: list[str] = []
        self.counter = 0
        self.guard = None

    # ------------------------------------------------------------ emitter basics

    def fresh(self, stem: str = "t") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def const(self, value, stem: str = "c") -> str:
        name = self.fresh(stem)
        self.env[name] = value
        return name

    def emit(self, line: str):
        self.lines.append("    " + line)

    def key(self, reg: str) -> str:
        return f"{self.fn.name}::{reg}"

    def reg_bits(self, reg: str) -> int:
        t = self.fn.regs.get(reg)
        if t is None:
            if reg == "__cc":
                return 32
            raise UnsupportedInstruction(self.current, f"register '{reg}' is not declared")
        return TYPES[t].bits if t != "pred" else 1

    def load_reg(self, reg: str) -> str:
        var = self.local.get(reg)
        if var is None:
            var = self.fresh("r_" + re.sub(r"\W", "_", reg.lstrip("%")) + "_")
            self.emit(f"{var} = ctx.reg({self.key(reg)!r}, {self.reg_bits(reg)})[idx]")
            self.local[reg] = var
        return var

    # ------------------------------------------------------------ typed operands

    def typed(self, op, type_name: str) -> str:
        """A Python expression with the operand's value as `type_name`."""
        ptype = TYPES[type_name]
        if isinstance(op, Reg):
            if op.name in SPECIAL_REGISTERS or op.name.split(".")[0] in SPECIAL_REGISTERS:
                raw = f"read_special(ctx, idx, {op.name!r})"
                return f"reinterpret({raw}, {self.const(ptype, 'T')})"
            var = self.load_reg(op.name)
            bits = self.reg_bits(op.name)
            if ptype.kind == "pred":
                return var if bits == 1 else f"({var} != 0)"
            if bits == ptype.bits and bits != 1:
                return f"{var}.view({self.const(ptype.dtype, 'D')})"
            return f"reinterpret({var}, {self.const(ptype, 'T')})"
        if isinstance(op, Imm):
            return self.const(typed_immediate(op, type_name), "imm")
        if isinstance(op, Not):
            return f"(~{self.typed(op.reg, 'pred')})"
        if isinstance(op, Sym):
            value = self.symbol_value(op)
            constant = self.const(np.array(value, dtype=np.uint64).astype(ptype.dtype)[()], "sym")
            frame = self.frame_offset(op.name)
            return f"({constant} + {frame}.astype({self.const(ptype.dtype, 'D')}))" if frame else constant
        raise UnsupportedInstruction(self.current, f"operand '{op}' cannot be used as a {type_name} value")

    def write(self, dst, type_name: str, expr: str):
        """Assign typed values to a destination register (guarded writes keep old lanes)."""
        if isinstance(dst, Sink):
            return
        if not isinstance(dst, Reg):
            raise UnsupportedInstruction(self.current, f"destination '{dst}' is not a register")
        bits = self.reg_bits(dst.name)
        value = f"store_value({expr}, {self.const(TYPES[type_name], 'T')}, {bits}, n)"
        if self.guard is not None:
            old = self.load_reg(dst.name)
            value = f"np.where({self.guard}, {value}, {old})"
        var = self.fresh("r_" + re.sub(r"\W", "_", dst.name.lstrip("%")) + "_")
        self.emit(f"{var} = {value}")
        self.local[dst.name] = var
        if dst.name not in self.dirty:
            self.dirty.append(dst.name)

    # ------------------------------------------------------------ symbols

    def symbol_value(self, sym: Sym) -> int:
        """The address a symbol names in its own state space (+offset)."""
        layout = self.program.layout
        name = sym.name
        if name in layout.shared_offsets:
            return layout.shared_offsets[name] + sym.offset
        if (self.fn.name, name) in layout.local_offsets:
            return layout.local_offsets[(self.fn.name, name)] + sym.offset
        if name in self.program.global_addresses:
            return self.program.global_addresses[name] + sym.offset
        if name in self.program.param_offsets.get(self.fn.name, {}):
            return self.program.param_offsets[self.fn.name][name] + sym.offset
        if name in self.program.function_entry:
            return FUNCTION_POINTER_BASE + self.program.function_entry[name]
        raise UnsupportedInstruction(self.current, f"unknown symbol '{name}'")

    def frame_offset(self, name: str) -> str | None:
        """For a local variable of a recursive function: the activation's frame offset.

        Every call depth gets its own copy of the static local layout, so each
        activation's __local_depot is its own memory.
        """
        if (self.fn.name in self.program.recursive_functions and
                (self.fn.name, name) in self.program.layout.local_offsets):
            size = self.program.layout.local_size
            return f"(ctx.call_depth[idx].astype(np.uint64) * np.uint64({size}))"
        return None

    def symbol_space(self, name: str) -> str:
        layout = self.program.layout
        if name in layout.shared_offsets:
            return "shared"
        if (self.fn.name, name) in layout.local_offsets:
            return "local"
        if name in self.program.global_addresses:
            return "global"
        if name in self.program.param_offsets.get(self.fn.name, {}) and self.fn.kind == "entry":
            return "param"
        if self.is_param_var(name):
            return "param_var"
        raise UnsupportedInstruction(self.current, f"unknown symbol '{name}'")

    def is_param_var(self, name: str) -> bool:
        if self.fn.kind == "func" and any(p.name == name for p in self.fn.params + self.fn.returns):
            return True
        return any(v.name == name and v.space == "param" for v in self.fn.locals)

    # ------------------------------------------------------------ compile

    def compile(self):
        b = self.block
        name = f"block_{b.gid}"
        self.current = b.instructions[0]
        body_ends = False
        for position, ins in enumerate(b.instructions):
            self.current = ins
            self.lines.append(f"    # {ins.line}: {ins}")
            self.guard = None
            if ins.guard is not None:
                g = self.load_reg(ins.guard.reg.name)
                self.guard = f"(~{g})" if ins.guard.negated else g
                self.emit(f"if ctx.count_predicates: count_guard(ctx, {(b.gid, position)!r}, {self.guard})")
            spec = lookup(ins, self.program.source)
            if spec.kind == VALUE:
                self.emit_value(ins, spec)
            else:
                emitter = EMITTERS.get(ins.opcode)
                if emitter is None:
                    raise UnsupportedInstruction(ins, "no code generator for this opcode", self.program.source)
                body_ends = emitter(self, ins) or body_ends
        self.writeback()
        if not body_ends:
            self.emit(f"ctx.pc[idx] = {b.next_gid}")
            if b.next_gid == -1:
                self.emit("exit_threads(ctx, idx)")
        src = f"def {name}(ctx, idx):\n    n = len(idx)\n" + "\n".join(self.lines) + "\n"
        if os.environ.get("WARPSIM_DUMP_BLOCKS"):
            print(src)
        code = compile(src, f"<warpsim {self.fn.name} block {b.gid}>", "exec")
        exec(code, self.env)
        b.source = src
        return self.env[name]

    def writeback(self):
        for reg in self.dirty:
            self.emit(f"ctx.reg({self.key(reg)!r}, {self.reg_bits(reg)})[idx] = {self.local[reg]}")
        self.dirty = []

    def emit_value(self, ins, spec):
        sig = spec.signature(ins)
        srcs = [self.typed(op, t) for op, t in zip(ins.srcs, sig.srcs)]
        if sig.reads_cc:
            srcs.append(self.typed(Reg("__cc"), "cc"))
        op = self.const(spec.compute, "op")
        insn = self.const(ins, "ins")
        result = self.fresh("v")
        self.emit(f"{result} = {op}({insn}, {', '.join(srcs)})")
        dsts = list(ins.dsts) + ([Reg("__cc")] if sig.writes_cc else [])
        types = list(sig.dsts) + (["cc"] if sig.writes_cc else [])
        if sig.writes_cc and "__cc" not in self.fn.regs:
            self.fn.regs["__cc"] = "u32"
        if sig.reads_cc and "__cc" not in self.fn.regs:
            self.fn.regs["__cc"] = "u32"
        if len(dsts) == 1:
            self.write(dsts[0], types[0], result)
        else:
            for k, (d, t) in enumerate(zip(dsts, types)):
                self.write(d, t, f"{result}[{k}]")

    def selected(self):
        """(index expression, lane selector) honoring the guard of the current instruction."""
        if self.guard is None:
            return "idx", None
        sel = self.fresh("sel")
        self.emit(f"{sel} = np.flatnonzero({self.guard})")
        return f"idx[{sel}]", sel


def compile_block(program, pblock):
    return BlockCompiler(program, pblock).compile()


from .emit import EMITTERS  # noqa: E402  (emitters use BlockCompiler's helpers)
