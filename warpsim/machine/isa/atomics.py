"""Atomics: atom and red, scalar and vector (.v2/.v4), exact under conflicts.

The table entry, load-time check, emitter and runtime of atom/red.
semantics/atomics.py holds what each operation computes and how lanes that
hit the same address are serialized (in thread order, exact); its RMW is the
one list of atomic operations: the check accepts its keys, the emitter picks
the instruction's operation from it, and the runtime applies it.
"""

from __future__ import annotations

import numpy as np

from ...errors import MemoryFault
from ...ptx.ir import Sink
from ...ptx.types import TYPES
from ...semantics.atomics import ATOMIC_OPS, update
from .. import access
from .table import MEMORY, emitted


# ------------------------------------------------------------ check and emitter

def check_atomic(ins):
    if not (set(ins.mods) & set(ATOMIC_OPS)):
        return f"atomic operation not supported ({'/'.join(ATOMIC_OPS)} are)"
    if ins.type == "b16":               # atom.cas.b16 (sm_70+): 16-bit compare-and-swap only
        return None if "cas" in ins.mods else "16-bit atomics other than cas are not in PTX"
    if ins.type not in ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "f16x2", "bf16x2",
                        "f16", "bf16"):
        return f"atomic type .{ins.type} not supported"
    if ins.type in ("f16", "bf16") and "add" not in ins.mods:
        return "scalar f16/bf16 atomics other than add are not supported"
    vector = any(m in ("v2", "v4", "v8") for m in ins.mods)
    if vector and not ({"add", "min", "max"} & set(ins.mods) and ins.type in ("f32", "f16x2", "bf16x2", "f16", "bf16")):
        return "vector atomics are add/min/max on f32, f16 and bf16 (pairs)"
    return None


def operation_of(ins) -> str:
    """The instruction's atomic operation (the check made sure it has one)."""
    return next(m for m in ins.mods if m in ATOMIC_OPS)


@emitted("atom", "red", family="atomics", kind=MEMORY, pipe="lsu", check=check_atomic)
def emit_atomic(c, ins):
    op = operation_of(ins)
    addr = ins.srcs[0]
    expr, space = c.address(addr, access.space_of(ins))
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if access.vector_count(ins) > 1:
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
    site = c.site(ins)
    sel_idx, sel = c.selected()
    args = []
    for item in operands:
        v = f"fit({c.typed(item, t)}, n)"
        args.append(f"{v}[{sel}]" if sel else v)
    while len(args) < 2:
        args.append("None")
    a_sel = f"{a}[{sel}]" if sel else a
    old = c.fresh("old")
    c.emit(f"{old} = atomics.apply(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, "
           f"{c.const(TYPES[t], t)}, {op!r}, {args[0]}, {args[1]})")
    if dst is not None:
        c.write_selected(dst, t, old, sel)
    return False


# ------------------------------------------------------------ runtime

def apply(ctx, site, idx, space, addrs, ptype, op, b, c):
    """atom/red: each lane's old value; conflicting lanes serialized in thread order."""
    size = ptype.nbytes
    if space == "generic":
        old = np.zeros(len(idx), dtype=ptype.dtype)
        for name, sel in access.split_generic(addrs):
            if sel is None:
                return apply(ctx, site, idx, name, addrs, ptype, op, b, c)
            old[sel] = apply(ctx, site, idx[sel], name, addrs[sel], ptype, op,
                             None if b is None else b[sel], None if c is None else c[sel])
        return old
    if space not in ("global", "shared"):
        raise MemoryFault(f"atomic on the {space} state space", kernel=ctx.kernel,
                          ptx_line=site.ins.line, instruction=str(site.ins))
    buf, off = access.resolve(ctx, site, idx, space, addrs, size, True)
    view = buf.view(ptype.dtype)
    old = update(view, off // size, op, ptype.name, b, c)
    # Progress only if memory changed: atomicAdd(flag, 0) or a failed CAS in a spin loop is none.
    ctx.writes += not ctx.changes_only or old.tobytes() != view[off // size].tobytes()
    if space == "global":
        if buf is ctx.memory.buffer:
            ctx.memory.initialized[off[:, None] + np.arange(size)] = True
        else:                                       # lanes in host ranges
            ctx.memory.mark_written(addrs, size)
    for obs in ctx.memory_observers:
        obs.memory_access(ctx, site, space, "atomic", idx, addrs, size, 1)
    return old
