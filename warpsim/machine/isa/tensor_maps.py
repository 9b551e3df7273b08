"""Tensor maps written by the kernel: tensormap.replace and tensormap.cp_fenceproxy (sm_90a).

Triton's device-side descriptors (`tl.make_tensor_descriptor`) and CUTLASS's
grouped GEMMs build a tensor map in the kernel: zero 128 bytes of shared
memory, set its fields one by one with
`tensormap.replace.tile.FIELD.shared::cta.b1024.bN [map], {ordinal,} value`,
copy it to global memory with `tensormap.cp_fenceproxy.global.shared::cta...
[global], [shared], 128` and fence. The map's layout is warpsim's own
(machine.isa.bulk_copy.TENSOR_MAP), so each field goes where warpsim's TMA
copies read it; a map that a kernel writes this way is tagged as warpsim's.
Field values are the PTX manual's: rank is written as rank - 1, global_stride
ordinal i is the byte stride of dimension i + 1, elemtype is the manual's
element-type code (its size and whether it is a float follow from it), and
swizzle_mode 0-3 is none, 32B, 64B, 128B.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Imm
from .. import access
from .bulk_copy import MAGIC, SWIZZLES, TENSOR_MAP
from .table import MEMORY, emitted

# elemtype code -> (bytes, is a float): u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz
ELEMENT_TYPES = {0: (1, False), 1: (2, False), 2: (4, False), 3: (4, False), 4: (8, False), 5: (8, False),
                 6: (2, True), 7: (4, True), 8: (4, True), 9: (8, True), 10: (2, True), 11: (4, True),
                 12: (4, True)}
SWIZZLE_CODES = {0: SWIZZLES["none"], 1: SWIZZLES["32B"], 2: SWIZZLES["64B"], 3: SWIZZLES["128B"]}
FIELDS = ("global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
          "elemtype", "swizzle_mode", "fill_mode", "interleave_layout")
WITH_ORDINAL = ("box_dim", "global_dim", "global_stride", "element_stride")


def check_tensormap(ins):
    if "cp_fenceproxy" in ins.mods:
        return None
    field = next((m for m in ins.mods if m in FIELDS), None)
    if "replace" not in ins.mods or "tile" not in ins.mods or field is None:
        return "tensormap.replace.tile (a field of the manual's list) and tensormap.cp_fenceproxy are supported"
    if field in WITH_ORDINAL and not isinstance(ins.srcs[0] if ins.srcs else None, Imm):
        return f"tensormap.replace.{field}'s ordinal is an immediate"
    if field == "interleave_layout" and isinstance(ins.srcs[-1], Imm) and ins.srcs[-1].value:
        return "interleaved tensor maps are not simulated"
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
    ordinal = ins.srcs[0].value if field in WITH_ORDINAL else 0
    value = pick(f"fit({c.typed(ins.srcs[-1], 'u64' if 'b64' in ins.mods else 'u32')}, n)")
    c.emit(f"tensor_maps.replace(ctx, {site}, {sel_idx}, {pick(expr)}, {field!r}, {ordinal}, {value})")
    return False


def replace(ctx, site, idx, addrs, field: str, ordinal: int, values):
    """Set one field of each thread's tensor map (warpsim's layout) in shared memory."""
    buf, off = access.resolve(ctx, site, idx, "shared", np.asarray(addrs, np.uint64), 128, True)
    for k, at in enumerate(off):
        record = np.frombuffer(buf[at:at + 128].tobytes(), dtype=TENSOR_MAP)[0].copy()
        value = int(values[k])
        record["magic"] = MAGIC
        if field == "global_address":
            record["address"] = value
        elif field == "rank":
            record["rank"] = value + 1
        elif field == "box_dim":
            record["box"][ordinal] = value
        elif field == "global_dim":
            record["dims"][ordinal] = value
        elif field == "global_stride":
            record["strides"][ordinal + 1] = value
        elif field == "element_stride":
            record["element_strides"][ordinal] = value
        elif field == "elemtype":
            size, is_float = ELEMENT_TYPES.get(value, (0, False))
            record["element_bytes"], record["float"] = size, is_float
            record["strides"][0] = size
        elif field == "swizzle_mode":
            record["swizzle"] = SWIZZLE_CODES.get(value, 0)
        elif field == "fill_mode":
            record["oob_nan"] = value == 1
        buf[at:at + 128] = np.frombuffer(record.tobytes(), np.uint8)
