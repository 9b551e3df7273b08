"""Memory access: ld/ldu/st, kernel and .param variables, and the
memory-ordering and cache hints (membar, fence, prefetch, ...).

The engine emits these itself because they go through the launch context's
checked memory (machine.access), not through a value function of registers.
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ...ptx.ir import Sink, Sym, Vec
from ...ptx.types import TYPES
from ..access import space_of, vector_count
from .table import MEMORY, emitted


def check_memory(ins):
    if ins.opcode in ("ld", "st") and set(ins.mods) & {"async", "bulk", "multimem"}:
        return "asynchronous/bulk memory operations are not supported"
    if "b128" in ins.mods:
        return ".b128 accesses are not supported"
    return None


# Proxy fences order the generic proxy (ld/st) against the async proxy (TMA, wgmma's
# shared-memory reads) or tensor-map accesses. warpsim's asynchronous operations
# complete when they are issued, through the same memory, so there is nothing to order.
PROXY_FENCES = ("alias", "async", "tensormap::generic")


def check_fence(ins):
    if "proxy" in ins.mods and not any(m.startswith(PROXY_FENCES) for m in ins.mods):
        return "this proxy fence is not supported (alias, async and tensormap::generic are)"
    return None


def param_var_access(c, ins, load: bool):
    """ld/st.param on a function's own parameters or a call site's .param variables."""
    addr = ins.srcs[0]
    name = addr.base.name
    key = c.key(name)
    t = ins.type
    dtype = c.dtype(TYPES[t])
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
    dtype = c.dtype(t)
    for k, item in enumerate(items):
        if isinstance(item, Sink):
            continue
        at = offset + k * t.nbytes
        c.write(item, ins.type, f"ctx.params[{at}:{at + t.nbytes}].view({dtype}).repeat(n)",   # (a copy per thread)
                per_thread=True)
    return False


@emitted("ld", "ldu", family="memory", kind=MEMORY, pipe="lsu", check=check_memory)
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
    expr, space = c.address(addr, space)
    site = c.site(ins)
    dtype = c.dtype(TYPES[t])
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    items = ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts
    sel_idx, sel = c.selected()
    vals = c.fresh("vals")
    a_sel = f"{a}[{sel}]" if sel else a
    c.emit(f"{vals} = access.load(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, {dtype}, {count})")
    for k, item in enumerate(items):
        c.write_selected(item, t, f"{vals}[{k}]", sel)
    return False


@emitted("st", family="memory", kind=MEMORY, pipe="lsu", check=check_memory)
def emit_store(c, ins):
    addr, value = ins.srcs[0], ins.srcs[1]
    space = space_of(ins)
    if space in ("param", "generic") and isinstance(addr.base, Sym) and \
            c.symbol_space(addr.base.name) == "param_var":
        return param_var_access(c, ins, load=False)
    t = ins.type
    expr, space = c.address(addr, space)
    site = c.site(ins)
    dtype = c.dtype(TYPES[t])
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    items = value.items if isinstance(value, Vec) else (value,)
    sel_idx, sel = c.selected()
    vals = []
    for item in items:
        if isinstance(item, Sink):
            vals.append("None")
            continue
        v = c.typed(item, t) if c.is_per_thread(item) else f"fit({c.typed(item, t)}, n)"
        vals.append(f"{v}[{sel}]" if sel else v)
    a_sel = f"{a}[{sel}]" if sel else a
    c.emit(f"access.store(ctx, {site}, {sel_idx}, {space!r}, {a_sel}, {dtype}, [{', '.join(vals)}])")
    return False


@emitted("membar", "prefetch", "prefetchu", "discard", "applypriority",
         family="memory", kind=MEMORY, pipe="lsu")
@emitted("fence", family="memory", kind=MEMORY, pipe="lsu", check=check_fence)
def emit_ordering_or_hint(c, ins):
    """Memory ordering is already total here (one instruction at a time); cache hints do nothing."""
    return False


@emitted("createpolicy", family="memory", kind=MEMORY, pipe="alu")
def emit_createpolicy(c, ins):
    """A cache policy warpsim ignores: the 64-bit policy word is 0."""
    c.write(ins.dsts[0], "b64", "np.zeros(n, dtype=np.uint64)")
    return False
