"""Memory access: ld/ldu/st, kernel and .param variables, cp.async, and the
memory-ordering and cache hints (membar, fence, prefetch, ...).

The engine emits these itself because they go through the launch context's
checked memory (machine.access), not through a value function of registers.
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ...ptx.ir import Imm, Reg, Sink, Sym, Vec
from ...ptx.types import TYPES
from ..codegen import Site
from .common import address_expr, emitter, space_of, vector_count, write_selected


def param_var_access(c, ins, load: bool):
    """ld/st.param on a function's own parameters or a call site's .param variables."""
    addr = ins.srcs[0]
    name = addr.base.name
    key = c.key(name)
    t = ins.type
    dtype = c.const(TYPES[t].dtype, "D")
    size = TYPES[t].nbytes
    if load:
        items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
        for k, item in enumerate(items):
            off = addr.offset + k * size
            c.write(item, t, f"ctx.param_var({key!r})[idx, {off}:{off + size}].copy().view({dtype}).ravel()")
    else:
        if c.guard is not None:
            raise UnsupportedInstruction(ins, "predicated st.param")
        vals = ins.srcs[1].items if isinstance(ins.srcs[1], Vec) else ins.srcs[1:2]
        for k, item in enumerate(vals):
            off = addr.offset + k * size
            v = c.typed(item, t)
            c.emit(f"ctx.param_var({key!r})[idx, {off}:{off + size}] = "
                   f"fit({v}, n).astype({dtype}).view(np.uint8).reshape(n, {size})")
    return False


def kernel_param_load(c, ins):
    """ld.param of a kernel parameter at a constant offset: the same value for every thread.

    The offset is checked here, once, against the kernel's parameter layout;
    the load is a read of the launch's parameter buffer.
    """
    t = TYPES[ins.type]
    count = vector_count(ins)
    offset = c.symbol_value(Sym(ins.srcs[0].base.name, ins.srcs[0].base.offset + ins.srcs[0].offset))
    end = max((o + size for _, o, size, _ in c.program.param_layouts[c.fn.name]), default=0)
    if offset % t.nbytes or offset + t.nbytes * count > end:
        raise UnsupportedInstruction(ins, f"parameter load at offset {offset} outside the "
                                          f"{end}-byte parameter list or misaligned")
    items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
    dtype = c.const(t.dtype, "D")
    for k, item in enumerate(items):
        if isinstance(item, Sink):
            continue
        at = offset + k * t.nbytes
        c.write(item, ins.type, f"ctx.params[{at}:{at + t.nbytes}].view({dtype})[0]")
    return False


@emitter("ld", "ldu")
def emit_load(c, ins):
    addr = ins.srcs[0]
    space = space_of(ins)
    if space == "param" and isinstance(addr.base, Sym) and c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=True)
    if space == "generic" and isinstance(addr.base, Sym) and c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=True)
    if space == "param" and isinstance(addr.base, Sym) and ins.guard is None and \
            c.symbol_space(addr.base.name) == "param":
        return kernel_param_load(c, ins)
    t = ins.type
    count = vector_count(ins)
    expr, space = address_expr(c, addr, space)
    site = c.const(Site(c.program, c.fn, ins), "site")
    dtype = c.const(TYPES[t].dtype, "D")
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
    sel_idx, sel = c.selected()
    vals = c.fresh("vals")
    a_sel = f"{a}[{sel}]" if sel else a
    c.emit(f"{vals} = access.load(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, {dtype}, {count})")
    for k, item in enumerate(items):
        write_selected(c, item, t, f"{vals}[{k}]", sel)
    return False


@emitter("st")
def emit_store(c, ins):
    addr, value = ins.srcs[0], ins.srcs[1]
    space = space_of(ins)
    if space in ("param", "generic") and isinstance(addr.base, Sym) and \
            c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=False)
    t = ins.type
    expr, space = address_expr(c, addr, space)
    site = c.const(Site(c.program, c.fn, ins), "site")
    dtype = c.const(TYPES[t].dtype, "D")
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    items = value.items if isinstance(value, Vec) else (value,)
    sel_idx, sel = c.selected()
    vals = []
    for item in items:
        if isinstance(item, Sink):
            vals.append("None")
            continue
        v = f"fit({c.typed(item, t)}, n)"
        vals.append(f"{v}[{sel}]" if sel else v)
    a_sel = f"{a}[{sel}]" if sel else a
    c.emit(f"access.store(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, {dtype}, [{', '.join(vals)}])")
    return False


@emitter("cp")
def emit_async_copy(c, ins):
    """cp.async: the copy completes at once, so commit_group and wait_group have nothing to wait for.

    `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | , ignore-src}`:
    bytes past src-size are zero-filled, as the hardware does.
    """
    if set(ins.mods) & {"commit_group", "wait_group", "wait_all"}:
        return False
    if "mbarrier" in ins.mods:                         # arrive when prior copies complete: now
        if "noinc" in ins.mods:
            site = c.const(Site(c.program, c.fn, ins), "site")
            sel_idx, sel = c.selected()
            expr, _ = address_expr(c, ins.srcs[0], "shared")
            c.emit(f"mbarrier.arrive(ctx, {site}, {sel_idx}, {expr}{f'[{sel}]' if sel else ''}, 1)")
        return False                                   # without .noinc it adds one and arrives once
    dst, src, size = ins.srcs[0], ins.srcs[1], ins.srcs[2].value
    words = size // 4 if size >= 4 else 0
    if size not in (4, 8, 16):
        raise UnsupportedInstruction(ins, f"cp.async of {size} bytes")
    site = c.const(Site(c.program, c.fn, ins), "site")
    d_expr, _ = address_expr(c, dst, "shared")
    s_expr, _ = address_expr(c, src, "global")
    sel_idx, sel = c.selected()
    d, a = c.fresh("dst"), c.fresh("src")
    c.emit(f"{a} = {s_expr}" + (f"[{sel}]" if sel else ""))
    c.emit(f"{d} = {d_expr}" + (f"[{sel}]" if sel else ""))
    vals = c.fresh("words")
    c.emit(f"{vals} = access.load(ctx, {site}, {sel_idx}, 'global', {a}, np.uint32, {words})")
    if len(ins.srcs) > 3 and not (isinstance(ins.srcs[3], Imm) and ins.srcs[3].value >= size):
        extra = ins.srcs[3]
        if isinstance(extra, Reg) and c.fn.regs.get(extra.name) == "pred":
            keep = f"np.where(fit({c.typed(extra, 'pred')}, n){'[' + sel + ']' if sel else ''}, 0, {size})"
        else:
            keep = f"fit({c.typed(extra, 'u32')}, n){'[' + sel + ']' if sel else ''}.astype(np.int64)"
        kept = c.fresh("kept")
        c.emit(f"{kept} = {keep}")
        for k in range(words):
            c.emit(f"{vals}[{k}] = np.where({kept} >= {4 * (k + 1)}, {vals}[{k}], "
                   f"{vals}[{k}] & ((np.uint64(1) << (8 * np.clip({kept} - {4 * k}, 0, 4)).astype(np.uint64)) - np.uint64(1)).astype(np.uint32))")
    c.emit(f"access.store(ctx, {site}, {sel_idx}, 'shared', {d}, np.uint32, {vals})")
    return False


@emitter("membar", "fence", "nanosleep", "prefetch", "prefetchu", "pmevent", "griddepcontrol",
         "discard", "applypriority", "createpolicy")
def emit_nothing(c, ins):
    """Memory ordering is already total here (one instruction at a time); hints do nothing."""
    if ins.opcode == "createpolicy":
        c.write(ins.dsts[0], "b64", "np.zeros(n, dtype=np.uint64)")
    return False
