"""The SASS opcode table: one entry per opcode, filled by the module of its family.

An entry says which family the opcode belongs to, which modifiers its
semantics handle, and how to build the step that runs one instance of it: a
function `build(ins) -> Step`. Building happens once per instruction when a
kernel's SASS is loaded, so decoding (operand kinds, modifiers, widths) is
never repeated while the kernel runs, and an instruction that cannot be built
is reported with all the others before anything runs (SassUnsupported).

    @semantics("POPC", "integer", doc="population count of a 32-bit source")
    def popc(ins):
        return alu(ins, lambda a: popcount32(a), srcs=[u32(ins.operands[1])])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


class Unsupported(Exception):
    """Raised by a builder: this instance (a modifier, an operand form) is not implemented."""


@dataclass
class OpcodeEntry:
    opcode: str
    family: str
    build: Callable                     # ins -> Step
    mods: frozenset | None              # modifiers the semantics handle (None: any)
    doc: str = ""
    warp_level: bool = False            # reads other lanes (SHFL, VOTE, REDUX, MATCH)


@dataclass
class Step:
    """One decoded instruction: `run(state, group)` executes it for the lanes of group.

    A control instruction (BRA, EXIT, CALL, RET, BRX) has `target`: for the
    lanes that take it (guard true) the next instruction index (-1 = exited);
    the others fall through. `wait` marks where lanes wait for each other
    (BSYNC, WARPSYNC, BAR): the engine lets them issue only together.
    """
    ins: object
    run: Callable
    memory: tuple = field(default_factory=tuple)    # (space, kind, bytes per lane) if it accesses memory
    wait: tuple | None = None       # where lanes wait before it: ('bsync', k), ('warpsync', mask), ('bar', id, count)
    target: Callable | None = None  # control: (state, group of lanes that take it) -> next index per lane


OPCODES: dict = {}


def semantics(*opcodes, family: str, mods=None, doc: str = "", warp_level: bool = False):
    """Register `build` for each opcode (the decorator the family modules use)."""
    def register(build):
        for opcode in opcodes:
            OPCODES[opcode] = OpcodeEntry(opcode, family, build,
                                          None if mods is None else frozenset(mods), doc, warp_level)
        return build
    return register


def build_step(ins) -> Step:
    """The Step for `ins`, or Unsupported naming what is missing."""
    entry = OPCODES.get(ins.opcode)
    if entry is None:
        raise Unsupported("unknown opcode")
    if entry.mods is not None:
        unknown = [m for m in ins.mods if m not in entry.mods]
        if unknown:
            raise Unsupported("modifier " + ", ".join("." + m for m in unknown))
    return entry.build(ins)


def coverage_rows() -> list:
    """(family, opcode, modifiers handled, doc) for every opcode, by family then name."""
    return sorted(((e.family, e.opcode, "any" if e.mods is None else " ".join(sorted(e.mods)) or "-", e.doc)
                   for e in OPCODES.values()))


def coverage_table() -> str:
    """The coverage table as Markdown (docs/sass.md prints it)."""
    lines = ["| family | opcode | modifiers | semantics |", "|---|---|---|---|"]
    for family, opcode, mods, doc in coverage_rows():
        lines.append(f"| {family} | {opcode} | {mods} | {doc} |")
    return "\n".join(lines)
