"""Tensor maps written by the kernel: tensormap.replace and tensormap.cp_fenceproxy (sm_90a).

Triton's device-side descriptors (`tl.make_tensor_descriptor`) and CUTLASS's
grouped GEMMs build a tensor map in the kernel: zero 128 bytes of shared
memory, set its fields one by one with
`tensormap.replace.tile.FIELD.shared::cta.b1024.bN [map], {ordinal,} value`,
copy it to global memory with `tensormap.cp_fenceproxy.global.shared::cta...
[global], [shared], 128` and fence. Each field goes where the GPU keeps it
(semantics.tensor_maps, the one home of the layout), so the SASS executor,
running ptxas's stores of the same fields, writes the same bytes.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Imm
from ...semantics import tensor_maps as layout
from ...semantics.tensor_maps import FIELDS, ORDINALS
from .. import access
from .table import MEMORY, emitted


def check_tensormap(ins):
    if "cp_fenceproxy" in ins.mods:
        return None
    field = next((m for m in ins.mods if m in FIELDS), None)
    if "replace" not in ins.mods or "tile" not in ins.mods or field is None:
        return "tensormap.replace.tile (a field of the manual's list) and tensormap.cp_fenceproxy are supported"
    if field in ORDINALS:
        if not isinstance(ins.srcs[0] if ins.srcs else None, Imm):
            return f"tensormap.replace.{field}'s ordinal is an immediate"
        if not 0 <= ins.srcs[0].value < ORDINALS[field]:
            return f"tensormap.replace.{field}'s ordinal is 0 to {ORDINALS[field] - 1}"
    low, high = layout.RANGES.get(field, (None, None))
    value = ins.srcs[-1] if ins.srcs else None
    if low is not None and isinstance(value, Imm) and not low <= value.value <= high:
        return f"tensormap.replace.{field}'s value is {low} to {high}"
    return None


@emitted("tensormap", family="tensor_maps", kind=MEMORY, pipe="lsu", check=check_tensormap)
def emit_tensormap(c, ins):
    """replace: one field of the map at a shared address; cp_fenceproxy: copy the 128-byte map out
    to global memory (every lane of the .sync.aligned warp copies the same bytes)."""
    site = c.site(ins)
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)
    target = ins.dsts[0]                                   # the parser takes the first [address] as d
    if "cp_fenceproxy" in ins.mods:
        d, _ = c.address(target, "global")
        s, _ = c.address(ins.srcs[0], "shared")
        c.emit(f"bulk_copy.copy(ctx, {site}, {sel_idx}, {pick(d)}, 'global', {pick(s)}, 'shared', "
               f"np.full(len({sel_idx}), 128), None)")
        return False
    field = next(m for m in ins.mods if m in FIELDS)
    expr, _ = c.address(target, "shared")
    ordinal = ins.srcs[0].value if field in ORDINALS else 0
    value = pick(f"fit({c.typed(ins.srcs[-1], 'u64' if 'b64' in ins.mods else 'u32')}, n)")
    c.emit(f"tensor_maps.replace(ctx, {site}, {sel_idx}, {pick(expr)}, {field!r}, {ordinal}, {value})")
    return False


def replace(ctx, site, idx, addrs, field: str, ordinal: int, values):
    """Set one field of each thread's tensor map in shared memory."""
    buf, off = access.resolve(ctx, site, idx, "shared", np.asarray(addrs, np.uint64), 128, True)
    for k, at in enumerate(off):
        raw = layout.replace(buf[at:at + 128].tobytes(), field, ordinal, int(values[k]))
        buf[at:at + 128] = np.frombuffer(raw, np.uint8)
