"""Moves (mov), address conversion (cvta) and space tests (isspacep).

The engine emits these itself rather than through the value table: mov packs
and unpacks vectors and reads symbols, and cvta/isspacep depend on where the
shared and local windows sit in the generic address space.
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ...ptx.ir import Vec
from ...ptx.types import TYPES
from ..memory import LOCAL_WINDOW, SHARED_WINDOW
from .common import emitter, space_of


@emitter("mov")
def emit_mov(c, ins):
    t = ins.type
    dst, src = ins.dsts[0], ins.srcs[0]
    if isinstance(dst, Vec):                      # unpack: mov.b64 {lo, hi}, %rd
        whole = c.typed(src, t)
        part_bits = TYPES[t].bits // len(dst.items)
        part_type = f"b{part_bits}"
        for k, item in enumerate(dst.items):
            c.write(item, part_type, f"(({whole}.astype(np.uint64) >> np.uint64({k * part_bits})) "
                                     f"& np.uint64({(1 << part_bits) - 1}))")
        return False
    if isinstance(src, Vec):                      # pack: mov.b64 %rd, {lo, hi}
        part_bits = TYPES[t].bits // len(src.items)
        terms = [f"({c.typed(item, f'b{part_bits}')}.astype(np.uint64) << np.uint64({k * part_bits}))"
                 for k, item in enumerate(src.items)]
        c.write(dst, "b64" if TYPES[t].bits == 64 else t, " | ".join(terms))
        return False
    c.write(dst, t, c.typed(src, t))
    return False


@emitter("cvta")
def emit_cvta(c, ins):
    """Generic <-> state-space addresses: shared and local live in their windows."""
    t = ins.type
    to = "to" in ins.mods
    space = space_of(ins)
    value = f"{c.typed(ins.srcs[0], t)}.astype(np.uint64)"
    window = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
    if window:
        op = "-" if to else "+"
        value = f"({value} {op} np.uint64({window}))"
    c.write(ins.dsts[0], t, f"{value}.astype({c.const(TYPES[t].dtype, 'D')})")
    return False


@emitter("isspacep")
def emit_isspacep(c, ins):
    space = space_of(ins)
    code = {"global": 0, "const": 0, "shared": 1, "local": 2}.get(space)
    if code is None:
        raise UnsupportedInstruction(ins, f"isspacep.{space}")
    c.write(ins.dsts[0], "pred", f"(access.generic_space({c.typed(ins.srcs[0], 'u64')}) == {code})")
    return False
