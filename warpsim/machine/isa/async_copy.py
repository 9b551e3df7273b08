"""Asynchronous copies: cp.async global -> shared, its groups and its mbarrier arrival.

warpsim completes every copy at once, when it is issued, so cp.async.commit_group,
cp.async.wait_group/wait_all have nothing to wait for, and
cp.async.mbarrier.arrive is an ordinary mbarrier arrival (.noinc) or none at
all (machine.isa.barriers keeps the mbarrier objects). Bulk and tensor copies
(TMA) are not simulated.
"""

from __future__ import annotations

from ...errors import UnsupportedInstruction
from ...ptx.ir import Imm, Reg
from .table import MEMORY, emitted


def check_async_copy(ins):
    """cp.async global->shared copies (and their groups); bulk/tensor copies are not simulated."""
    if "async" not in ins.mods:
        return "only cp.async is supported"
    if set(ins.mods) & {"bulk", "tensor", "reduce"}:
        return "bulk and tensor asynchronous copies (TMA) are not supported"
    if set(ins.mods) & {"commit_group", "wait_group", "wait_all", "mbarrier"}:
        return None
    if not {"shared", "global"} <= {m.split("::")[0] for m in ins.mods}:
        return "cp.async copies global to shared memory"
    return None


@emitted("cp", family="async_copy", kind=MEMORY, pipe="lsu", check=check_async_copy)
def emit_async_copy(c, ins):
    """cp.async: the copy completes at once, so commit_group and wait_group have nothing to wait for.

    `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | , ignore-src}`:
    bytes past src-size are zero-filled, as the hardware does.
    """
    if set(ins.mods) & {"commit_group", "wait_group", "wait_all"}:
        return False
    if "mbarrier" in ins.mods:                         # arrive when prior copies complete: now
        if "noinc" in ins.mods:
            site = c.site(ins)
            sel_idx, sel = c.selected()
            expr, _ = c.address(ins.srcs[0], "shared")
            c.emit(f"barriers.arrive(ctx, {site}, {sel_idx}, {expr}{f'[{sel}]' if sel else ''}, 1)")
        return False                                   # without .noinc it adds one and arrives once
    dst, src, size = ins.srcs[0], ins.srcs[1], ins.srcs[2].value
    words = size // 4 if size >= 4 else 0
    if size not in (4, 8, 16):
        raise UnsupportedInstruction(ins, f"cp.async of {size} bytes")
    site = c.site(ins)
    d_expr, _ = c.address(dst, "shared")
    s_expr, _ = c.address(src, "global")
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
