"""Control flow: bra/brx, exit/ret, trap/brkpt, call.

The engine emits these itself because they end the block: they write back the
registers and set each thread's next program counter (or call, return, exit).
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ...ptx.ir import Sym
from ..codegen import Site
from .common import emitter


@emitter("bra", "brx")
def emit_branch(c, ins):
    if ins.opcode == "brx":
        raise UnsupportedInstruction(ins, "brx.idx (indirect branch tables)")
    target = c.program.label_gid(c.fn, ins.srcs[0].name)
    c.writeback()
    if c.guard is None:
        c.emit(f"ctx.pc[idx] = {target}")
    else:
        fall = c.block.next_gid
        c.emit(f"ctx.pc[idx] = np.where({c.guard}, {target}, {fall})")
        if fall == -1:
            c.emit(f"exit_threads(ctx, idx[~{c.guard}])")
    return True


@emitter("exit", "ret")
def emit_exit(c, ins):
    c.writeback()
    if ins.opcode == "ret" and c.fn.kind == "func":
        sel_idx, sel = c.selected()
        if sel:
            c.emit(f"ctx.pc[idx] = {c.block.next_gid}")
        c.emit(f"ctx.return_from(ctx.program, {c.fn.name!r}, {sel_idx})")
        return True
    sel_idx, sel = c.selected()
    if sel:
        c.emit(f"ctx.pc[idx] = {c.block.next_gid}")
        if c.block.next_gid == -1:
            c.emit("exit_threads(ctx, idx)")
    c.emit(f"exit_threads(ctx, {sel_idx})")
    return True


@emitter("trap", "brkpt")
def emit_trap(c, ins):
    sel_idx, _ = c.selected()
    site = c.const(Site(c.program, c.fn, ins), "site")
    c.emit(f"trap(ctx, {site}, {sel_idx})")
    return False


@emitter("call")
def emit_call(c, ins):
    call = ins.call
    c.writeback()
    if c.guard is not None:
        raise UnsupportedInstruction(ins, "predicated call")
    if not isinstance(call.target, Sym):
        raise UnsupportedInstruction(ins, "indirect call through a register")
    callee = c.program.module.functions[call.target.name]
    if not callee.has_body:             # provided by the runtime (printf, assert)
        site = c.const(Site(c.program, c.fn, ins), "site")
        args = [c.key(a.name) for a in call.args]
        rets = [c.key(r.name) for r in call.returns]
        c.emit(f"builtins.call_builtin(ctx, ctx.program, idx, {callee.name!r}, {args!r}, {rets!r}, {site})")
        c.emit(f"ctx.pc[idx] = {c.block.next_gid}")
        if c.block.next_gid == -1:
            c.emit("exit_threads(ctx, idx)")
        return True
    copies = []
    for param, arg in zip(callee.params, call.args):
        if not isinstance(arg, Sym):
            raise UnsupportedInstruction(ins, f"call argument '{arg}' is not a .param variable")
        copies.append((c.key(arg.name), f"{callee.name}::{param.name}", param.size))
    returns = []
    for ret, dst in zip(callee.returns, call.returns):
        returns.append((f"{callee.name}::{ret.name}", c.key(dst.name), ret.size))
    c.program.return_copies[c.block.next_gid] = returns
    c.emit(f"ctx.call(ctx.program, idx, {callee.name!r}, {copies!r}, {c.block.next_gid})")
    return True
