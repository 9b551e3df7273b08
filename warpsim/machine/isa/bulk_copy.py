"""Bulk and tensor asynchronous copies (sm_90's TMA): cp.async.bulk, cp.async.bulk.tensor, tensor maps.

- `cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar]`
  and `.shared::cluster.shared::cta` copy `size` bytes (a multiple of 16) into
  shared memory, then complete `size` transaction bytes on the mbarrier;
  `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size` copies out.
- `cp.async.bulk.tensor.{1..5}d.shared::{cta,cluster}.global{.tile}.mbarrier::complete_tx::bytes
  [dst], [tensor_map, {c0, ...}], [bar]` copies a box of the tensor a tensor map
  describes, starting at element coordinates c0 (innermost) ..., into shared
  memory: elements outside the tensor read as zero (or NaN when the map asks),
  rows of the box are packed innermost first, and the map's swizzle XORs each
  16-byte chunk of a row with the row's place in its group of 8 (as wgmma reads
  it, machine.isa.wgmma.swizzle); the whole box's bytes complete on the mbarrier.
  `cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tensor_map, {c0, ...}], [src]`
  stores a box back, skipping elements outside the tensor.
- commit_group, wait_group{.read}, prefetch and prefetch.tensormap have
  nothing to wait for or warm: every copy completes when it is issued.

Tensor maps. A CUtensorMap is 128 bytes the driver writes
(cuTensorMapEncodeTiled) and the kernel receives as a `.param .align 64 .b8
[128]` parameter or in global memory. `encode_tiled` writes them in the GPU's
layout (semantics.tensor_maps) from the arguments cuTensorMapEncodeTiled
takes, innermost dimension first, and checks them as the driver does. A kernel's tensor-map address is in its
parameter buffer when it is a parameter's offset (`cvta.param` keeps
parameter offsets: warpsim's parameter space has no generic window) and in
global memory otherwise. Im2col maps, multicast, element strides other than 1
and reductions (cp.reduce.async.bulk) are not simulated.
"""

from __future__ import annotations

import numpy as np

from ...errors import LaunchError
from ...ptx.ir import Vec
from ...semantics.tensor_maps import (ELEMENT_TYPES, SWIZZLE_BYTES, SWIZZLE_MODES, SWIZZLES, box_addresses, decode,
                                      driver_fields, out_of_bounds_fill, problem, replace)
from .. import access
from ..memory import GLOBAL_BASE
from .mbarrier import transact
from .table import MEMORY, emitted


class NotSimulated(ValueError):
    """Tensor map arguments the driver takes and warpsim's TMA does not copy through (the driver API
    returns CUDA_ERROR_NOT_SUPPORTED for them, where the driver's own refusals are CUDA_ERROR_INVALID_VALUE)."""


def encode_tiled(address: int, element_bytes: int, dims, strides, box, element_strides=None,
                 swizzle_mode: str = "none", oob_fill: str = "zero", is_float: bool = True,
                 element_type: int | None = None, l2_promotion: int = 0) -> bytes:
    """A tensor map, in the GPU's 128 bytes, from cuTensorMapEncodeTiled's arguments.

    dims: elements per dimension, innermost first; strides: bytes between
    consecutive elements of dimensions 1.. (rank - 1 values); box: the box's
    elements per dimension; swizzle_mode: 'none', '32B', '64B', '128B';
    oob_fill: 'zero' or 'nan'; element_type: the map's elemtype code (PTX's
    numbering; by default u8, u16, u32, u64, f16, f32 or f64 from the element's
    bytes and is_float); l2_promotion: CUtensorMapL2promotion. The bytes are the
    driver's for the same arguments (tests/semantics/test_tensor_maps.py compares
    them with an H200's). Raises ValueError naming the argument the driver would
    refuse, or NotSimulated (a ValueError) naming what the driver takes and warpsim does not simulate.
    """
    rank = len(dims)
    element_strides = list(element_strides or [1] * rank)
    problems, unsimulated = [], []
    if not 1 <= rank <= 5:
        problems.append(f"rank {rank} (1 to 5)")
    if len(strides) != rank - 1 or len(box) != rank or len(element_strides) != rank:
        problems.append(f"{rank} dims need {rank - 1} strides, {rank} box sizes and element strides")
    if address % 16:
        problems.append(f"global address 0x{address:x} is not 16-byte aligned")
    if any(not 1 <= d <= 1 << 32 for d in dims):
        problems.append(f"dims {list(dims)}: each is 1 to 2^32 elements")
    if any(s % 16 or not 0 <= s < 1 << 40 for s in strides):
        problems.append(f"strides {list(strides)} are not multiples of 16 bytes below 2^40")
    if any(not 1 <= b <= 256 for b in box):
        problems.append(f"box {list(box)}: each size is 1 to 256 elements")
    if len(box) == rank and int(np.prod(box)) * element_bytes > MAX_BOX_BYTES:
        problems.append(f"the box is {int(np.prod(box)) * element_bytes:,} bytes, more than the SM's "
                        f"{MAX_BOX_BYTES:,} of shared memory")
    if box and (box[0] * element_bytes) % 16:
        problems.append(f"the box's inner dimension is {box[0] * element_bytes} bytes, not a multiple of 16")
    if swizzle_mode not in SWIZZLES:
        problems.append(f"swizzle {swizzle_mode!r} (none, 32B, 64B, 128B)")
    elif swizzle_mode != "none" and box and box[0] * element_bytes > SWIZZLE_BYTES[SWIZZLES[swizzle_mode]]:
        problems.append(f"a {swizzle_mode} swizzle with a {box[0] * element_bytes}-byte inner box dimension "
                        f"(at most the swizzle's width)")
    elif swizzle_mode != "none" and box and box[0] * element_bytes != SWIZZLE_BYTES[SWIZZLES[swizzle_mode]]:
        unsimulated.append(f"a {swizzle_mode} swizzle with a {box[0] * element_bytes}-byte inner box dimension "
                           f"(warpsim simulates swizzled boxes whose rows are the swizzle's width)")
    if any(e != 1 for e in element_strides):
        unsimulated.append(f"element strides {element_strides} (warpsim simulates 1)")
    code = ELEMENT_TYPE_CODES.get((element_bytes, bool(is_float) and element_bytes > 1)) \
        if element_type is None else element_type
    if code is None or ELEMENT_TYPES.get(code, (0,))[0] != element_bytes:
        problems.append(f"elements of {element_bytes} bytes (1, 2, 4 or 8"
                        + (f", as element type {element_type} has)" if element_type is not None else ")"))
    if not 0 <= l2_promotion <= 3:
        problems.append(f"L2 promotion {l2_promotion} (0 to 3)")
    if oob_fill not in ("zero", "nan") or (oob_fill == "nan" and not ELEMENT_TYPES.get(code, (0, False))[1]):
        problems.append(f"out-of-bounds fill {oob_fill!r} (zero, or nan for a 2-8 byte float type)")
    if problems:
        raise ValueError("CUDA_ERROR_INVALID_VALUE: tensor map " + "; ".join(problems + unsimulated))
    if unsimulated:
        raise NotSimulated("CUDA_ERROR_NOT_SUPPORTED: tensor map " + "; ".join(unsimulated))
    fields = [("global_address", 0, address), ("rank", 0, rank - 1), ("elemtype", 0, code),
              ("swizzle_mode", 0, SWIZZLE_MODES.index(swizzle_mode)), ("fill_mode", 0, int(oob_fill == "nan")),
              *(("global_dim", d, n) for d, n in enumerate(dims)),
              *(("global_stride", d, s) for d, s in enumerate(strides)),
              *(("box_dim", d, b) for d, b in enumerate(box)),
              *(("element_stride", d, e) for d, e in enumerate(element_strides))]
    raw = bytes(128)
    for field, ordinal, value in fields:
        raw = replace(raw, field, ordinal, value)
    return driver_fields(raw, l2_promotion, int(np.prod(box)) * element_bytes, swizzle_mode)


# the largest box the driver encodes: an SM's shared memory (sm_90: 228 KB); on an H200 boxes of 233,472
# bytes were encoded and 255,360 refused (validation/tensor_maps)
MAX_BOX_BYTES = 228 * 1024

# (bytes, is a float) -> the map's element type: u8 (fp8 too), u16, u32, u64, f16, f32, f64
ELEMENT_TYPE_CODES = {(1, False): 0, (2, False): 1, (4, False): 2, (8, False): 4, (2, True): 6, (4, True): 7,
                      (8, True): 9}


# ------------------------------------------------------------ checks and emitters

def check_bulk(ins):
    mods = set(ins.mods)
    if ins.opcode == "cp" and mods & {"commit_group", "wait_group", "prefetch"}:
        return None
    if mods & {"multicast::cluster", "im2col", "im2col::w", "im2col::w::128", "gather4", "scatter4"}:
        return "multicast, im2col, gather and scatter bulk copies are not supported"
    spaces = [m for m in ins.mods if m.split("::")[0] in ("global", "shared")]
    if len(spaces) != 2:
        return "cp.async.bulk names its destination and source state spaces"
    return None


@emitted("cp", family="bulk_copy", kind=MEMORY, pipe="lsu", check=check_bulk,
         variant=lambda ins: "bulk" in ins.mods)
def emit_bulk(c, ins):
    """Every bulk copy completes here, for the guard-selected threads (usually one elected thread)."""
    mods = set(ins.mods)
    if mods & {"commit_group", "wait_group", "prefetch"}:
        return False
    site = c.site(ins)
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)
    spaces = [m.split("::")[0] for m in ins.mods if m.split("::")[0] in ("global", "shared")]
    into_shared = spaces[0] == "shared"
    srcs = list(ins.srcs)

    def address(op, space):
        expr, _ = c.address(op, space)
        return pick(expr)

    bar = "None"
    if into_shared and "mbarrier::complete_tx::bytes" in mods:
        bar = address(srcs[3 if "tensor" not in mods else 2], "shared")
    if "tensor" in mods:
        tensor = srcs[1] if into_shared else srcs[0]
        tmap, coords = tensor.items[0], tensor.items[1]
        coords = coords.items if isinstance(coords, Vec) else (coords,)
        coord_expr = "np.stack([" + ", ".join(pick(f"fit({c.typed(x, 's32')}, n)") for x in coords) + "], axis=1)"
        tmap_expr = pick(f"fit({c.typed(tmap, 'u64')}, n)")
        smem = address(srcs[0] if into_shared else srcs[1], "shared")
        c.emit(f"bulk_copy.tensor_copy(ctx, {site}, {sel_idx}, {tmap_expr}, {coord_expr}, {smem}, "
               f"{into_shared}, {bar})")
        return False
    dst_space, src_space = spaces
    size = pick(f"fit({c.typed(srcs[2], 'u32')}, n)")
    c.emit(f"bulk_copy.copy(ctx, {site}, {sel_idx}, {address(srcs[0], dst_space)}, {dst_space!r}, "
           f"{address(srcs[1], src_space)}, {src_space!r}, {size}, {bar})")
    return False


# ------------------------------------------------------------ runtime

def _fail(ctx, site, slot, message):
    where = ctx.where(int(slot))
    raise LaunchError(message, kernel=ctx.kernel, block=where["block"], thread=where["thread"],
                      ptx_line=site.ins.line, instruction=str(site.ins), source_line=site.described)


def copy(ctx, site, idx, dst, dst_space, src, src_space, size, bar):
    """cp.async.bulk: `size` bytes per thread from src to dst, then complete_tx on the mbarrier. All
    lanes' words move in one load and one store (a copy is asynchronous: lanes whose copies overlap
    race, as on the GPU), and the lanes' bytes complete on their barriers at once."""
    idx = np.asarray(idx)
    size = np.broadcast_to(np.asarray(size, dtype=np.int64), idx.shape)
    dst = np.broadcast_to(np.asarray(dst, dtype=np.uint64), idx.shape)
    src = np.broadcast_to(np.asarray(src, dtype=np.uint64), idx.shape)
    bad = np.flatnonzero((size % 16 != 0) | (dst % np.uint64(16) != 0) | (src % np.uint64(16) != 0))
    if len(bad):
        k = int(bad[0])
        _fail(ctx, site, idx[k], f"cp.async.bulk of {int(size[k])} bytes from 0x{int(src[k]):x} to "
                                 f"0x{int(dst[k]):x}: size and addresses must be multiples of 16")
    words = size // 4
    lane = np.repeat(np.arange(len(idx)), words)
    offsets = ((np.arange(len(lane)) - np.repeat(np.cumsum(words) - words, words)) * 4).astype(np.uint64)
    slots = idx[lane]
    (values,) = access.load(ctx, site, slots, src_space, src[lane] + offsets, np.uint32)
    access.store(ctx, site, slots, dst_space, dst[lane] + offsets, np.uint32, [values])
    if bar is not None:
        transact(ctx, site, idx, np.broadcast_to(np.asarray(bar), idx.shape), -size)


def read_tensor_map(ctx, site, slot, address: int) -> np.void:
    """The tensor map at a parameter offset or a global address (see the module docstring)."""
    if address < GLOBAL_BASE and address + 128 <= len(ctx.params):
        raw = ctx.params[address:address + 128]
    else:
        (raw,) = access.load(ctx, site, np.full(1, slot), "global", np.array([address], np.uint64),
                             np.dtype((np.void, 128)))
        raw = np.frombuffer(raw.tobytes(), np.uint8)
    record = decode(np.ascontiguousarray(raw).tobytes())
    why = problem(record)
    if why:
        _fail(ctx, site, slot, f"the tensor map at 0x{address:x}: {why}")
    return record


def tensor_copy(ctx, site, idx, tmaps, coords, smem, into_shared: bool, bar):
    """cp.async.bulk.tensor: each thread's box, between the tensor and shared memory."""
    for k, slot in enumerate(idx):
        record = read_tensor_map(ctx, site, slot, int(tmaps[k]))
        esize = int(record["element_bytes"])
        dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[esize]
        global_at, inside, shared_at = box_addresses(record, coords[k], int(smem[k]))
        if int(smem[k]) % 128:
            _fail(ctx, site, slot, f"a tensor copy's shared address 0x{int(smem[k]):x} is not 128-byte aligned")
        one = np.full(int(inside.sum()), slot)
        if into_shared:
            values = np.zeros(len(inside), dtype=dtype)
            values[:] = out_of_bounds_fill(record)
            if inside.any():
                (values[inside],) = access.load(ctx, site, one, "global", global_at[inside].astype(np.uint64), dtype)
            access.store(ctx, site, np.full(len(values), slot), "shared", shared_at.astype(np.uint64), dtype, [values])
            if bar is not None:
                transact(ctx, site, idx[k:k + 1], bar[k:k + 1], np.array([-len(values) * esize]))
        elif inside.any():
            (values,) = access.load(ctx, site, one, "shared", shared_at[inside].astype(np.uint64), dtype)
            access.store(ctx, site, one, "global", global_at[inside].astype(np.uint64), dtype, [values])

