"""Checks a parsed module as ptxas would before anything runs.

The parser accepts what is well formed; this says whether it means anything:
every register named is declared (or is a special register), every branch
target is a label of its function, every symbol is a variable, parameter or
function, an instruction names at most one state space and never stores to
.const, a vector access has as many registers as its .vN says, and the
operands of the plain arithmetic, logic, compare and move forms have the
instruction's type (same width; floats only in float or untyped registers) as
ptxas demands. Without this a type mismatch runs with wrong results, and an
undeclared register is reported only when its code runs, after memory was
written. Every problem is reported with file:line:column.
"""

from __future__ import annotations

from ..errors import PtxVerifyError
from .ir import Addr, Function, Guard, Imm, Module, Not, Reg, Sym, Vec
from .types import TYPES

# The PTX ISA's special registers (the machine passes the ones it simulates).
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

SPACES = frozenset({"global", "shared", "shared::cta", "shared::cluster", "local", "const",
                    "param", "param::entry", "param::func"})
MEMORY_OPCODES = frozenset({"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "cvta"})

# Forms whose every register operand has the instruction's type; (dsts, srcs) that do, by position.
SAME_TYPE = {op: (None, None) for op in (
    "add", "sub", "min", "max", "and", "or", "xor", "not", "cnot", "neg", "abs", "div", "rem",
    "fma", "sqrt", "rcp", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh", "copysign", "popc", "clz",
    "brev")}
SAME_TYPE.update({"setp": ((), (0, 1)), "selp": (None, (0, 1)), "mad": (None, None),
                  "mul": (None, None), "mov": (None, None)})
COUNT_TYPES = {"popc": "u32", "clz": "u32"}           # their destination is a u32 count
CHECKED_TYPES = frozenset({"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64",
                           "f16", "bf16", "f32", "f64", "pred"})
MAX_PROBLEMS = 10

# Operands (destinations and sources) the common forms take at least, and whether they need a type.
ARITY = {"mov": 2, "cvta": 2, "cvt": 2, "ld": 2, "ldu": 2, "st": 2, "neg": 2, "abs": 2, "not": 2,
         "cnot": 2, "popc": 2, "clz": 2, "brev": 2, "sqrt": 2, "rcp": 2, "rsqrt": 2, "ex2": 2,
         "lg2": 2, "sin": 2, "cos": 2, "tanh": 2, "add": 3, "sub": 3, "mul": 3, "div": 3,
         "rem": 3, "and": 3, "or": 3, "xor": 3, "min": 3, "max": 3, "shl": 3, "shr": 3,
         "setp": 3, "copysign": 3, "mad": 4, "fma": 4, "selp": 4, "bfe": 4, "bfi": 5,
         "atom": 3, "red": 2}


def verify_module(module: Module, special_registers=SPECIAL_REGISTERS) -> None:
    """Raise PtxVerifyError listing the module's problems (the first ten), if any."""
    problems = []
    functions = set(module.functions)
    for fn in module.functions.values():
        if fn.has_body:
            _Checker(module, fn, functions, frozenset(special_registers), problems).run()
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise PtxVerifyError(problems[:MAX_PROBLEMS], module.source_name, module.text)


class _Checker:
    def __init__(self, module, fn: Function, functions, special, problems):
        self.module, self.fn, self.functions = module, fn, functions
        self.special, self.problems = special, problems
        self.symbols = (set(module.variables) | {v.name for v in fn.params + fn.returns + fn.locals}
                        | functions)

    def problem(self, ins, message: str):
        self.problems.append((ins.line, ins.col, f"{message}, in {self.fn.name}"))

    def run(self):
        for ins in self.fn.body:
            before = len(self.problems)
            for reg in _registers(ins):
                if reg not in self.fn.regs and reg.split(".")[0] not in self.special:
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
        need = ARITY.get(ins.opcode)
        if need is not None and len(operands) < need:
            self.problem(ins, f"'{ins.mnemonic}' takes {need} operands, {len(operands)} given")
            return
        if need is not None and not ins.types:
            self.problem(ins, f"'{ins.mnemonic}' names no operand type")
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
        if ins.opcode not in MEMORY_OPCODES:
            return
        named = [m for m in ins.mods if m in SPACES]
        if len(named) > 1:
            self.problem(ins, f"'{ins.mnemonic}' names {len(named)} state spaces")
        elif named and named[0] == "const" and ins.opcode in ("st", "atom", "red"):
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

    def types_of(self, ins):
        rule = SAME_TYPE.get(ins.opcode)
        if rule is None or len(ins.types) != 1 or ins.type not in CHECKED_TYPES:
            return
        if ins.opcode == "mov" and not all(isinstance(op, Reg) for op in ins.dsts + ins.srcs):
            return                                     # packing, special registers, symbols
        wide = "wide" in ins.mods
        dst_positions, src_positions = rule
        for k, op in enumerate(ins.dsts):
            if dst_positions is None or k in dst_positions:
                want = COUNT_TYPES.get(ins.opcode) or (_doubled(ins.type) if wide else ins.type)
                self.operand_type(ins, op, want, "destination")
        for k, op in enumerate(ins.srcs):
            if src_positions is None or k in src_positions:
                addend = wide and ins.opcode == "mad" and k == 2     # mad.wide's c is wide too
                self.operand_type(ins, op, _doubled(ins.type) if addend else ins.type,
                                  f"operand {k + 1}")

    def operand_type(self, ins, op, want: str, which: str):
        if isinstance(op, Not):
            op = op.reg
        if not isinstance(op, Reg) or op.name not in self.fn.regs or want is None:
            return
        have = self.fn.regs[op.name]
        if not _compatible(have, want):
            self.problem(ins, f"{which} '{op.name}' is a .{have} register; '{ins.mnemonic}' needs "
                              f".{want} (or a .b register of the same width)")


def _doubled(name: str):
    t = TYPES[name]
    return {"u": "u", "s": "s", "b": "b", "f": "f"}.get(t.kind, "b") + str(t.bits * 2) \
        if t.bits in (16, 32) else None


def _compatible(have: str, want: str) -> bool:
    """PTX's rule: same width; bit types match any kind, floats only floats, predicates only predicates."""
    h, w = TYPES.get(have), TYPES.get(want)
    if h is None or w is None:
        return True
    if (h.kind == "pred") != (w.kind == "pred"):
        return False
    if h.bits != w.bits:
        return False
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

