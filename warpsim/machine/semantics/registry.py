"""The instruction table: the single source of truth about every PTX opcode.

Each entry says which family implements the opcode, which pipe it issues to
(for the timing model), what kind of thing it is for the engine, and for value
instructions how its operands are typed and how it computes. Family modules
(integer, floating, conversion, ...) fill the table with decorators; the loader
checks every instruction of a module against it before anything runs, so an
unsupported opcode or modifier is reported at load time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...errors import UnsupportedInstruction

# Engine kinds: how the code generator treats an opcode.
VALUE = "value"        # pure function of typed sources -> typed destinations
MEMORY = "memory"      # ld/st/atom/red/... handled by machine.memory_ops
WARP = "warp"          # shfl/vote/match/redux/bar.warp.sync: lanes of a warp meet
BARRIER = "barrier"    # bar/barrier: threads of a CTA meet
CONTROL = "control"    # bra/call/ret/exit/trap
SPECIAL = "special"    # mov of special registers and symbols, cvta, misc


@dataclass(frozen=True)
class Signature:
    """PTX type names of destination and source operands, by position.

    `writes_cc`/`reads_cc` mark the hidden carry flag of add.cc/addc and kin:
    compute() returns the carry as an extra last result, and receives the
    incoming carry as an extra last source.
    """
    dsts: tuple
    srcs: tuple
    writes_cc: bool = False
    reads_cc: bool = False


@dataclass(frozen=True)
class OpSpec:
    opcode: str
    family: str
    pipe: str                                   # 'alu', 'fma', 'fp64', 'sfu', 'lsu', 'branch', 'sync', 'misc'
    kind: str
    signature: Callable | None = None           # (Instruction) -> Signature, value ops only
    compute: Callable | None = None             # (Instruction, *typed sources) -> result(s)
    check: Callable | None = None               # (Instruction) -> None or reason string if unsupported
    types: frozenset | None = None              # instruction types this entry covers (None: any)


# opcode -> entries; an opcode shared by families (add.s32 vs add.f32) has one
# entry per family, told apart by the instruction's type.
OPS: dict[str, list[OpSpec]] = {}

INT_TYPES = frozenset({"b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32",
                       "b64", "u64", "s64", "pred"})
FLOAT_TYPES = frozenset({"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"})


def register(spec: OpSpec) -> OpSpec:
    entries = OPS.setdefault(spec.opcode, [])
    for other in entries:
        overlap = (other.types is None or spec.types is None or other.types & spec.types)
        if overlap and other.family != spec.family:
            raise ValueError(f"opcode {spec.opcode} registered by both {other.family} "
                             f"and {spec.family} for the same types")
    entries[:] = [e for e in entries if e.family != spec.family or e.types != spec.types]
    entries.append(spec)
    return spec


def value_op(*opcodes: str, family: str, signature: Callable, pipe: str = "alu",
             check: Callable | None = None, types: frozenset | None = None):
    """Decorator: register `fn(ins, *typed_sources)` as the semantics of `opcodes`."""
    def deco(fn):
        for opcode in opcodes:
            register(OpSpec(opcode, family, pipe, VALUE, signature, fn, check,
                            frozenset(types) if types is not None else None))
        return fn
    return deco


def lookup(ins, source: str = "<ptx>") -> OpSpec:
    """The spec for an instruction, or UnsupportedInstruction naming it."""
    entries = OPS.get(ins.opcode)
    if not entries:
        raise UnsupportedInstruction(ins, "no such opcode in warpsim's instruction table", source)
    spec = _select(entries, ins)
    if spec is None:
        raise UnsupportedInstruction(ins, f"type '{ins.type or 'none'}' is not supported for "
                                          f"'{ins.opcode}'", source)
    if spec.check is not None:
        reason = spec.check(ins)
        if reason:
            raise UnsupportedInstruction(ins, reason, source)
    return spec


def _select(entries, ins):
    """The entry covering the instruction's types (any of them, for cvt/setp/slct)."""
    types = set(ins.types)
    for spec in entries:
        if spec.types is not None and ins.type in spec.types:
            return spec
    for spec in entries:
        if spec.types is not None and types & spec.types:
            return spec
    for spec in entries:
        if spec.types is None:
            return spec
    return None


# ------------------------------------------------------------ signature helpers

def same_type(ins) -> Signature:
    """Destination and every source have the instruction's type (add, mul.lo, and, ...)."""
    t = ins.type
    return Signature((t,) * len(ins.dsts), (t,) * len(ins.srcs))
