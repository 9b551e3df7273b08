"""The PTX type each operand of an instruction is read or written as, from the instruction table.

The verifier (warpsim.ptx.verify) checks every register, immediate and address against these
types at load time, as ptxas does; this module is where it gets them, so the rules are the
table's own and not a second list. A value instruction's types are its entry's `signature`
(what the code generator types its operands as). An emitted one (ld, st, atom, shfl, mov,
cvta, ...) is run once through its emitter against a recording stand-in for the block
compiler, which notes the type each operand is read (`typed`) or written (`write`) as and
which operands are addresses; nothing is generated. Only the families in RECORDED_FAMILIES
are recorded; an emitter of another family, or one that needs more than the recorder offers,
gives no types, and its instruction is checked for everything but types.
"""

from __future__ import annotations

import functools
import inspect
from types import SimpleNamespace

from ...ptx.ir import Sym
from ...ptx.verify import NEEDS_TYPE
from .table import OPS, VALUE, entry

__all__ = ["operand_types", "RECORDED_FAMILIES"]

# The families whose emitters read and write each operand as the type PTX gives it (checked
# against ptxas on mutants, tests/ptx/test_verify_types.py). Other emitters may read an
# operand more loosely than PTX defines it (mbarrier's phase parity as the instruction's
# .b64), which would reject what ptxas accepts: their operand types go unchecked.
RECORDED_FAMILIES = frozenset({"memory", "atomics", "moves", "warp"})


def operand_types(module, fn, ins) -> list | None:
    """[(role, operand, PTX type or space)] with role 'dst', 'src' or 'address'; None: unknown."""
    spec = entry(ins)
    if not ins.types and (spec.kind == VALUE if spec is not None else _value_opcode(ins.opcode)):
        return NEEDS_TYPE                       # every value instruction names its operands' type
    if spec is None:
        return None
    if spec.kind == VALUE:
        try:
            sig = spec.signature(ins)
        except Exception:          # noqa: BLE001 (a malformed instruction: the table check says why)
            return None
        sources = max(len(sig.srcs), _sources_computed(spec.compute) - sig.reads_cc)
        return (_positions("dst", ins.dsts, sig.dsts or (ins.type,))
                + _positions("src", ins.srcs, tuple(sig.srcs) + (ins.type,) * (sources - len(sig.srcs))))
    if spec.emit is None or spec.family not in RECORDED_FAMILIES:
        return None
    recorder = _Recorder(module, fn, ins)
    try:
        spec.emit(recorder, ins)
    except Exception:              # noqa: BLE001 (the emitter wants a real compiler: no types)
        return None
    return recorder.seen


def _positions(role: str, operands, types) -> list:
    """One use per position the signature types (the hidden carry flag aside); None where the
    instruction gives no operand, so the verifier counts the operands the table expects."""
    given = list(operands) + [None] * max(0, len(types) - len(operands))
    return [(role, op, t) for op, t in zip(given, types) if t != "cc"]


@functools.cache
def _sources_computed(compute) -> int:
    """The typed sources a value entry's compute(ins, a, b, ...) cannot do without (a variadic
    one, cvt's: at least one)."""
    params = list(inspect.signature(compute).parameters.values())[1:]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 1
    return sum(p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD for p in params)


def _value_opcode(opcode: str) -> bool:
    """Every entry of the opcode is a value instruction (add, setp, cvt, ...)."""
    entries = OPS.get(opcode)
    return bool(entries) and all(e.kind == VALUE for e in entries)


class _Recorder:
    """Stands in for machine.codegen.BlockCompiler while an emitter runs: records, emits nothing."""

    guard = None

    def __init__(self, module, fn, ins):
        self.module, self.fn, self.current = module, fn, ins
        self.seen: list = []
        # kernel_param_load checks offsets against the layout: any offset is in this one
        self.program = SimpleNamespace(param_layouts={fn.name: [("", 0, 1 << 62, 1)]})

    # what the types come from
    def typed(self, op, type_name: str) -> str:
        self.seen.append(("src", op, type_name))
        return "value"

    def write(self, dst, type_name: str, expr: str, per_thread: bool = False) -> None:
        self.seen.append(("dst", dst, type_name))

    def write_selected(self, dst, type_name: str, values: str, sel) -> None:
        self.seen.append(("dst", dst, type_name))

    def address(self, addr, space: str):
        self.seen.append(("address", addr, space))
        return "address", space

    # what emitters also call, answered with placeholders
    def symbol_space(self, name: str) -> str:
        if name in {p.name for p in self.fn.params}:
            return "param"
        variable = self.module.variables.get(name)
        if variable is not None:
            return variable.space
        local = next((v for v in self.fn.locals if v.name == name), None)
        return local.space if local is not None else "global"

    def symbol_value(self, sym: Sym) -> int:
        return 0

    def is_per_thread(self, op) -> bool:
        return False

    def fresh(self, stem: str = "t") -> str:
        return stem

    def const(self, value, name: str) -> str:
        return name

    def emit(self, line: str) -> None:
        pass

    def site(self, ins) -> str:
        return "site"

    def selected(self):
        return "idx", None

    def dtype(self, ptype) -> str:
        return "dtype"

    def key(self, reg: str) -> str:
        return reg
