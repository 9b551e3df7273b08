"""How a value instruction is encoded for the compiled tier: one row of int64 per instruction.

A row holds the instruction's family and operation (numbers the family module
gives), its guard, its destinations and its sources:

    FAMILY OP FLAGS | GUARD_KIND GUARD_ROW GUARD_INVERT | UNIFORM | 3 destinations (kind, row) |
    SOURCES operands (kind, a, modifiers)

Operand kinds: ZERO (RZ, URZ; reads 0, a write is dropped), REG and UREG (a row
of R / UR), VALUE (entry `a` of the launch's value table: an immediate's bits,
or a constant-bank word read once per launch), PRED and UPRED (a row of P / UP;
PT is P's row 7, which holds true). Modifiers: NEG, INV, ABS, and FLOAT (NEG
flips the sign bit and ABS clears it, instead of two's complement).

A family module registers an encoder per opcode with `@encodes`: `encoder(ins,
row: Row)` fills the row through Row's methods, or raises Unencodable (the
instruction then stays a NumPy step). Register pairs are read as a row and the
next (`Row.source(op, bits=64)` marks the value entry 64 bits wide).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..executor.operands import immediate_bits, normalized
from ..executor.state import PT_ROW

# row fields
FAMILY, OP, FLAGS, GUARD_KIND, GUARD_ROW, GUARD_INVERT, UNIFORM, ON_ROWS, N_SOURCES, N_DESTS = range(10)
DESTS = 10                  # 3 destinations of (kind, row)
MAX_DESTS = 3
SOURCES = DESTS + 2 * MAX_DESTS
MAX_SOURCES = 7
WIDTH = SOURCES + 3 * MAX_SOURCES

# operand kinds
ZERO, REG, UREG, VALUE, PRED, UPRED = range(6)
# operand modifiers
NEG, INV, ABS, FLOAT, PAIR = 1, 2, 4, 8, 16     # PAIR: a 64-bit source (a register pair, a 64-bit value)
WIDE = 16                   # added to a destination's kind: a register pair

ENCODERS: dict = {}          # opcode -> (family number, encoder)
FAMILY_NAMES = ("moves", "integer", "compare", "floating")   # a family's number is its place (segment.py)


class Unencodable(Exception):
    """This instruction (an operand form, a modifier) is not covered: it stays a NumPy step."""


def family(name: str) -> int:
    """The number of family `name`: the row's FAMILY field, on which segment.py dispatches."""
    return FAMILY_NAMES.index(name)


def encodes(*opcodes: str, family_number: int):
    def register(encoder):
        for opcode in opcodes:
            if opcode in ENCODERS:
                raise ValueError(f"the compiled tier encodes {opcode} twice")
            ENCODERS[opcode] = (family_number, encoder)
        return encoder
    return register


@dataclass(frozen=True)
class ValueSpec:
    """An entry of the launch's value table: fixed bits, or a constant-bank word of `bytes`."""
    bits: int | None = None
    bank: int | None = None
    offset: int = 0
    nbytes: int = 4

    def value(self, st) -> int:
        if self.bits is not None:
            return self.bits
        return st.const_scalar(self.bank, self.offset, self.nbytes)


class Row:
    """The row of one instruction while its encoder fills it; `values` is the program's value table
    (entries are shared by every segment of the program)."""

    def __init__(self, ins, family_number: int, values: list):
        self.ins = ins
        self.data = np.zeros(WIDTH, dtype=np.int64)
        self.data[FAMILY] = family_number
        self.values = values
        self.n_dests = 0
        self.n_sources = 0
        self._guard(ins)

    def _guard(self, ins):
        if not ins.is_guarded:
            return
        g = ins.guard
        self.data[GUARD_KIND] = PRED if g.kind == "pred" else UPRED
        self.data[GUARD_ROW] = PT_ROW if g.number is None else g.number
        self.data[GUARD_INVERT] = int(bool(g.invert))

    def op(self, number: int, flags: int = 0) -> "Row":
        self.data[OP] = number
        self.data[FLAGS] = flags
        return self

    def on_rows(self) -> "Row":
        """The family computes this row on gathered rows of lanes (lanes.py's gather and scatter)."""
        self.data[ON_ROWS] = 1
        return self

    def dest(self, op, bits: int = 32) -> "Row":
        """A register or predicate destination (RZ, URZ, PT: dropped); 64 bits: a register pair. A
        uniform one makes the instruction uniform: it runs for the warp's first lane whose guard
        holds and writes all 32."""
        if self.n_dests == MAX_DESTS:
            raise Unencodable("too many destinations")
        kinds = {"reg": REG, "ureg": UREG, "pred": PRED, "upred": UPRED}
        if op.kind not in kinds:
            raise Unencodable(f"destination {op.text}")
        kind, row = kinds[op.kind], op.number
        if op.kind in ("ureg", "upred"):
            self.data[UNIFORM] = 1
        if row is None:
            kind, row = ZERO, 0
        if bits == 64 and kind in (REG, UREG):
            kind |= WIDE
        at = DESTS + 2 * self.n_dests
        self.data[at], self.data[at + 1] = kind, row
        self.n_dests += 1
        self.data[N_DESTS] = self.n_dests
        return self

    def source(self, op, bits: int = 32, floating: bool = False, negate_as_invert: bool = False) -> int:
        """Append a value operand; returns the ones it adds to an adder (1 for a negated source
        read as its complement, under negate_as_invert, as the adder does)."""
        op = normalized(op)
        mods = FLOAT if floating else 0
        ones = 0
        if op.kind == "imm" and not floating:
            pass                        # an integer immediate's sign is in its value (as the NumPy reader reads it)
        elif op.negate and negate_as_invert:
            mods |= INV
            ones = 1
        elif op.negate:
            mods |= NEG
        if op.invert and not (op.kind == "imm" and not floating):
            if floating:
                raise Unencodable(f"operand {op.text}")
            mods |= INV
        if op.absolute and not (op.kind == "imm" and not floating):
            if not floating:
                raise Unencodable(f"operand {op.text}")
            mods |= ABS
        if bits == 64:
            mods |= PAIR
        if op.kind in ("reg", "ureg"):
            kind, a = (REG if op.kind == "reg" else UREG), op.number
            if a is None:
                kind, a = ZERO, 0
        elif op.kind == "imm":
            kind, a = VALUE, self._value(ValueSpec(bits=immediate_bits(op, bits, floating)))
        elif op.kind == "const":
            if any(not part.is_zero_register for part in op.parts):
                raise Unencodable(f"operand {op.text}: a constant indexed by a register")
            kind, a = VALUE, self._value(ValueSpec(bank=op.bank, offset=op.offset or 0, nbytes=bits // 8))
        else:
            raise Unencodable(f"operand {op.text} as a value")
        self._append(kind, a, mods)
        return ones

    def predicate(self, op) -> "Row":
        """Append a predicate operand (P0..P6, PT, UP*, with ! inversion)."""
        if op.kind not in ("pred", "upred"):
            raise Unencodable(f"operand {op.text} as a predicate")
        row = PT_ROW if op.number is None else op.number
        self._append(PRED if op.kind == "pred" else UPRED, row, INV if op.invert else 0)
        return self

    def never(self) -> "Row":
        """Append !PT, a predicate operand that never holds."""
        self._append(PRED, PT_ROW, INV)
        return self

    def constant(self, bits: int) -> "Row":
        """Append a value operand of fixed bits the encoder computed (a truth table, a shift)."""
        self._append(VALUE, self._value(ValueSpec(bits=int(bits) & (2**64 - 1))), 0)
        return self

    def _append(self, kind: int, a: int, mods: int):
        if self.n_sources == MAX_SOURCES:
            raise Unencodable("too many sources")
        at = SOURCES + 3 * self.n_sources
        self.data[at:at + 3] = kind, a, mods
        self.n_sources += 1
        self.data[N_SOURCES] = self.n_sources

    def _value(self, spec: ValueSpec) -> int:
        try:
            return self.values.index(spec)
        except ValueError:
            self.values.append(spec)
            return len(self.values) - 1


def encode(ins, values: list):
    """The row of `ins`, or Unencodable saying why not."""
    found = ENCODERS.get(ins.opcode)
    if found is None:
        raise Unencodable(f"{ins.opcode} is not in the compiled tier")
    family_number, encoder = found
    row = Row(ins, family_number, values)
    encoder(ins, row)
    return row.data


def value_table(specs: list, st) -> np.ndarray:
    """The launch's value table (uint64), read from its constant banks."""
    return np.array([spec.value(st) for spec in specs], dtype=np.uint64)
