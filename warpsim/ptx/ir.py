"""The program representation every other layer works on.

A Module holds module-scope variables and functions; a Function holds its
parameters, registers and a flat list of Instructions with labels pointing into
it. Operands are small frozen dataclasses so instructions compare equal when
they mean the same thing (the parser's round-trip test relies on that).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

from .types import TYPE_NAMES


# ---------------------------------------------------------------- operands

@dataclass(frozen=True)
class Reg:
    name: str                       # '%r1', '%tid.x', '%laneid'

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class Imm:
    """An immediate. `bits` is set for 0f/0d literals, which give raw bits."""
    value: Union[int, float]
    bits: int = 0                   # 32 for 0fXXXXXXXX, 64 for 0dXXXXXXXXXXXXXXXX
    text: str = ""

    def __str__(self):
        return self.text or str(self.value)


@dataclass(frozen=True)
class Sym:
    """A variable, function or label named as an operand (optionally +offset)."""
    name: str
    offset: int = 0

    def __str__(self):
        return self.name + (f"+{self.offset}" if self.offset > 0 else
                            f"{self.offset}" if self.offset < 0 else "")


@dataclass(frozen=True)
class Addr:
    """A memory operand [base+offset]; base is a Reg, a Sym or None (absolute)."""
    base: Union[Reg, Sym, None]
    offset: int = 0

    def __str__(self):
        if self.base is None:
            return f"[{self.offset}]"
        off = f"+{self.offset}" if self.offset > 0 else (f"{self.offset}" if self.offset < 0 else "")
        return f"[{self.base}{off}]"


@dataclass(frozen=True)
class Vec:
    """A vector operand {a, b, c, d}; '_' elements are Sink."""
    items: tuple

    def __str__(self):
        return "{" + ", ".join(str(i) for i in self.items) + "}"


@dataclass(frozen=True)
class Not:
    """A negated predicate source, `!%p` (setp's combining operand, and/or on preds)."""
    reg: Reg

    def __str__(self):
        return f"!{self.reg}"


@dataclass(frozen=True)
class Sink:
    """The '_' placeholder operand."""

    def __str__(self):
        return "_"


Operand = Union[Reg, Imm, Sym, Addr, Vec, Not, Sink]


@dataclass(frozen=True)
class SourceLoc:
    """A .loc: file index into Module.files, line and column of CUDA/Python source."""
    file: int
    line: int
    col: int = 0
    inlined_at: "SourceLoc | None" = None


@dataclass(frozen=True)
class Guard:
    reg: Reg
    negated: bool = False

    def __str__(self):
        return f"@{'!' if self.negated else ''}{self.reg}"


@dataclass(frozen=True)
class CallInfo:
    """call{.uni} (rets), target, (args) [, prototype]; target is a Sym or Reg."""
    returns: tuple
    target: Union[Sym, Reg]
    args: tuple
    prototype: str | None = None


# ---------------------------------------------------------------- instructions

@dataclass(eq=False)
class Instruction:
    opcode: str                     # 'add'
    mods: tuple = ()                # every dotted suffix in order, without dots
    dsts: tuple = ()
    srcs: tuple = ()
    guard: Guard | None = None
    call: CallInfo | None = None
    line: int = 0                   # PTX line (1-based) in the module text
    col: int = 0                    # PTX column (1-based)
    loc: SourceLoc | None = None    # innermost source location from .loc
    index: int = -1                 # position in Function.body
    contracted: int = -1            # add/sub ptxas fused with a mul: which source the product is
                                    # (srcs[2:] are the mul's sources; machine/contraction.py)

    # Cached: instruction semantics ask for these on every execution.
    @cached_property
    def types(self) -> tuple:
        return tuple(m for m in self.mods if m in TYPE_NAMES)

    @cached_property
    def flags(self) -> frozenset:
        return frozenset(m for m in self.mods if m not in TYPE_NAMES)

    @cached_property
    def type(self) -> str:
        """The last type modifier: the operand type for most instructions."""
        types = self.types
        return types[-1] if types else ""

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode,) + tuple(self.mods))

    def key(self):
        """What the instruction means, without where it is (for round-trip tests)."""
        return (self.opcode, self.mods, self.dsts, self.srcs, self.guard, self.call)

    def __str__(self):
        return format_instruction(self)


def format_instruction(ins: "Instruction") -> str:
    guard = f"{ins.guard} " if ins.guard else ""
    head = f"{guard}{ins.mnemonic}"
    if ins.call is not None:
        c = ins.call
        parts = []
        if c.returns:
            parts.append("(" + ", ".join(map(str, c.returns)) + ")")
        parts.append(str(c.target))
        if c.args or c.prototype:
            parts.append("(" + ", ".join(map(str, c.args)) + ")")
        if c.prototype:
            parts.append(c.prototype)
        return f"{head} " + ", ".join(parts) + ";"
    operands = []
    if ins.dsts:
        operands.append("|".join(map(str, ins.dsts)))
    operands.extend(map(str, ins.srcs[:2] if ins.contracted >= 0 else ins.srcs))   # as written
    return (f"{head} " + ", ".join(operands) if operands else head) + ";"


# ---------------------------------------------------------------- declarations

@dataclass
class Variable:
    """A .global/.const/.shared/.local/.param variable.

    `count` is None for a scalar, the element count for an array, and 0 for an
    unsized extern array (dynamic shared memory). `init` is a list of elements,
    each an int/float or a Sym (an address of another symbol, e.g. in tables).
    """
    name: str
    space: str
    type: str
    count: int | None = None
    align: int = 0
    init: list | None = None
    linkage: str | None = None      # 'visible', 'extern', 'weak', 'common' or None
    line: int = 0
    ptr_space: str | None = None    # .ptr.global etc. on kernel params

    @property
    def elem_size(self) -> int:
        from .types import ptx_type
        return ptx_type(self.type).nbytes

    @property
    def size(self) -> int:
        return self.elem_size * (1 if self.count is None else self.count)

    @property
    def alignment(self) -> int:
        return self.align or self.elem_size


class RegisterTable(dict):
    """name -> PTX type name, with `%r<N>` ranges kept as ranges.

    A range is never expanded (`.reg .b32 %r<100000000>;` must load as fast
    as ptxas loads it): a name of a range is answered from `ranges`, and
    entered as an ordinary entry once the parser sees it used, so iterating
    gives every register the code names.
    """

    def __init__(self, *args):
        super().__init__(*args)
        self.ranges: dict = {}                  # prefix -> (count, PTX type name)

    def range_type(self, name: str):
        """The type of name if it belongs to a declared range, else None."""
        member = range_member(self.ranges, name)
        return None if member is None else member[0]

    def __missing__(self, name):
        ptype = self.range_type(name) if isinstance(name, str) else None
        if ptype is None:
            raise KeyError(name)
        return ptype

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or (isinstance(name, str) and
                                                 self.range_type(name) is not None)

    def get(self, name, default=None):
        return self[name] if name in self else default


def range_member(ranges: dict, name: str):
    """(range value...) if name is prefixK of a range prefix<N> with 0 <= K < N (K without leading zeros)."""
    if not ranges:
        return None
    digits = len(name) - len(name.rstrip("0123456789"))
    for split in range(len(name) - digits, len(name)):
        prefix, number = name[:split], name[split:]
        declared = ranges.get(prefix)
        if declared is not None and (number == "0" or number[0] != "0") and int(number) < declared[0]:
            return declared[1:]
    return None


@dataclass
class Function:
    name: str
    kind: str                                   # 'entry' or 'func'
    params: list = field(default_factory=list)  # Variables in .param space
    returns: list = field(default_factory=list)
    regs: dict = field(default_factory=RegisterTable)    # name -> PTX type name
    locals: list = field(default_factory=list)  # .local/.shared/.param variables declared in the body
    body: list = field(default_factory=list)    # Instructions
    labels: dict = field(default_factory=dict)  # label -> index of the next instruction
    directives: dict = field(default_factory=dict)  # maxntid, reqntid, minnctapersm, ...
    linkage: str | None = None
    line: int = 0
    has_body: bool = True


@dataclass
class Module:
    version: str = ""
    target: tuple = ()
    address_size: int = 64
    variables: dict = field(default_factory=dict)   # module-scope Variables
    functions: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)       # .file index -> path
    source_name: str = "<ptx>"
    text: str = ""

    @property
    def kernels(self) -> list:
        return [f for f in self.functions.values() if f.kind == "entry" and f.has_body]
