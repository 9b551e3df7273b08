"""Tensor cores: wmma fragments, mma.sync and ldmatrix.

The engine emits these itself because each is a warp-wide operation on
fragments spread over the lanes' registers (machine.tensor).
"""

from __future__ import annotations

from ...ptx.ir import Vec
from ..codegen import Site
from .. import tensor
from .common import address_expr, emitter, space_of


def write_fragment(c, registers, words: str):
    """Write an (n, registers) array of 32-bit words back to a fragment's registers."""
    for k, register in enumerate(registers):
        c.write(register, "b32", f"{words}[:, {k}]")


def fragment_words(c, vector) -> str:
    """Expression of a fragment's registers as an (n, registers) array of 32-bit words."""
    return "np.stack([" + ", ".join(f"fit({c.typed(r, 'b32')}, n)" for r in vector.items) + "], axis=1)"


@emitter("wmma")
def emit_wmma(c, ins):
    """Warp matrix load/store/multiply-accumulate on opaque fragments (see machine.tensor)."""
    kind, matrix, layouts, shape, space, types = tensor.parse(ins)
    operands = list(ins.dsts) + list(ins.srcs)
    site = c.const(Site(c.program, c.fn, ins), "site")
    if kind == "mma":
        d, a, b, cc = operands
        words = [fragment_words(c, v) for v in (a, b, cc)]
        res = c.fresh("mma")
        c.emit(f"{res} = tensor.mma_fragments(ctx, idx, {shape!r}, {tuple(types)!r}, "
               f"{'satfinite' in ins.mods}, {words[0]}, {words[1]}, {words[2]}, {len(d.items)})")
        write_fragment(c, d.items, res)
        return False
    rows, cols = tensor.fragment_shape(matrix, shape)
    etype = types[-1]
    if kind == "load":
        regs, addr, rest = operands[0], operands[1], operands[2:]
    else:
        addr, regs, rest = operands[0], operands[1], operands[2:]
    stride = c.typed(rest[0], "u32") if rest else str(cols if layouts[0] == "row" else rows)
    expr, space = address_expr(c, addr, space)
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if kind == "load":
        res = c.fresh("frag")
        c.emit(f"{res} = tensor.load_fragment(ctx, {site}, idx, {space!r}, {a}, fit({stride}, n), "
               f"{rows}, {cols}, {layouts[0]!r}, {etype!r}, {len(regs.items)})")
        write_fragment(c, regs.items, res)
    else:
        words = fragment_words(c, regs)
        c.emit(f"tensor.store_fragment(ctx, {site}, idx, {space!r}, {a}, fit({stride}, n), "
               f"{rows}, {cols}, {layouts[0]!r}, {etype!r}, {words})")
    return False


@emitter("mma")
def emit_mma(c, ins):
    """mma.sync.aligned.m16n8k{8,16}.row.col: fragments in the PTX manual's layout."""
    d, a, b, cc = list(ins.dsts) + list(ins.srcs)
    res = c.fresh("mma")
    c.emit(f"{res} = tensor.mma_sync(ctx, idx, {c.const(ins, 'ins')}, {fragment_words(c, a)}, "
           f"{fragment_words(c, b)}, {fragment_words(c, cc)})")
    write_fragment(c, d.items, res)
    return False


@emitter("ldmatrix")
def emit_ldmatrix(c, ins):
    count = next(int(m[1:]) for m in ins.mods if m in ("x1", "x2", "x4"))
    expr, _ = address_expr(c, ins.srcs[0], space_of(ins))
    site = c.const(Site(c.program, c.fn, ins), "site")
    res = c.fresh("ldm")
    c.emit(f"{res} = tensor.ldmatrix(ctx, {site}, idx, {space_of(ins)!r}, {expr}, {count}, "
           f"{'trans' in ins.mods})")
    write_fragment(c, ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts, res)
    return False
