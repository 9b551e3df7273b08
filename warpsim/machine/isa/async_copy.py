"""Asynchronous copies: cp.async global -> shared, its groups and its mbarrier arrival.

warpsim completes every copy at once, when it is issued, so cp.async.commit_group,
cp.async.wait_group/wait_all have nothing to wait for, and
cp.async.mbarrier.arrive is an ordinary mbarrier arrival (.noinc) or none at
all (machine.isa.mbarrier keeps the mbarrier objects). Bulk and tensor copies
(TMA) are machine.isa.bulk_copy's.
"""

from __future__ import annotations

import numpy as np

from ...errors import UnsupportedInstruction
from .. import access
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


@emitted("cp", family="async_copy", kind=MEMORY, pipe="lsu", check=check_async_copy,
         variant=lambda ins: "bulk" not in ins.mods)
def emit_async_copy(c, ins):
    """cp.async: the copy completes at once, so commit_group and wait_group have nothing to wait for.

    `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | , ignore-src}`:
    only src-size bytes are read and the rest zero-filled, as the hardware does
    (read_source).
    """
    if set(ins.mods) & {"commit_group", "wait_group", "wait_all"}:
        return False
    if "mbarrier" in ins.mods:                         # arrive when prior copies complete: now
        if "noinc" in ins.mods:
            site = c.site(ins)
            sel_idx, sel = c.selected()
            expr, _ = c.address(ins.srcs[0], "shared")
            c.emit(f"mbarrier.arrive(ctx, {site}, {sel_idx}, {expr}{f'[{sel}]' if sel else ''}, 1)")
        return False                                   # without .noinc it adds one and arrives once
    dst, src, size = ins.srcs[0], ins.srcs[1], ins.srcs[2].value
    if size not in (4, 8, 16):
        raise UnsupportedInstruction(ins, f"cp.async of {size} bytes")
    site = c.site(ins)
    d_expr, _ = c.address(dst, "shared")
    s_expr, _ = c.address(src, "global")
    sel_idx, sel = c.selected()
    picked = f"[{sel}]" if sel else ""
    d, a = c.fresh("dst"), c.fresh("src")
    c.emit(f"{a} = {s_expr}{picked}")
    c.emit(f"{d} = {d_expr}{picked}")
    vals = c.fresh("words")
    if len(ins.srcs) > 3 and not (isinstance(ins.srcs[3], Imm) and ins.srcs[3].value >= size):
        extra = ins.srcs[3]
        if isinstance(extra, Reg) and c.fn.regs.get(extra.name) == "pred":   # ignore-src
            kept = f"np.where(fit({c.typed(extra, 'pred')}, n){picked}, 0, {size})"
        else:                                                                # src-size
            kept = f"fit({c.typed(extra, 'u32')}, n){picked}.astype(np.int64)"
        c.emit(f"{vals} = async_copy.read_source(ctx, {site}, {sel_idx}, {a}, {size}, {kept})")
    else:
        c.emit(f"{vals} = access.load(ctx, {site}, {sel_idx}, 'global', {a}, np.uint32, {size // 4}, packed=True)")
    c.emit(f"access.store(ctx, {site}, {sel_idx}, 'shared', {d}, np.uint32, {vals})")
    return False


def read_source(ctx, site, idx, addrs, size, kept):
    """The cp-size bytes a cp.async writes, of which only the first `kept` per lane are read.

    The hardware reads src-size bytes and zero-fills the rest, so a lane with
    src-size 0 (a masked load, as Triton emits) reads nothing and may point
    anywhere; only the bytes it reads are checked. Lanes that read everything
    take one access; the others read byte by byte.
    """
    kept = np.minimum(np.asarray(kept, dtype=np.int64), size)
    whole = kept == size
    if whole.all():                  # whole vectors, as access.store takes them: no split and repack
        return access.load(ctx, site, idx, "global", addrs, np.uint32, size // 4, packed=True)
    words = [np.zeros(len(idx), dtype=np.uint32) for _ in range(size // 4)]
    if whole.any():
        for word, part in zip(words, access.load(ctx, site, idx[whole], "global", addrs[whole],
                                                 np.uint32, size // 4)):
            word[whole] = part
    for byte in range(size - 1):
        reading = (kept > byte) & ~whole
        if not reading.any():
            break
        (value,) = access.load(ctx, site, idx[reading], "global",
                               addrs[reading] + np.uint64(byte), np.uint8)
        words[byte // 4][reading] |= value.astype(np.uint32) << np.uint32(8 * (byte % 4))
    return words
