"""Compile a basic block to machine code: one Numba function looping over the block's lanes.

The generated function `block_<gid>(idx, pc, count, guard_counts, <launch>, ...,
<register arrays>)` runs, for each thread slot in idx, the block's value
instructions on that lane's register bits held in locals, stores the registers
live after the block (liveness.py) back into the launch state's arrays in place,
and sets the lane's next block. It covers blocks of value instructions (those
with a compiled emitter, scalar.py), register/immediate moves and moves of a
variable's address, cvta to and from global, kernel ld.param, the thread's
coordinates, global and shared loads, stores and atomics (global_memory.py: one
pass over the lanes per memory instruction), an optional branch at the end, and
the thread's exit (the caller exits the lanes). Inside the round loop
(BlockSource's `loop`) it covers global loads (a bad address stops the loop) and
shuffles of whole warps, but no stores, atomics or exits. Anything else (warp
instructions elsewhere, barriers, calls, local memory, generic addresses) leaves
the block on the NumPy tier, which says why (`BlockSource.why`).

The source is plain Python kept in a file under the disk cache
(cache_dir('compiled'), named by its hash), decorated `@njit(cache=True)`, so
Numba compiles a block once per machine and later processes load the machine
code.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import pathlib
import re
import sys
import time

import numpy as np

from ...cache import cache_dir, write_atomically
from ...ptx.ir import Addr, Imm, Reg, Sink, Sym
from ...ptx.types import TYPES
from ...semantics.warp import SHUFFLE_MODES
from ..isa.evaluate import typed_immediate
from ..isa.moves import SPECIAL_REGISTERS
from ..isa.table import VALUE, entry
from ..liveness import kept_registers
from .global_memory import BITS, LAUNCH_ARGUMENTS, LOAD_FLAGS, GlobalMemory, NotCovered, is_memory, only_item, widened
from .scalar import SCALAR

HEADER = ("from numba import njit\nimport numpy as np\n"
          "from warpsim.machine.compiled.runtime import *\n\n")
STORAGE = {1: "bool", 32: "np.uint32", 64: "np.uint64"}
AXES = {"x": 0, "y": 1, "z": 2}
LOOP_FAULT = ["fault[0] = i", "return rounds, issued, clocked, FAULT"]    # a bad load stops the round loop
CLOCK_READS = {("%clock64", 64): "round_clock",             # the round loop's clock (loop.py)
               ("%clock", 32): "np.uint32(round_clock & np.uint64(0xFFFFFFFF))",
               ("%clock_hi", 32): "np.uint32(round_clock >> np.uint64(32))"}


class BlockSource:
    """The compiled tier's source for one block, or why there is none (`why`)."""

    def __init__(self, program, pblock, arrays: list | None = None, guard_base: int = 0,
                 prefix: str = "", count_guards: bool | str = True, loop: bool = False):
        """arrays, guard_base and prefix let several blocks share one function (loop.py): one
        list of register arrays, one guard_counts array (this block's from guard_base), and
        locals named apart. count_guards='local' counts the profiler's guard-true threads in
        locals `guards_<index>` the caller declares and adds up (a branch and a store per lane
        would halve a loop's speed). loop=True generates the round loop's form: ld.global
        inline (a lane whose address is bad stops the loop before the lane changes
        anything, `fault`, and the NumPy tier then reports it; the allocation of the last
        load, allocation_start/end, locals of the loop, is tried before the search), a
        shfl.sync that starts a .sync block (`shuffle`: the loop checks `full_warp`
        first), and no writes to memory or exits. Otherwise memory instructions take
        global_memory.py's passes (`phases`)."""
        self.program, self.block, self.fn = program, pblock, pblock.function
        self.arrays: list[tuple] = [] if arrays is None else arrays   # (register key, bits), in argument order
        self.guard_base, self.prefix, self.count_guards = guard_base, prefix, count_guards
        self.loop = loop
        self.guarded_positions: list[int] = []
        self.body: list[str] = []              # the per-lane statements, lane slot `i`
        self.prologue: list[str] = []          # loop only: per-warp statements before the lanes (`base`)
        self.full_warp: str | None = None      # loop only: when lane slot `s` may take part in a .sync block
        self.source, self.why = None, None
        self.memory: GlobalMemory | None = None     # the block's global accesses, in passes (not in the loop)
        self.exits = False                          # the block ends the thread (the caller exits it)
        self.phase: tuple = ("run", None)           # the pass being generated (global_memory.py)
        self.phases: list[tuple] = []               # ((phase, memory instruction), per-lane lines)
        try:
            if not loop and any(is_memory(ins) for ins in pblock.instructions):
                self.memory = GlobalMemory(self)
                first = self.memory.first_write
                order = [("check", None)]
                for t in self.memory.passes:
                    order += [("late", t), ("do", t)] if t > first else [("do", t)]
                for self.phase in order:
                    self.phases.append((self.phase, without_dead_values(self._generate())))
                self.phase = ("run", None)
            self.body = without_dead_values(self._generate())
            self.phases.append((self.phase, self.body))
            self.source = self.function_source()
        except NotCovered as exc:
            self.why = str(exc)

    # ------------------------------------------------------------ operands

    def bits(self, reg: str) -> int:
        t = self.fn.regs.get(reg)
        if t is None:
            raise NotCovered(f"register {reg} is not declared")
        bits = 1 if t == "pred" else TYPES[t].bits
        if bits not in STORAGE:
            raise NotCovered(f"{bits}-bit register {reg}")
        return bits

    def operand(self, op, type_name: str, wider: bool = False) -> str:
        """An operand read as type_name. wider: the instruction may name a register wider than its
        type, whose low bits it reads (a st's value: ptx/types.reinterpret's rule)."""
        type_bits = 1 if type_name == "pred" else TYPES[type_name].bits
        if isinstance(op, Reg):
            if op.name not in self.fn.regs and op.name.split(".")[0] in SPECIAL_REGISTERS:   # declared: its own
                expr = self.special(op.name, type_bits)
                if expr is None:
                    raise NotCovered(f"special register {op.name}")
                return expr
            if wider and self.bits(op.name) == 64 and type_bits == 32:
                return f"np.uint32({self.read(op.name)})"
            if self.bits(op.name) != type_bits:
                raise NotCovered(f"{op.name} read as {type_name}")
            return self.read(op.name)
        if isinstance(op, Imm):
            if type_bits not in STORAGE:
                raise NotCovered(f"immediate of type {type_name}")
            value = typed_immediate(op, type_name)
            if type_bits == 1:
                return "True" if bool(value) else "False"
            raw = int(np.asarray(value).view(np.uint32 if type_bits == 32 else np.uint64))
            return f"{STORAGE[type_bits]}({raw:#x})"
        raise NotCovered(f"operand {op}")

    def read(self, reg: str) -> str:
        if reg not in self.locals:
            self.locals[reg] = self.array_of(reg) + "[i]"
        return self.locals[reg]

    def array_of(self, reg: str) -> str:
        key = (f"{self.fn.name}::{reg}", self.bits(reg))
        if key not in self.arrays:
            self.arrays.append(key)
        return f"R{self.arrays.index(key)}"

    def write(self, dst, expr: str, guard: str | None):
        if isinstance(dst, Sink):
            return
        if not isinstance(dst, Reg):
            raise NotCovered(f"destination {dst}")
        bits = self.bits(dst.name)
        var = self.fresh(dst.name)
        value = f"{STORAGE[bits]}({expr})"
        if guard is not None:
            value = f"{value} if {guard} else {self.read(dst.name)}"
        self.lines.append(f"{var} = {value}")
        self.locals[dst.name] = var
        self.written.append(dst.name)

    def fresh(self, reg: str) -> str:
        self.counter += 1
        return f"v{self.prefix}_" + re.sub(r"\W", "_", reg.lstrip("%")) + f"_{self.counter}"

    # ------------------------------------------------------------ the block

    def _generate(self) -> list[str]:
        """The per-lane statements; in the check phase (global_memory.py) those up to the block's
        write, without the guard counts, register stores and next block."""
        b = self.block
        self.locals, self.lines, self.written, self.counter = {}, [], [], 0
        self.guarded_positions = []
        if self.memory is not None:
            self.memory.next = 0
        counting = self.count_guards if self.phase[0] == "run" else False
        next_pc = None
        for position, ins in enumerate(b.instructions):
            self.lines.append(f"# {ins.line}: {ins}")
            guard = None
            if ins.guard is not None:
                if self.bits(ins.guard.reg.name) != 1:
                    raise NotCovered("guard is not a predicate")
                g = self.read(ins.guard.reg.name)
                guard = f"(not {g})" if ins.guard.negated else g
                self.guarded_positions.append(position)
                index = self.guard_base + len(self.guarded_positions) - 1
                if counting == "local":
                    self.lines.append(f"guards_{index} += {guard}")
                elif counting:
                    self.lines.append(f"if count: guard_counts[{index}] += {guard}")
            if ins.opcode == "bra" and position == len(b.instructions) - 1:
                next_pc = self.branch(ins, guard)
                continue
            if ins.opcode == "mov":
                self.move(ins, guard)
                continue
            if ins.opcode == "cvta":
                self.global_address(ins, guard)
                continue
            if ins.opcode == "shfl" and self.loop and position == 0 and b.kind == "warp_sync":
                self.shuffle(ins, guard)
                continue
            if ins.opcode == "ld" and "param" in ins.flags:
                self.parameter_load(ins, guard)
                continue
            if ins.opcode == "ld" and self.loop:
                self.global_load(ins, guard)
                continue
            if is_memory(ins):
                if self.memory is None:
                    raise NotCovered(f"{ins.opcode} in the round loop (it runs warps out of block order)")
                if self.memory.access(ins, guard):
                    return self.lines
                continue
            if ins.opcode in ("ret", "exit") and position == len(b.instructions) - 1 and guard is None \
                    and self.fn.kind == "entry" and not self.loop:
                next_pc = "-1"
                continue
            spec = entry(ins)
            if spec is None or spec.kind != VALUE:
                raise NotCovered(f"{ins.opcode} is not a value instruction")
            emitter = SCALAR.get((spec.family, ins.opcode))
            if emitter is None:
                raise NotCovered(f"no compiled emitter for {spec.family} {ins.opcode}")
            sig = spec.signature(ins)
            if sig.reads_cc or sig.writes_cc or len(ins.dsts) != 1:
                raise NotCovered(f"{ins.opcode} with a carry or several destinations")
            srcs = [self.operand(op, t) for op, t in zip(ins.srcs, sig.srcs)]
            expr = emitter(ins, srcs)
            if expr is None:
                raise NotCovered(f"{'.'.join((ins.opcode,) + ins.mods)} has no exact compiled form")
            dst = ins.dsts[0]
            if isinstance(dst, Reg) and self.bits(dst.name) != (1 if sig.dsts[0] == "pred"
                                                                else TYPES[sig.dsts[0]].bits):
                raise NotCovered(f"{dst.name} written as {sig.dsts[0]}")
            self.write(dst, expr, guard)
        if self.phase[0] != "run":
            return self.lines
        if next_pc is None:
            if b.next_gid == -1 and self.loop:
                raise NotCovered("the block ends the kernel (exit)")
            next_pc = str(b.next_gid)
        self.exits = next_pc == "-1"
        kept = kept_registers(self.program, b)
        stores = [f"{self.array_of(r)}[i] = {self.locals[r]}" for r in dict.fromkeys(self.written)
                  if kept is None or r in kept]
        return [*self.lines, *stores, f"pc[i] = {next_pc}"]

    def function_source(self) -> str:
        """The block as a function of its own over the lanes idx."""
        args = ", ".join(f"R{k}" for k in range(len(self.arrays)))
        if self.memory is not None:
            return self.memory.function_source(self.phases, args)
        return (f"@njit(cache=True, nogil=True)\n"
                f"def block_{self.block.gid}(idx, pc, count, guard_counts, {LAUNCH_ARGUMENTS}, "
                f"changes_only, outcome{', ' if args else ''}{args}):\n"
                f"    for k in range(idx.shape[0]):\n"
                f"        i = idx[k]\n" + "".join(f"        {line}\n" for line in self.body))

    def branch(self, ins, guard) -> str:
        target = self.program.label_gid(self.fn, ins.srcs[0].name)
        if guard is None:
            return str(target)
        if self.block.next_gid == -1:
            raise NotCovered("a branch that falls through to the kernel's exit")
        return f"{target} if {guard} else {self.block.next_gid}"

    def special(self, name: str, bits: int) -> str | None:
        """A thread coordinate, or in the round loop the clock, as machine/isa/moves.py reads them:
        the loop's round_clock is the SM cycles of the issues before the round (semantics/clock.py)."""
        register, _, axis_name = name.partition(".")
        if self.loop and (register, bits) in CLOCK_READS:
            return CLOCK_READS[register, bits]
        if bits != 32:
            return None
        axis = AXES.get(axis_name)
        if register == "%laneid":
            return "np.uint32(i & 31)"
        if axis is None:
            return None
        return {"%tid": f"tid[{axis}, i]", "%ctaid": f"ctaid[{axis}, i]", "%ntid": f"dims[{axis}]",
                "%nctaid": f"dims[{3 + axis}]"}.get(register)

    def parameter_load(self, ins, guard):
        """ld.param of one 32- or 64-bit kernel parameter: a read of the launch's parameter buffer (a
        32-bit one into a 64-bit register extended as ptx/types.to_storage extends it)."""
        bits = BITS.get(ins.type)
        addr, dst = ins.srcs[0], ins.dsts[0]
        offsets = self.program.param_offsets.get(self.fn.name, {})
        if bits is None or self.fn.kind != "entry" or ins.flags != {"param"} or not isinstance(dst, Reg) \
                or not isinstance(addr, Addr) or not isinstance(addr.base, Sym) or addr.base.name not in offsets:
            raise NotCovered(f"ld.param form {ins}")
        offset = offsets[addr.base.name] + addr.base.offset + addr.offset
        end = max((o + size for _, o, size, _ in self.program.param_layouts[self.fn.name]), default=0)
        register_bits = self.bits(dst.name)
        if offset % (bits // 8) or offset + bits // 8 > end or register_bits not in (bits, 64):
            raise NotCovered(f"ld.param form {ins}")
        value = f"param{bits}[{offset // (bits // 8)}]"
        if register_bits > bits:
            value = widened(value, ins.type)
        self.write(dst, value, guard)

    def global_load(self, ins, guard):
        """ld.global of one 32- or 64-bit value at [register+offset], from the heap's typed views."""
        bits = BITS.get(ins.type)
        if bits is None or ins.flags - LOAD_FLAGS or "global" not in ins.flags or len(ins.dsts) != 1:
            raise NotCovered(f"{'.'.join((ins.opcode,) + ins.mods)} (compiled: scalar ld.global only)")
        addr, dst = ins.srcs[0], only_item(ins.dsts[0])
        if not isinstance(addr, Addr) or not isinstance(addr.base, Reg) or not isinstance(dst, Reg):
            raise NotCovered(f"ld.global form {ins}")
        wider = self.bits(dst.name) == 64 and bits == 32
        if self.bits(dst.name) != bits and not wider:
            raise NotCovered(f"ld.global.{ins.type} into {dst.name} of another width")
        base = self.operand(addr.base, "u64")
        address, offset, found = self.fresh("address"), self.fresh("offset"), self.fresh("allocation")
        size = bits // 8
        self.lines.append(f"{address} = add64({base}, np.uint64({addr.offset & (2**64 - 1):#x}))")
        self.lines.append(f"{offset} = {address} - GLOBAL_BASE")
        check = [f"if ({address} & np.uint64({size - 1})) != np.uint64(0) or {offset} < allocation_start "
                 f"or {offset} + np.uint64({size}) > allocation_end:",
                 f"    {found} = find_allocation(starts, ends, heap_bytes, {address}, {size})",
                 f"    if {found} < 0:",
                 *[f"        {line}" for line in LOOP_FAULT],
                 f"    allocation_start = starts[{found}]",
                 f"    allocation_end = ends[{found}]"]
        if guard is not None:
            check = [f"if {guard}:"] + ["    " + line for line in check]
        self.lines.extend(check)
        value = f"mem{bits}[{offset} >> np.uint64({3 if bits == 64 else 2})]"
        self.write(dst, widened(value, ins.type) if wider else value, guard)

    def shuffle(self, ins, guard):
        """shfl.sync of a warp whose 32 lanes all arrived and all name every lane (full_warp, which
        the round loop checks before it runs the block): then the engine's meeting lets the group
        go as it is and reports nothing, and each lane reads its source lane's register as it was
        before the block (the prologue copies the warp's values before any lane writes)."""
        mode = next((m for m in ins.mods if m in SHUFFLE_MODES), None)
        if guard is not None or "sync" not in ins.mods or mode is None or len(ins.srcs) != 4 \
                or not 1 <= len(ins.dsts) <= 2:
            raise NotCovered(f"shfl form {ins}")
        value, lane_or_offset, packed, member_mask = ins.srcs
        if isinstance(member_mask, Reg) and member_mask.name in self.fn.regs:
            if self.bits(member_mask.name) != 32:
                raise NotCovered(f"member mask {member_mask.name} is not 32 bits")
            mask = f"{self.array_of(member_mask.name)}[s]"
        elif isinstance(member_mask, Imm) and member_mask.value & 0xFFFFFFFF == 0xFFFFFFFF:
            mask = "np.uint32(0xffffffff)"
        else:
            raise NotCovered(f"shfl member mask {member_mask}")
        self.full_warp = (f"status[s] == 0 and pc[s] == {self.block.gid} "
                          f"and {mask} == np.uint32(0xffffffff)")
        if isinstance(value, Reg) and value.name in self.fn.regs:
            if self.bits(value.name) != 32:
                raise NotCovered(f"shfl of {value.name}, not 32 bits")
            self.prologue = ["for lane in range(32):",
                             f"    warp_values[lane] = {self.array_of(value.name)}[base + lane]"]
            source_value = "warp_values[{}]"
        else:
            constant = self.operand(value, "b32")
            source_value = constant.replace("{", "{{").replace("}", "}}")
        source, in_range = self.fresh("source_lane"), self.fresh("in_range")
        self.lines.append(f"{source}, {in_range} = shuffle_source(i & 31, {SHUFFLE_MODES.index(mode)}, "
                          f"{self.operand(lane_or_offset, 'b32')}, {self.operand(packed, 'b32')})")
        dst = ins.dsts[0]
        if isinstance(dst, Reg) and self.bits(dst.name) != 32:
            raise NotCovered(f"shfl into {dst.name}, not 32 bits")
        self.write(dst, source_value.format(source), None)
        if len(ins.dsts) == 2:
            if isinstance(ins.dsts[1], Reg) and self.bits(ins.dsts[1].name) != 1:
                raise NotCovered(f"shfl predicate {ins.dsts[1].name}")
            self.write(ins.dsts[1], in_range, None)

    def global_address(self, ins, guard):
        """cvta between generic and global addresses: the same 64 bits (isa/moves.py's emit_cvta:
        only the shared and local windows move)."""
        if ins.flags - {"to"} != {"global"} or ins.type not in ("u64", "b64") \
                or not isinstance(ins.srcs[0], Reg) or not isinstance(ins.dsts[0], Reg):
            raise NotCovered(f"cvta form {ins}")
        if self.bits(ins.dsts[0].name) != 64:
            raise NotCovered(f"cvta into {ins.dsts[0].name}")
        self.write(ins.dsts[0], self.operand(ins.srcs[0], "u64"), guard)

    def symbol_address(self, sym, type_name: str) -> str:
        """A shared or global variable's address in its own space, as the NumPy tier's mov reads
        it (codegen's symbol_value)."""
        from ..codegen import BlockCompiler          # (the NumPy tier's code generator: imported late)
        compiler = BlockCompiler(self.program, self.block)
        compiler.current = self.block.instructions[0]
        try:
            space = compiler.symbol_space(sym.name)
            value = compiler.symbol_value(sym)
        except Exception as exc:
            raise NotCovered(f"mov of {sym}: {exc}") from None
        if space not in ("shared", "global") or type_name not in ("u32", "b32", "u64", "b64") \
                or value >> TYPES[type_name].bits:
            raise NotCovered(f"mov of {sym} ({space}) as {type_name}")
        return f"{STORAGE[TYPES[type_name].bits]}({value:#x})"

    def move(self, ins, guard):
        """mov between registers of one width, or of an immediate."""
        if len(ins.dsts) != 1 or len(ins.srcs) != 1 or ins.type not in TYPES and ins.type != "pred":
            raise NotCovered(f"mov form {ins}")
        src = ins.srcs[0]
        if isinstance(src, Sym):
            return self.write(ins.dsts[0], self.symbol_address(src, ins.type), guard)
        if not isinstance(src, (Reg, Imm)):
            raise NotCovered(f"mov of {src}")
        dst = ins.dsts[0]
        if isinstance(dst, Reg):
            width = 1 if ins.type == "pred" else TYPES[ins.type].bits
            if self.bits(dst.name) != width:
                raise NotCovered(f"mov into {dst.name} of another width")
        self.write(dst, self.operand(src, ins.type), guard)


PURE_VALUE = re.compile(r"^(v\w*_\w+) = (.*)$")     # a local a value instruction (or a load's copy) sets
NAME = re.compile(r"[A-Za-z_]\w*")


def compile_seconds(source: str) -> float:
    """What Numba takes to compile a generated function, estimated from its source's length and its
    float helpers. Its passes (SSA, liveness, LLVM) grow faster than the function: measured here,
    10 KB of block source took 2-5 s, 20-25 KB 8 s, 31 KB 10 s, 71-74 KB 20-81 s, 104 KB 47 s,
    124 KB 107 s, 239 KB 85 s (blocks of 8-32 global accesses, each a pass over the lanes that
    repeats the values its access needs); and each exact float helper inlined (fma_f32 and the
    like) about 0.3 s more: blocks of 16 f32 multiply-adds, 5 and 9 KB, took 8.6 and 10.6 s."""
    size = len(source) / 1e4
    return 0.5 + 2.0 * size ** 1.5 + FLOAT_HELPER_SECONDS * len(FLOAT_HELPER.findall(source))


FLOAT_HELPER = re.compile(r"\b[a-z]\w*_f(?:16|32|64)\(")
FLOAT_HELPER_SECONDS = 0.3


def without_dead_values(lines: list[str]) -> list[str]:
    """The per-lane statements without the locals nothing later reads.

    Each memory pass (global_memory.py) repeats the block's value instructions up to its
    access, but needs only those its address, guard and stored value come from: kept, the
    pass's source grew as (memory instructions) x (block length), and Numba's compile time
    faster than that (a block of 16 global accesses: 124 KB, 107 s). A statement is a line
    and the indented lines after it; one that sets a local (`v_<register>_<n> = ...`: pure,
    each set once) is dropped unless a statement kept after it reads that local; every other
    statement (memory, guards, checks, register stores, the next block) is kept."""
    statements: list[list[str]] = []
    for line in lines:
        if statements and (line.startswith(" ") or line.startswith(("else:", "elif "))):
            statements[-1].append(line)
        else:
            statements.append([line])
    locals_set = {m.group(1) for st in statements if len(st) == 1 and (m := PURE_VALUE.match(st[0]))}
    needed: set[str] = set()
    kept: list[list[str]] = []
    for st in reversed(statements):
        pure = PURE_VALUE.match(st[0]) if len(st) == 1 else None
        if pure is not None and pure.group(1) not in needed:
            continue
        text = pure.group(2) if pure is not None else "\n".join(st)
        needed.update(name for name in NAME.findall(text) if name in locals_set)
        kept.append(st)
    return [line for st in reversed(kept) for line in st]


def _helpers_version() -> str:
    """A digest of the modules generated code calls: Numba's disk cache checks only the
    generated file, so a changed helper must change the file's name."""
    here = pathlib.Path(__file__).parent
    text = b"".join((here / name).read_bytes() for name in ("runtime.py", "rounds.py"))
    return hashlib.sha256(text).hexdigest()[:16]


HEADER = HEADER + f"# helpers {_helpers_version()}\n\n"


def source_digest(source: str) -> str:
    """The name of a generated function's file and machine code: the hash of its code, not of its
    comments (they quote the PTX lines, whose names differ between kernels of the same code: a
    Numba closure's mangled name changes with the order its process compiles kernels in)."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    return hashlib.sha256((HEADER + code).encode()).hexdigest()[:24]


def compile_source(source: str, function_name: str):
    """The Numba dispatcher of a generated function, from its file in the disk cache."""
    digest = source_digest(source)
    path = cache_dir("compiled") / f"block_{digest}.py"
    if not path.exists():
        write_atomically(path, (HEADER + source).encode())
    name = f"warpsim_compiled_{digest}"
    module = sys.modules.get(name)
    if module is None:
        if path.exists():
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module          # a cfunc compiles as its module runs: its cache names the module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        else:                                   # no writable cache: compile in memory only
            namespace: dict = {}
            exec(compile((HEADER + source).replace("cache=True", "cache=False"),
                         f"<warpsim compiled {function_name}>", "exec"), namespace)
            module = type(sys)(name)
            module.__dict__.update(namespace)
        sys.modules[name] = module
    return getattr(module, function_name), path


@contextlib.contextmanager
def compile_time_excluded(ctx, dispatcher):
    """Numba compiles (or loads from its disk cache) at the first call: that call's seconds,
    which may be many on a loaded machine, do not count against the watchdog. (Numba's
    `signatures` hashes every argument type, about 0.3 ms for the round loop's fifty: it is
    asked until the first call has finished.)"""
    if getattr(dispatcher, "_warpsim_has_run", False) or dispatcher.signatures:
        yield
        dispatcher._warpsim_has_run = True
        return
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        yield
    finally:
        ctx.exclude_from_clock(time.process_time() - cpu, time.perf_counter() - wall)


def is_cached_on_disk(source: str) -> bool:
    """Whether Numba's machine code for this source is already in the disk cache."""
    digest = source_digest(source)
    folder = cache_dir("compiled") / "__pycache__"
    return folder.exists() and any(folder.glob(f"block_{digest}.*.nbi"))
