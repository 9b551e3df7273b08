"""The instruction table: the single source of truth about every PTX opcode.

Each entry says which family implements the opcode, which pipe it issues to
(for the timing model), what kind of thing it is for the engine, whether lanes
of a warp or threads of a CTA meet at it (and where its member mask is), how
it is checked at load time and how it runs: value instructions through a
typed `compute` function, the others through an emitter that writes their
generated code. Family modules (integer, floating, memory, warp, ...) fill the
table with the decorators below; the loader checks every instruction of a
module against it before anything runs, so an unsupported opcode or modifier
is reported at load time; the CFG, the code generator and the scheduler read
their answers from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...errors import UnsupportedInstruction
from ...ptx.ir import Imm, Reg

# Engine kinds: how the code generator treats an opcode.
VALUE = "value"        # pure function of typed sources -> typed destinations
MEMORY = "memory"      # ld/st/atom/red/cp.async/mbarrier: go through the launch's memory
WARP = "warp"          # shfl/vote/match/redux/bar.warp.sync/wmma: lanes of a warp meet
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
    emit: Callable | None = None                # (BlockCompiler, Instruction) -> True if it set the next PC
    warp_sync: bool = False                     # lanes of a warp meet here (the block starts here)
    cta_barrier: bool = False                   # threads of a CTA meet here (a block of its own)
    member_mask: Callable | None = None         # (Instruction) -> mask operand (Imm/Reg) or None
    variant: Callable | None = None             # (Instruction) -> True where this entry applies


# opcode -> entries; an opcode shared by families (add.s32 vs add.f32,
# bar.sync vs bar.warp.sync) has one entry per family, told apart by the
# instruction's type or by the entry's variant test.
OPS: dict[str, list[OpSpec]] = {}

INT_TYPES = frozenset({"b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32",
                       "b64", "u64", "s64", "pred"})
FLOAT_TYPES = frozenset({"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"})


def register(spec: OpSpec) -> OpSpec:
    entries = OPS.setdefault(spec.opcode, [])
    for other in entries:
        overlap = (other.types is None or spec.types is None or other.types & spec.types)
        told_apart = other.variant is not None or spec.variant is not None
        if overlap and other.family != spec.family and not told_apart:
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


def emitted(*opcodes: str, family: str, kind: str, pipe: str, check: Callable | None = None,
            warp_sync: bool = False, cta_barrier: bool = False,
            member_mask: Callable | None = None, variant: Callable | None = None):
    """Decorator: register `emit(c, ins)` as the code generator of `opcodes`.

    For instructions the engine emits itself (memory, warp, barriers, control):
    the emitter writes the block's generated code for the instruction.
    """
    def deco(emit):
        for opcode in opcodes:
            register(OpSpec(opcode, family, pipe, kind, check=check, emit=emit,
                            warp_sync=warp_sync, cta_barrier=cta_barrier,
                            member_mask=member_mask, variant=variant))
        return emit
    return deco


# ------------------------------------------------------------ member-mask rules

def mask_is_last_source(ins):
    """shfl/vote/match/redux .sync: the member mask is the last source operand."""
    return ins.srcs[-1] if "sync" in ins.mods else None


def mask_is_first_source(ins):
    """bar.warp.sync and elect.sync: the member mask is the only source operand."""
    return ins.srcs[0] if ins.srcs else None


def whole_warp(ins):
    """.sync.aligned tensor instructions: every lane of the warp takes part."""
    return Imm(0xFFFFFFFF)


# ------------------------------------------------------------ lookups

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


def entry(ins) -> OpSpec | None:
    """The entry for an instruction without checking it (None: not in the table).

    The CFG asks before the loader has checked anything, so an unsupported
    instruction must not fail here; the check reports it later.
    """
    entries = OPS.get(ins.opcode)
    return _select(entries, ins) if entries else None


def is_warp_sync(ins) -> bool:
    """Lanes of a warp meet at this instruction (shfl.sync, bar.warp.sync, wmma, ...)."""
    spec = entry(ins)
    return spec is not None and spec.warp_sync


def warp_sync_opcodes() -> frozenset:
    """The opcodes with an entry at which lanes of a warp meet (synccheck's invalid-sync errors)."""
    return frozenset(opcode for opcode, entries in OPS.items() if any(e.warp_sync for e in entries))


def is_cta_barrier(ins) -> bool:
    """Threads of a CTA meet at this instruction (bar.sync, barrier.sync, bar.red, ...)."""
    spec = entry(ins)
    return spec is not None and spec.cta_barrier


def mask_operand(ins):
    """The member-mask operand of a warp-synchronous instruction (None: no mask)."""
    spec = entry(ins)
    return spec.member_mask(ins) if spec is not None and spec.member_mask is not None else None


def constant_mask(function, ins) -> bool:
    """Whether a warp-synchronous instruction's member mask is a constant: an immediate, or a register
    whose one definition in the function moves an immediate into it (NVVM writes
    `__ballot_sync(0x55555555, p)` so). ptxas compiles a constant mask otherwise than one it
    reads at run time (semantics.warp.issued_masks)."""
    op = mask_operand(ins)
    if isinstance(op, Imm):
        return True
    if not isinstance(op, Reg):
        return False
    moved = function.__dict__.get("_moved_constants")
    if moved is None:
        defined: dict = {}
        for other in function.body:
            for dst in getattr(other, "dsts", ()):
                if isinstance(dst, Reg):
                    constant = other.opcode == "mov" and len(other.srcs) == 1 and isinstance(other.srcs[0], Imm)
                    defined[dst.name] = constant and dst.name not in defined
        moved = function.__dict__["_moved_constants"] = frozenset(name for name, ok in defined.items() if ok)
    return op.name in moved


def _select(entries, ins):
    """The entry covering the instruction's types (any of them, for cvt/setp/slct)."""
    entries = [e for e in entries if e.variant is None or e.variant(ins)]
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
