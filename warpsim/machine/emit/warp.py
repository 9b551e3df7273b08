"""Warp exchange: shfl, vote, match, redux, elect, activemask.

The engine emits these itself because a lane's result depends on the other
lanes of its warp (machine.warp_ops), not on its own registers alone.
"""

from __future__ import annotations

from ...ptx.ir import Reg
from ..codegen import Site
from .common import emitter


def member_mask(c, ins, operand):
    return f"fit({c.typed(operand, 'b32')}, n)"


@emitter("shfl")
def emit_shfl(c, ins):
    mode = next(m for m in ins.mods if m in ("up", "down", "bfly", "idx"))
    a, b, cc = ins.srcs[0], ins.srcs[1], ins.srcs[2]
    value = f"fit({c.typed(a, 'b32')}, n)"
    reg_file = f"ctx.reg({c.key(a.name)!r}, 32)" if isinstance(a, Reg) and a.name in c.fn.regs else "None"
    res = c.fresh("shfl")
    mask = member_mask(c, ins, ins.srcs[3]) if "sync" in ins.mods and len(ins.srcs) > 3 else "None"
    site = c.const(Site(c.program, c.fn, ins), "site")
    c.emit(f"{res} = warp_ops.shfl(ctx, idx, {mode!r}, {value}, {c.typed(b, 'b32')}, "
           f"{c.typed(cc, 'b32')}, {reg_file}, {mask}, {site})")
    write_value_and_predicate(c, ins.dsts, res)
    return False


def write_value_and_predicate(c, dsts, result: str):
    """`d|p` destinations of shfl and match.all: the value, and the predicate if named."""
    c.write(dsts[0], "b32", f"{result}[0]")
    if len(dsts) > 1:
        c.write(dsts[1], "pred", f"{result}[1]")


@emitter("vote")
def emit_vote(c, ins):
    mode = next(m for m in ins.mods if m in ("all", "any", "uni", "ballot"))
    pred = f"fit({c.typed(ins.srcs[0], 'pred')}, n)"
    mask = member_mask(c, ins, ins.srcs[1]) if "sync" in ins.mods else "warp_ops.activemask(ctx, idx)"
    out_type = "b32" if mode == "ballot" else "pred"
    c.write(ins.dsts[0], out_type, f"warp_ops.vote(ctx, idx, {mode!r}, {pred}, {mask})")
    return False


@emitter("match")
def emit_match(c, ins):
    mode = "any" if "any" in ins.mods else "all"
    t = ins.type
    value = f"fit({c.typed(ins.srcs[0], t)}, n)"
    mask = member_mask(c, ins, ins.srcs[1])
    res = c.fresh("match")
    c.emit(f"{res} = warp_ops.match(ctx, idx, {mode!r}, {value}, {mask})")
    if mode == "any":
        c.write(ins.dsts[0], "b32", res)
    else:
        write_value_and_predicate(c, ins.dsts, res)
    return False


@emitter("redux")
def emit_redux(c, ins):
    op = next(m for m in ins.mods if m in ("add", "min", "max", "and", "or", "xor"))
    t = ins.type
    value = f"fit({c.typed(ins.srcs[0], t)}, n)"
    mask = member_mask(c, ins, ins.srcs[1])
    c.write(ins.dsts[0], t, f"warp_ops.redux(ctx, idx, {op!r}, {value}, {mask})")
    return False


@emitter("elect")
def emit_elect(c, ins):
    """elect.sync d|p, membermask: the lowest named lane taking part is the leader."""
    mask = member_mask(c, ins, ins.srcs[0])
    res = c.fresh("elect")
    c.emit(f"{res} = warp_ops.elect(ctx, idx, {mask})")
    dsts = ins.dsts
    c.write(dsts[0], "b32", f"{res}[0]")
    if len(dsts) > 1:
        c.write(dsts[1], "pred", f"{res}[1]")
    return False


@emitter("activemask")
def emit_activemask(c, ins):
    c.write(ins.dsts[0], "b32", "warp_ops.activemask(ctx, idx)")
    return False
