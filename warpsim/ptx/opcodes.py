"""What the PTX syntax says about opcodes and modifiers, read before the instruction table exists.

The parser and the verifier sit below the machine's instruction table
(machine/isa/table.py), so the facts they need to read PTX text live here, once:
which opcodes take no destination, which modifiers name a state space (the
machine's memory accesses resolve their space from the same map), which
opcodes name one, and the operand counts of the forms the table cannot state
(its emitters read operands by position). The operand counts and types of
value instructions are the table's own (machine/isa/operand_types.py gives
them to the verifier).
"""

from __future__ import annotations

# Opcodes whose first operand is a source, not a destination (bar.red and wgmma.mma_async write one).
NO_DESTINATION = frozenset({
    "st", "red", "bar", "barrier", "bra", "brx", "call", "ret", "exit", "membar", "fence",
    "trap", "brkpt", "nanosleep", "prefetch", "prefetchu", "pmevent", "cp", "discard",
    "applypriority", "griddepcontrol", "setmaxnreg", "stmatrix", "multimem", "wgmma", "tcgen05",
})

# State-space modifiers -> the space they name (::cta/::cluster/::entry qualifiers folded).
SPACE_MODIFIERS = {"global": "global", "shared": "shared", "shared::cta": "shared",
                   "shared::cluster": "shared", "local": "local", "const": "const", "param": "param",
                   "param::entry": "param", "param::func": "param"}

# Opcodes that name at most one state space (cp.async and kin name two: a source's and a destination's).
ONE_SPACE_OPCODES = frozenset({"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "cvta"})
WRITES_MEMORY = frozenset({"st", "atom", "red"})

# ld, st and cvt may name registers wider than their integer or .b type (the PTX manual's
# "operand size exceeding instruction-type size").
WIDER_REGISTERS = frozenset({"ld", "ldu", "st", "cvt"})

# Operands (destinations and sources) the forms of memory and move instructions take at least; each
# needs a type. A value instruction's count is its table signature's.
EMITTED_ARITY = {"mov": 2, "cvta": 2, "ld": 2, "ldu": 2, "st": 2, "atom": 3, "red": 2}
