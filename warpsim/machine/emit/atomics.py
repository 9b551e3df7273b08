"""Atomics: atom and red, scalar and vector (.v2/.v4).

The engine emits these itself because each is an exact read-modify-write of
the launch context's memory (machine.access.atomic), lane by lane.
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ...ptx.ir import Sink
from ...ptx.types import TYPES
from ..codegen import Site
from .common import address_expr, emitter, space_of, vector_count, write_selected


ATOMIC_OPS = ("add", "min", "max", "inc", "dec", "cas", "exch", "and", "or", "xor")


@emitter("atom", "red")
def emit_atomic(c, ins):
    op = next((m for m in ins.mods if m in ATOMIC_OPS), None)
    if op is None:
        raise UnsupportedInstruction(ins, "atomic without a supported operation")
    space = space_of(ins)
    addr = ins.srcs[0]
    expr, space = address_expr(c, addr, space)
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if vector_count(ins) > 1:
        return emit_vector_atomic(c, ins, op, space, a)
    return emit_scalar_atomic(c, ins, op, space, a, ins.srcs[1:],
                              ins.dsts[0] if ins.opcode == "atom" else None)


def emit_vector_atomic(c, ins, op, space, a):
    """atom/red .v2/.v4: one exact atomic per element, at consecutive addresses."""
    values = ins.srcs[1].items
    dsts = ins.dsts[0].items if ins.opcode == "atom" else [None] * len(values)
    size = TYPES[ins.type].nbytes
    for k, (value, dst) in enumerate(zip(values, dsts)):
        element = c.fresh("addr")
        c.emit(f"{element} = {a} + np.uint64({k * size})")
        emit_scalar_atomic(c, ins, op, space, element, (value,), None if isinstance(dst, Sink) else dst)
    return False


def emit_scalar_atomic(c, ins, op, space, a, operands, dst):
    t = ins.type
    site = c.const(Site(c.program, c.fn, ins), "site")
    sel_idx, sel = c.selected()
    args = []
    for item in operands:
        v = f"fit({c.typed(item, t)}, n)"
        args.append(f"{v}[{sel}]" if sel else v)
    while len(args) < 2:
        args.append("None")
    a_sel = f"{a}[{sel}]" if sel else a
    old = c.fresh("old")
    c.emit(f"{old} = access.atomic(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, "
           f"{c.const(TYPES[t], 'T')}, {op!r}, {args[0]}, {args[1]})")
    if dst is not None:
        write_selected(c, dst, t, old, sel)
    return False
