"""Compile a basic block of PTX into one vectorized Python function.

The generated function `block_<gid>(ctx, idx)` executes the block for the
threads `idx` (every thread of the batch that is at this block in a selected
warp group, ascending): it gathers each register it reads once, runs the block's
instructions as NumPy operations on those local arrays, scatters the
registers it wrote, and sets each thread's next block. Where idx is one run of
consecutive slots (converged warps, a whole batch), the gathers and scatters
are slice copies (`span`): a tenth of a fancy index's cost. Value instructions go
through the instruction table's compute functions; every other instruction
through the emitter its table entry names (machine.isa).

The generated code is meant to be read: constants are named after what they
are (the PTX type, the instruction, the symbol), each instruction is preceded
by a comment with its PTX line, the source is registered with `linecache` so
tracebacks show the generated line, and `WARPSIM_DUMP_BLOCKS=1` prints every
block while `WARPSIM_DUMP_BLOCKS=DIR` writes one file per block into DIR. A
Python exception inside a block (a warpsim bug, not an error warpsim raises on
purpose) becomes an InternalError naming the kernel, block, thread and PTX
instruction.
"""

from __future__ import annotations

import keyword
import linecache
import os
import re

import numpy as np

from ..errors import InternalError, UnsupportedInstruction, WarpsimError
from ..ptx.ir import Imm, Not, Reg, Sink, Sym
from ..ptx.types import TYPES, reinterpret, storage_dtype, to_storage
from .memory import LOCAL_WINDOW, SHARED_WINDOW
from . import access
from .isa import FAMILIES, lookup
from .isa.evaluate import typed_immediate
from .isa.moves import PER_THREAD_AXES, SPECIAL_REGISTERS, read_special
from .isa.table import VALUE
from .liveness import kept_registers
from .memory import FUNCTION_POINTER_BASE
from .state import AT_BARRIER

DUMP_VARIABLE = "WARPSIM_DUMP_BLOCKS"


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
        space = access.space_of(self.ins)
        if space != "generic":
            return space
        return access.GENERIC_SPACES[int(access.generic_space(np.array([addr], dtype=np.uint64))[0])]


def fit(values, n):
    """Broadcast a scalar result to one value per thread."""
    values = np.asarray(values)
    if values.shape == (n,):
        return values
    if values.ndim == 0:            # a uniform value (ld.param, an immediate): a third of broadcast_to's cost
        out = np.empty(n, dtype=values.dtype)
        out[...] = values           # same dtype: the bits are copied, NaN payloads too
        return out
    return np.broadcast_to(values, (n,)).copy()


def span(idx):
    """idx (ascending thread slots) as a slice where it is one run of consecutive slots, else idx:
    a register read through the slice is a copy of a contiguous run (the SASS executor's a view), not
    a gather."""
    n = len(idx)
    if n and idx[n - 1] - idx[0] == n - 1:
        first = int(idx[0])
        return slice(first, first + n)
    return idx


def gather(storage, rows):
    """A register's values at rows (span's answer) as an array of their own: a slice's view is copied,
    so what the block computes never aliases the register file it writes back to."""
    return storage[rows].copy() if rows.__class__ is slice else storage[rows]


def store_value(values, ptype, bits, n):
    """Typed values as the bits of an n-thread register of `bits` bits (fit after to_storage)."""
    if type(values) is np.ndarray:
        if values.shape == (n,) and values.dtype == ptype.dtype and values.dtype.itemsize * 8 == bits:
            return values.view(storage_dtype(bits))     # most results: already the register's width
    elif isinstance(values, np.generic) and values.dtype == ptype.dtype and values.dtype.itemsize * 8 == bits:
        storage = storage_dtype(bits)           # a uniform value (ld.param): fit's copy, no to_storage
        out = np.empty(n, dtype=storage)
        out[...] = values.view(storage)         # the bits, as integers: NaN payloads too
        return out
    return fit(to_storage(values, ptype, bits), n)


def count_guard(ctx, key, guard):
    """Profiling: add the threads whose guard is true at instruction key = (block, position)."""
    ctx.guard_true[key] = ctx.guard_true.get(key, 0) + int(np.count_nonzero(guard))


def identifier(text: str) -> str:
    """A Python identifier that reads like `text` ('add.s32' -> 'add_s32', '-1' -> 'm1')."""
    name = re.sub(r"\W+", "_", str(text).replace("-", "m")).strip("_")[:48] or "c"
    if name[0].isdigit() or keyword.iskeyword(name):
        name = "_" + name
    return name


class BlockCompiler:
    def __init__(self, program, pblock):
        self.program = program
        self.block = pblock
        self.fn = pblock.function
        self.lines: list[str] = []
        # What generated code may call: NumPy, memory access and the families' runtimes.
        self.env: dict = {"np": np, "fit": fit, "store_value": store_value, "span": span, "gather": gather,
                          "reinterpret": reinterpret, "read_special": read_special,
                          "access": access, "count_guard": count_guard, "AT_BARRIER": AT_BARRIER,
                          **FAMILIES}
        self.local: dict[str, str] = {}      # register -> python variable holding its bits
        self.dirty: list[str] = []
        self.counter = 0
        self.guard = None
        self.line_instructions: dict[int, object] = {}   # generated line number -> PTX instruction
        self.kept = kept_registers(program, pblock)      # registers written back (None: all)

    # ------------------------------------------------------------ emitter basics

    def fresh(self, stem: str = "t") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def const(self, value, name: str) -> str:
        """A name in the generated code's namespace bound to `value`, spelled after `name`.

        The same value under the same name is bound once; another value gets a
        numbered variant of the name.
        """
        base = identifier(name)
        candidate, k = base, 1
        while candidate in self.env:
            if _same_constant(self.env[candidate], value):
                return candidate
            k += 1
            candidate = f"{base}_{k}"
        self.env[candidate] = value
        return candidate

    def site(self, ins) -> str:
        """A Site for the runtime helpers of `ins`, named after its opcode and PTX line."""
        return self.const(Site(self.program, self.fn, ins), f"site_{ins.opcode}_line{ins.line}")

    def emit(self, line: str):
        self.lines.append("    " + line)
        self.line_instructions[len(self.lines) + 3] = self.current     # after 'def', 'n = ...', 'rows = ...'

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
            self.emit(f"{var} = gather(ctx.reg({self.key(reg)!r}, {self.reg_bits(reg)}), rows)")
            self.local[reg] = var
        return var

    # ------------------------------------------------------------ typed operands

    def typed(self, op, type_name: str) -> str:
        """A Python expression with the operand's value as `type_name`."""
        ptype = TYPES[type_name]
        if isinstance(op, Reg):
            # a register the module declares under a special register's name (.reg .b32 %tid) is
            # its own, as ptxas takes it
            if op.name not in self.fn.regs and op.name.split(".")[0] in SPECIAL_REGISTERS:
                raw = f"read_special(ctx, idx, {op.name!r})"
                if op.name in PER_THREAD_AXES:      # (read_special's row of the batch's coordinates)
                    raw = "ctx.{}[{}][idx]".format(*PER_THREAD_AXES[op.name])
                if op.name in PER_THREAD_AXES and ptype.dtype.itemsize == 4 and ptype.dtype.kind in "iu":
                    if ptype.dtype == np.uint32:
                        return raw                                # %tid.x ... : uint32 already
                    return f"{raw}.view({self.dtype(ptype)})"
                return f"reinterpret({raw}, {self.const(ptype, type_name)})"
            var = self.load_reg(op.name)
            bits = self.reg_bits(op.name)
            if ptype.kind == "pred":
                return var if bits == 1 else f"({var} != 0)"
            if bits == ptype.bits and bits != 1:
                return f"{var}.view({self.dtype(ptype)})"
            return f"reinterpret({var}, {self.const(ptype, type_name)})"
        if isinstance(op, Imm):
            value = f"0x{op.value:x}" if op.bits else op.value
            return self.const(typed_immediate(op, type_name), f"{type_name}_{value}")
        if isinstance(op, Not):
            return f"(~{self.typed(op.reg, 'pred')})"
        if isinstance(op, Sym):
            value = self.symbol_value(op)
            constant = self.const(np.array(value, dtype=np.uint64).astype(ptype.dtype)[()],
                                  f"sym_{op.name}_{op.offset}" if op.offset else f"sym_{op.name}")
            frame = self.frame_offset(op.name)
            return f"({constant} + {frame}.astype({self.dtype(ptype)}))" if frame else constant
        raise UnsupportedInstruction(self.current, f"operand '{op}' cannot be used as a {type_name} value")

    def is_per_thread(self, op) -> bool:
        """Whether typed(op, t) gives n values of t's dtype: a register's, or a thread's
        coordinate (%tid.x ...); an immediate or a symbol is one value for every thread."""
        return isinstance(op, Reg) and (op.name in self.fn.regs or op.name in PER_THREAD_AXES)

    def write(self, dst, type_name: str, expr: str, per_thread: bool = False):
        """Assign typed values to a destination register (guarded writes keep old lanes).

        per_thread: the emitter knows `expr` gives n values of the type's own dtype (a register
        operand, a parameter repeated per thread), so a type as wide as the register is stored as
        its bits without store_value's look at what came back."""
        if isinstance(dst, Sink):
            return
        if not isinstance(dst, Reg):
            raise UnsupportedInstruction(self.current, f"destination '{dst}' is not a register")
        bits = self.reg_bits(dst.name)
        ptype = TYPES[type_name]
        if per_thread and bits == ptype.bits and bits != 1:
            storage = storage_dtype(bits)
            value = expr if ptype.dtype == storage else f"{expr}.view({self.const(storage, f'np_{storage.name}')})"
        else:
            value = f"store_value({expr}, {self.const(ptype, type_name)}, {bits}, n)"
        if self.guard is not None:
            old = self.load_reg(dst.name)
            value = f"np.where({self.guard}, {value}, {old})"
        var = self.fresh("r_" + re.sub(r"\W", "_", dst.name.lstrip("%")) + "_")
        self.emit(f"{var} = {value}")
        self.local[dst.name] = var
        if dst.name not in self.dirty:
            self.dirty.append(dst.name)

    def register_block(self, regs) -> str | None:
        """A name bound to 32-bit registers as the rows of one array (LaunchState.register_block), for an
        instruction that reads and writes them all: `name[:, rows]` reads them, store_register_block
        writes them. None where the block holds a value of one of them of its own, a guard is on, or
        one is not a 32-bit register: the caller reads and writes them one by one."""
        if self.guard is not None or any(reg in self.local or self.reg_bits(reg) != 32 for reg in regs):
            return None
        block = self.fresh("registers")
        self.emit(f"{block} = ctx.register_block({tuple(self.key(reg) for reg in regs)!r})")
        return block

    def store_register_block(self, regs, expr: str):
        """Write `expr` (len(regs), n) into the registers of a register_block (LaunchState.store_register_block:
        a fresh result for every thread becomes their storage, with no copy)."""
        self.emit(f"ctx.store_register_block({tuple(self.key(reg) for reg in regs)!r}, rows, {expr})")

    def dtype(self, ptype) -> str:
        """The NumPy dtype of a PTX type, as a name in the generated code (np_uint32, ...)."""
        return self.const(ptype.dtype, f"np_{ptype.dtype.name}")

    def write_selected(self, dst, type_name: str, values: str, sel):
        """Write values computed for the guard-selected lanes only (others keep their register)."""
        if isinstance(dst, Sink):
            return
        if not sel:
            guard, self.guard = self.guard, None
            self.write(dst, type_name, values)
            self.guard = guard
            return
        full = self.fresh("full")
        self.emit(f"{full} = {self.load_reg(dst.name)}.copy()")
        self.emit(f"{full}[{sel}] = store_value({values}, {self.const(TYPES[type_name], type_name)}, "
                  f"{self.reg_bits(dst.name)}, len({sel}))")
        self.local[dst.name] = full
        if dst.name not in self.dirty:
            self.dirty.append(dst.name)

    # ------------------------------------------------------------ addresses and symbols

    def address(self, addr, space: str):
        """(expression of per-thread addresses as uint64, resolved space) of an [address] operand."""
        if isinstance(addr.base, Reg):
            wide = self.reg_bits(addr.base.name) == 64
            base = self.typed(addr.base, "u64" if wide else "u32")
            if not addr.offset:             # (a copy: every address array is the access's own)
                same = wide and self.is_per_thread(addr.base)     # (copy() costs a third of astype)
                return f"{base}.copy()" if same else f"{base}.astype(np.uint64)", space
            return f"({base}.astype(np.uint64) + np.uint64({addr.offset & ((1 << 64) - 1)}))", space
        if isinstance(addr.base, Sym):
            sym_space = self.symbol_space(addr.base.name)
            value = self.symbol_value(Sym(addr.base.name, addr.base.offset + addr.offset))
            if space == "generic":
                if sym_space == "shared":
                    value += SHARED_WINDOW
                elif sym_space == "local":
                    value += LOCAL_WINDOW
            frame = self.frame_offset(addr.base.name)
            if frame:
                return f"(np.uint64({value}) + {frame})", space
            return f"np.full(n, {value}, dtype=np.uint64)", space
        return f"np.full(n, {addr.offset}, dtype=np.uint64)", space

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
            elif spec.emit is None:
                raise UnsupportedInstruction(ins, "no code generator for this opcode", self.program.source)
            else:
                body_ends = spec.emit(self, ins) or body_ends
        self.writeback()
        if not body_ends:
            self.emit(f"ctx.pc[rows] = {b.next_gid}")
            if b.next_gid == -1:
                self.emit("control.exit_threads(ctx, idx)")
        src = f"def {name}(ctx, idx):\n    n = len(idx)\n    rows = span(idx)\n" + "\n".join(self.lines) + "\n"
        filename = self.dump(src)
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        exec(compile(src, filename, "exec"), self.env)
        b.source = src
        return self.guarded(self.env[name], filename)

    def dump(self, src: str) -> str:
        """Show the block's source as WARPSIM_DUMP_BLOCKS asks; the file name to compile it under.

        `=1` prints it; `=DIR` writes DIR/<function>.block<gid>.py, and
        tracebacks and debuggers then point into that file.
        """
        b = self.block
        where = os.environ.get(DUMP_VARIABLE, "")
        if where == "1":
            print(src)
        elif where:
            os.makedirs(where, exist_ok=True)
            path = os.path.abspath(os.path.join(where, f"{identifier(self.fn.name)}.block{b.gid}.py"))
            with open(path, "w") as out:
                out.write(f"# {self.fn.name}, block {b.gid}, PTX lines "
                          f"{b.instructions[0].line}-{b.instructions[-1].line}\n" + src)
            return path
        return f"<warpsim {self.fn.name} block {b.gid}>"

    def guarded(self, run, filename: str):
        """`run` with a Python exception inside it turned into an InternalError that says where."""
        program, block, line_instructions = self.program, self.block, dict(self.line_instructions)
        if filename.endswith(".py"):               # a dumped file starts with one comment line
            line_instructions = {k + 1: ins for k, ins in line_instructions.items()}

        def run_block(ctx, idx):
            try:
                return run(ctx, idx)
            except WarpsimError:
                raise
            except Exception as exc:
                raise internal_error(ctx, program, block, idx, exc, filename,
                                     line_instructions) from exc
        run_block.__name__ = run_block.__qualname__ = run.__name__
        run_block.generated = run
        return run_block

    def writeback(self):
        """Store the block's live register writes (dead ones stay in locals, see liveness.py)."""
        for reg in self.dirty:
            if self.kept is not None and reg not in self.kept:
                continue
            self.emit(f"ctx.reg({self.key(reg)!r}, {self.reg_bits(reg)})[rows] = {self.local[reg]}")
        self.dirty = []

    def emit_value(self, ins, spec):
        sig = spec.signature(ins)
        srcs = [self.typed(op, t) for op, t in zip(ins.srcs, sig.srcs)]
        if sig.reads_cc:
            srcs.append(self.typed(Reg("__cc"), "cc"))
        mnemonic = ".".join((ins.opcode,) + tuple(ins.mods))
        op = self.const(spec.compute, mnemonic)
        insn = self.const(ins, f"{mnemonic}_line{ins.line}")
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


def internal_error(ctx, program, block, idx, exc, filename, line_instructions) -> InternalError:
    """An InternalError naming the kernel, block, thread and the PTX instruction that was running."""
    line = None
    tb = exc.__traceback__
    while tb is not None:                           # the innermost frame of the generated code
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    ins = line_instructions.get(line, block.instructions[0])
    where = ctx.where(int(idx[0])) if len(idx) else {"block": None, "thread": None}
    generated = f"{filename}:{line}" if line else filename
    return InternalError(
        f"internal error in warpsim (a bug in the simulator, not in the kernel): "
        f"{type(exc).__name__}: {exc}\n  generated code: {generated}",
        kernel=ctx.kernel, block=where["block"], thread=where["thread"], ptx_line=ins.line,
        instruction=str(ins), source_line=program.source_line_with_text(ins))


def _same_constant(bound, value) -> bool:
    """Whether a name already bound in generated code holds this constant."""
    if bound is value:
        return True
    if isinstance(bound, np.generic) and isinstance(value, np.generic):
        return bound.dtype == value.dtype and bound.tobytes() == value.tobytes()
    if isinstance(bound, np.dtype) and isinstance(value, np.dtype):
        return bound == value
    return False
