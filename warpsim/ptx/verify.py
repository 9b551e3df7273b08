"""Checks a parsed module as ptxas would before anything runs.

The parser accepts what is well formed; this says whether it means anything:
every register named is declared (or is a special register), every branch
target is a label of its function, every symbol is a variable, parameter or
function, an instruction names at most one state space and never stores to
.const, a vector access has as many registers as its .vN says, and every
operand has a type its instruction can read or write as ptxas demands. The
operand types come from the instruction table (machine/isa/operand_types.py;
the loader passes them in, this layer sits below the machine): a register of
the same width (.b registers hold any kind; floats only float or .b, predicates
only predicates; ld, st and cvt may use wider integer or .b registers), immediates of the operand's kind (an integer literal is no float,
a 0f/0d literal only a float or a .b of its width), and address registers
that are integers (64-bit for global and generic addresses). Without this a
type mismatch runs with wrong results, and an undeclared register is reported
only when its code runs, after memory was written. Every problem is reported
with file:line:column.
"""

from __future__ import annotations

from ..errors import PtxVerifyError
from .ir import Addr, Function, Guard, Imm, Module, Not, Reg, Sym, Vec
from .opcodes import EMITTED_ARITY, ONE_SPACE_OPCODES, SPACE_MODIFIERS, WIDER_REGISTERS, WRITES_MEMORY
from .types import TYPES

# The PTX ISA's special registers (the machine passes the ones it simulates).
VIDEO_SELECTORS = frozenset({".b0", ".b1", ".b2", ".b3", ".h0", ".h1"})   # vadd ... %r1.b0, %r2.h1
SPECIAL_REGISTERS = frozenset(
    ["%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
     "%gridid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge",
     "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
     "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size", "%is_explicit_cluster",
     "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
     "%cluster_nctarank", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
     "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1",
     "%current_graph_exec"]
    + [f"%envreg{k}" for k in range(32)] + [f"%pm{k}" for k in range(8)]
    + [f"%pm{k}_64" for k in range(8)])

# Addressing: address spaces whose addresses are 64-bit under .address_size 64 (generic: no space named).
WIDE_ADDRESS_SPACES = frozenset({"global", "generic"})
MAX_PROBLEMS = 10

# What operand_types returns for an instruction that names no type where the table's entries need one.
NEEDS_TYPE = "needs a type"


def verify_module(module: Module, special_registers=SPECIAL_REGISTERS, operand_types=None) -> None:
    """Raise PtxVerifyError listing the module's problems (the first ten), if any.

    `operand_types(module, fn, ins)` gives [(role, operand, PTX type)] per instruction
    (machine.isa.operand_types, from the instruction table: an operand the instruction leaves
    out is None, and NEEDS_TYPE says it names no type its entries need); without it value
    instructions' operand counts and every operand's type go unchecked.
    """
    problems = []
    functions = set(module.functions)
    for fn in module.functions.values():
        if fn.has_body:
            _Checker(module, fn, functions, frozenset(special_registers), problems, operand_types).run()
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise PtxVerifyError(problems[:MAX_PROBLEMS], module.source_name, module.text)


class _Checker:
    def __init__(self, module, fn: Function, functions, special, problems, operand_types=None):
        self.module, self.fn, self.functions = module, fn, functions
        self.special, self.problems = special, problems
        self.operand_types = operand_types
        self._uses_of = self._uses = None
        self.wide_addresses = str(getattr(module, "address_size", 64) or 64) == "64"
        self.symbols = (set(module.variables) | {v.name for v in fn.params + fn.returns + fn.locals}
                        | functions)

    def problem(self, ins, message: str):
        self.problems.append((ins.line, ins.col, f"{message}, in {self.fn.name}"))

    def uses(self, ins):
        """The table's [(role, operand, type)] of an instruction (None: unknown), asked once."""
        if self.operand_types is None:
            return None
        if ins is not self._uses_of:
            self._uses_of, self._uses = ins, self.operand_types(self.module, self.fn, ins)
        return self._uses

    def run(self):
        for ins in self.fn.body:
            before = len(self.problems)
            for reg in _registers(ins):
                base = reg.split(".")[0]
                if reg not in self.fn.regs and base in self.fn.regs and reg[len(base):] in VIDEO_SELECTORS:
                    self.problem(ins, f"'{reg}': byte and half-word selectors of video instruction operands "
                                      f"(.b0-.b3, .h0-.h1) are not supported")
                elif reg not in self.fn.regs and base in self.fn.regs:      # .reg .b32 %tid; ... %tid.x
                    self.problem(ins, f"'{reg}': the declared register {base} hides the special register")
                elif reg not in self.fn.regs and base not in self.special:
                    self.problem(ins, f"'{reg}' is not a declared register")
            if len(self.problems) == before:
                self.shape_of(ins)
            if len(self.problems) == before:
                self.symbols_of(ins)
                self.spaces_of(ins)
                self.vector_of(ins)
                self.types_of(ins)
            if len(self.problems) >= MAX_PROBLEMS:
                return

    def shape_of(self, ins):
        """Operand counts, operand kinds and the type a form cannot do without."""
        operands = ins.dsts + ins.srcs
        if ins.opcode == "bra":
            if len(ins.srcs) != 1 or not isinstance(ins.srcs[0], Sym):
                self.problem(ins, f"'{ins.mnemonic}' takes one label")
            return
        if ins.call is not None:
            bad = [op for op in ins.call.returns + ins.call.args if not isinstance(op, (Reg, Sym, Imm))]
            if ins.call.returns and not all(isinstance(op, (Reg, Sym)) for op in ins.call.returns):
                self.problem(ins, "a call's return values go to .param variables or registers")
            elif bad:
                self.problem(ins, f"'{bad[0]}' cannot be a call argument")
            return
        uses = self.uses(ins)
        if uses == NEEDS_TYPE or (ins.opcode in EMITTED_ARITY and not ins.types):
            self.problem(ins, f"'{ins.mnemonic}' names no operand type")
            return
        if ins.opcode in EMITTED_ARITY:
            need = EMITTED_ARITY[ins.opcode]
        else:                                       # a value instruction's positions are its signature's
            need = sum(role in ("dst", "src") for role, _, _ in uses) if uses else None
        if need is not None and len(operands) < need:
            self.problem(ins, f"'{ins.mnemonic}' takes {need} operands, {len(operands)} given")
            return
        for op in ins.dsts:
            if isinstance(op, (Imm, Addr)) and need is not None and ins.opcode not in ("st", "red"):
                self.problem(ins, f"'{ins.mnemonic}' cannot write to '{op}'")
                return
        float_type = any(TYPES[t].is_float for t in ins.types)
        for op in operands:
            if isinstance(op, Addr) and isinstance(op.base, Sym):
                op = op.base
            if isinstance(op, Sym) and op.name in self.fn.labels and op.name not in self.symbols:
                self.problem(ins, f"label '{op.name}' used as an operand")
                return
            if isinstance(op, Imm) and isinstance(op.value, float) and not op.bits and not float_type:
                self.problem(ins, f"floating-point literal '{op}' for '{ins.mnemonic}', "
                                  f"which has no float type (write bits as 0f/0d hex)")
                return

    def symbols_of(self, ins):
        if ins.opcode == "bra" and ins.srcs and isinstance(ins.srcs[0], Sym):
            if ins.srcs[0].name not in self.fn.labels:
                self.problem(ins, f"branch to '{ins.srcs[0].name}', which is not a label of the function")
            return
        if ins.call is not None:
            target = ins.call.target
            if isinstance(target, Sym) and target.name not in self.functions:
                self.problem(ins, f"call of '{target.name}', which is not a declared function")
            operands = ins.call.returns + ins.call.args
        else:
            operands = ins.dsts + ins.srcs
        for op in operands:
            sym = op.base if isinstance(op, Addr) else op
            if isinstance(sym, Sym) and sym.name not in self.symbols and sym.name not in self.fn.labels:
                self.problem(ins, f"'{sym.name}' is not a declared variable, parameter or function")

    def spaces_of(self, ins):
        if ins.opcode not in ONE_SPACE_OPCODES:
            return
        named = [m for m in ins.mods if m in SPACE_MODIFIERS]
        if len(named) > 1:
            self.problem(ins, f"'{ins.mnemonic}' names {len(named)} state spaces")
        elif named and named[0] == "const" and ins.opcode in WRITES_MEMORY:
            self.problem(ins, f"'{ins.mnemonic}' writes the read-only .const state space")

    def vector_of(self, ins):
        if ins.opcode not in ("ld", "ldu", "st"):
            return
        width = next((int(m[1:]) for m in ins.mods if m in ("v2", "v4", "v8")), 1)
        value = (ins.dsts[:1] if ins.opcode != "st" else ins.srcs[1:2])
        if not value:
            self.problem(ins, f"'{ins.mnemonic}' has no value operand")
            return
        given = len(value[0].items) if isinstance(value[0], Vec) else 1
        if given != width:
            self.problem(ins, f"'{ins.mnemonic}' moves {width} value(s) but names {given}")
            return
        if isinstance(value[0], Vec):              # ptxas: the elements of a vector are alike
            widths = {TYPES[self.fn.regs[r.name]].bits for r in value[0].items
                      if isinstance(r, Reg) and self.fn.regs.get(r.name) in TYPES}
            if len(widths) > 1:
                self.problem(ins, f"the vector {value[0]} mixes registers of {sorted(widths)} bits")

    def types_of(self, ins):
        """Every operand against the type the instruction table reads or writes it as."""
        if not ins.types:
            return
        uses = self.uses(ins)
        for role, op, want in uses if isinstance(uses, list) else ():
            if op is None:
                continue
            if isinstance(op, Not):
                op = op.reg
            which = "destination" if role == "dst" else "address" if role == "address" else \
                f"operand {self._position(ins, op)}"
            if role == "address":
                self.address_type(ins, op, want)
            elif isinstance(op, Reg):
                self.register_type(ins, op, want, which)
            elif isinstance(op, Imm):
                self.immediate_type(ins, op, want, which)
            if len(self.problems) >= MAX_PROBLEMS:
                return

    def register_type(self, ins, op: Reg, want: str, which: str):
        have = self.fn.regs.get(op.name)
        if have is None or want not in TYPES:
            return                                     # special registers, hidden flags
        if not _compatible(have, want, wider=ins.opcode in WIDER_REGISTERS):
            self.problem(ins, f"{which} '{op.name}' is a .{have} register; '{ins.mnemonic}' needs "
                              f".{want} there (or a .b register of the same width)")

    def immediate_type(self, ins, op: Imm, want: str, which: str):
        t = TYPES.get(want)
        if t is None or t.kind == "pred":
            return
        is_float_literal = bool(op.bits) or isinstance(op.value, float)
        if t.kind == "f" and not is_float_literal:
            self.problem(ins, f"{which} '{op}' is an integer; '{ins.mnemonic}' needs a .{want} value "
                              f"there (write it as a float, e.g. 1.0, or as bits, 0f3F800000)")
        elif t.kind in ("u", "s") and is_float_literal:
            self.problem(ins, f"{which} '{op}' is a floating-point literal; '{ins.mnemonic}' needs an "
                              f".{want} integer there")
        elif t.kind == "b" and is_float_literal and op.bits != t.bits:
            self.problem(ins, f"{which} '{op}' is a {op.bits or 'decimal'}-bit float literal; "
                              f"'{ins.mnemonic}' needs {t.bits} bits there")

    def address_type(self, ins, op, space: str):
        base = op.base if isinstance(op, Addr) else None
        if not isinstance(base, Reg) or base.name not in self.fn.regs:
            return
        t = TYPES.get(self.fn.regs[base.name])
        if t is None:
            return
        if t.kind in ("f", "pred"):
            self.problem(ins, f"address register '{base.name}' is a .{t.name} register; an address "
                              f"is an integer or .b register")
        elif self.wide_addresses and space in WIDE_ADDRESS_SPACES and t.bits != 64:
            self.problem(ins, f"address register '{base.name}' is {t.bits}-bit; a {space} address is "
                              f"64-bit under .address_size 64")

    @staticmethod
    def _position(ins, op) -> int:
        for k, src in enumerate(ins.srcs):
            if src == op or (isinstance(src, Not) and src.reg == op):
                return k + 1
            if isinstance(src, Vec) and op in src.items:
                return k + 1
        return 1


def _compatible(have: str, want: str, wider: bool = False) -> bool:
    """PTX's rule: same width; bit types match any kind, floats only floats, predicates only
    predicates. With `wider` (ld, st, cvt), a wider register will do: an integer or .b one for an
    integer type, a .b one for a float type, any for a .b type."""
    h, w = TYPES.get(have), TYPES.get(want)
    if h is None or w is None:
        return True
    if (h.kind == "pred") != (w.kind == "pred"):
        return False
    if h.bits != w.bits:
        if not (wider and h.bits > w.bits):
            return False
        if w.kind == "b":
            return True
        if w.kind in ("u", "s"):
            return h.kind in ("b", "u", "s")
        return h.kind == "b"
    if "b" in (h.kind, w.kind):
        return True
    return (h.kind == "f") == (w.kind == "f")


def _registers(ins) -> list:
    """Names of the registers an instruction names (guard, operands, addresses, call lists)."""
    found = []

    def visit(op):
        if isinstance(op, Reg):
            found.append(op.name)
        elif isinstance(op, Not):
            visit(op.reg)
        elif isinstance(op, Addr) and isinstance(op.base, Reg):
            found.append(op.base.name)
        elif isinstance(op, Vec):
            for item in op.items:
                visit(item)
        elif isinstance(op, tuple):
            for item in op:
                visit(item)

    if isinstance(ins.guard, Guard):
        visit(ins.guard.reg)
    for op in ins.dsts + ins.srcs:
        visit(op)
    if ins.call is not None:
        for op in ins.call.returns + ins.call.args + (ins.call.target,):
            visit(op)
    return found

