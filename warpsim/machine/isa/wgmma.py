"""Warpgroup MMA (sm_90): wgmma.mma_async with shared-memory matrix descriptors, and its fences.

`wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b-desc, scale-d, ...`
multiplies a 64xK tile of A by a KxN tile of B for a warpgroup (4 consecutive
warps, 128 threads). Warp w of the warpgroup (warp_in_cta % 4) holds rows
16w..16w+15 of D and, when A is in registers, the same rows of A, so each
warp's part depends only on its own registers and on shared memory: warpsim
computes every warp's part at the instruction, all warps that issue it at once
(one gather from shared memory, one stacked matrix product). The operation is asynchronous on
the GPU (its operands may be read until wgmma.wait_group); here it completes
at once, so wgmma.fence, wgmma.commit_group and wgmma.wait_group have nothing
left to order or wait for. A correct kernel cannot tell: it may not touch
the operands or the accumulator between mma_async and the wait.

Shared-memory operands are described by a 64-bit matrix descriptor (the PTX
manual's "Matrix Descriptor Format"): start address >> 4 in bits 0-13, the
leading-dimension byte offset (LBO) >> 4 in bits 16-29, the stride-dimension
byte offset (SBO) >> 4 in bits 32-45, the swizzle mode in bits 62-63 (0 none,
1 128-byte, 2 64-byte, 3 32-byte). The tile is made of 8-row "core matrices"
of 16-byte rows; `operand_addresses` places every element as the manual's
canonical layouts do (K-major: imm-trans 0; M/N-major: imm-trans 1) and then
swizzles the byte address: the 16-byte chunk bits 4.. are XORed with the row
bits 7.. (1, 2 or 3 bits for 32, 64 and 128-byte swizzles). The swizzle is
taken from the absolute shared address, so the descriptor's base-offset field
(bits 49-51, for tiles that do not start on the pattern's boundary) is not
needed and not read.

Products are exact (float64) and rounded once to the accumulator type; tensor
cores add in their own order, so f32 results can differ in the last bits.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from ...errors import MemoryFault
from ...ptx.ir import Imm, Vec
from .. import access
from .table import WARP, emitted, whole_warp
from .tensor import _bf16_to_f32, _fragment_positions, fragment_words, write_fragment

SHAPE = re.compile(r"m64n(\d+)k(\d+)$")
# Input type -> (bytes per element, K of one instruction). A row of K elements is 32 bytes.
INPUT_TYPES = {"f16": (2, 16), "bf16": (2, 16), "tf32": (4, 8)}
ACCUMULATORS = ("f32", "f16")
SWIZZLE_BITS = {0: 0, 1: 3, 2: 2, 3: 1}      # descriptor mode -> row bits XORed into the chunk bits
SWIZZLE_NAMES = {0: "none", 1: "128B", 2: "64B", 3: "32B"}
SWIZZLE_ROW_BITS = np.array([SWIZZLE_BITS[mode] for mode in range(4)])   # the same, indexed by mode


def parse(ins):
    """(N, K, dtype, atype) of a wgmma.mma_async instruction."""
    shape = next((SHAPE.match(m) for m in ins.mods if SHAPE.match(m)), None)
    types = [m for m in ins.mods if m in ACCUMULATORS or m in INPUT_TYPES]
    return ((int(shape.group(1)), int(shape.group(2))) if shape else (0, 0)), types


def check_wgmma(ins):
    operation = ins.mods[0] if ins.mods else ""
    if operation in ("fence", "commit_group", "wait_group"):
        return None
    if operation != "mma_async":
        return f"wgmma.{operation} is not supported (fence, commit_group, wait_group, mma_async are)"
    if "sp" in ins.mods:
        return "sparse wgmma (.sp) is not supported"
    (n, k), types = parse(ins)
    if not n or len(types) != 3:
        return ("wgmma.mma_async is supported for .m64nNkK with .f32/.f16 accumulators and "
                ".f16, .bf16 or .tf32 inputs")
    dtype, atype, btype = types
    if atype != btype or atype not in INPUT_TYPES or dtype not in ACCUMULATORS:
        return f"wgmma.mma_async .{dtype}.{atype}.{btype} is not supported"
    if dtype == "f16" and atype != "f16":
        return "an .f16 accumulator takes .f16 inputs"
    if k != INPUT_TYPES[atype][1] or n % 8 or not 8 <= n <= 256:
        return f"wgmma.mma_async .{atype} has shape m64nNk{INPUT_TYPES[atype][1]}, N = 8, 16, ... 256"
    d = ins.dsts[0] if ins.dsts else None
    want = n // 2 if dtype == "f32" else n // 4
    if not isinstance(d, Vec) or len(d.items) != want:
        return f"wgmma.mma_async m64n{n} .{dtype} takes {want} accumulator registers"
    a_in_registers = isinstance(ins.srcs[0], Vec)
    if a_in_registers and atype == "tf32":
        return "wgmma.mma_async with .tf32 A in registers is not supported"
    transposes = 2 if atype != "tf32" else 0
    if a_in_registers and transposes:
        transposes = 1
    if len(ins.srcs) != 5 + transposes:
        return f"wgmma.mma_async takes {5 + transposes} operands after d, got {len(ins.srcs)}"
    if not all(isinstance(op, Imm) for op in ins.srcs[3:]):
        return "wgmma.mma_async's scale and transpose arguments are immediates"
    return None


# ------------------------------------------------------------ descriptors

def descriptor_fields(desc) -> dict:
    """The fields of 64-bit shared-memory matrix descriptors (arrays of them)."""
    desc = np.asarray(desc, dtype=np.uint64)
    field = lambda shift, bits: ((desc >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.int64)  # noqa: E731
    return {"start": field(0, 14) << 4, "leading": field(16, 14) << 4, "stride": field(32, 14) << 4,
            "base_offset": field(49, 3), "swizzle": field(62, 2)}


def swizzle(addresses: np.ndarray, mode: int) -> np.ndarray:
    """The byte addresses a swizzle mode maps shared addresses to (16-byte chunk ^= row bits)."""
    bits = SWIZZLE_BITS[mode]
    if not bits:
        return addresses
    return addresses ^ (((addresses >> 7) & ((1 << bits) - 1)) << 4)


def operand_addresses(fields: dict, mn: np.ndarray, k: np.ndarray, element_bytes: int,
                      mn_major: bool) -> np.ndarray:
    """Shared byte addresses of elements (mn[w, i], k[j]) of warps' descriptors: (warps, len(mn), len(k)).

    `fields` holds one descriptor per warp (descriptor_fields), `mn` one row of
    M/N indices per warp. K-major (imm-trans 0): rows of the M/N dimension are
    16-byte core-matrix rows 16 * width bytes apart (width = 1, 2, 4, 8 chunks
    for no swizzle, 32, 64, 128 bytes), 8-row groups SBO apart; K runs along
    the row in 16-byte chunks (LBO apart without a swizzle). M/N-major
    (imm-trans 1): M/N runs along the row, width chunks then LBO (SBO without a
    swizzle) to the next; K rows are 16 * width bytes apart, groups of 8 SBO
    (LBO) apart.
    """
    mode = fields["swizzle"][:, None, None]
    start, lbo, sbo = (fields[name][:, None, None] for name in ("start", "leading", "stride"))
    bits = np.take(SWIZZLE_ROW_BITS, mode)
    width = 1 << bits                                    # 16-byte chunks in a swizzle row
    per_chunk = 16 // element_bytes
    mn, k = mn[:, :, None].astype(np.int64), k[None, None, :].astype(np.int64)
    unswizzled = mode == 0
    if not mn_major:
        chunk, within = np.divmod(k, per_chunk)
        along_k = chunk * np.where(unswizzled, lbo, 16) + within * element_bytes
        offset = (mn % 8) * 16 * width + (mn // 8) * sbo + along_k
    else:
        chunk, within = np.divmod(mn, per_chunk)
        along_mn = np.where(unswizzled, chunk * sbo, (chunk % width) * 16 + (chunk // width) * lbo)
        group = np.where(unswizzled, lbo, sbo)
        offset = along_mn + within * element_bytes + (k % 8) * 16 * width + (k // 8) * group
    addresses = start + offset
    return addresses ^ (((addresses >> 7) & (width - 1)) << 4)


# ------------------------------------------------------------ runtime

def _first_lanes(idx):
    """(positions in idx of each warp's first thread, warp row of each thread of idx)."""
    warps = idx >> 5
    first = np.r_[True, warps[1:] != warps[:-1]]
    return np.flatnonzero(first), np.cumsum(first) - 1


def _gather_elements(ctx, site, slots, reads, atype):
    """Float64 values at shared addresses: reads[i] (rows, ...) read by the warp at slots[i][row].

    All reads are resolved at once, element by element in the order given, so
    the first bad address in that order is the one a fault names.
    """
    element_bytes = INPUT_TYPES[atype][0]
    dtype = np.uint16 if element_bytes == 2 else np.uint32
    flat = [where.reshape(len(where), -1) for where in reads]
    lanes = np.concatenate([np.repeat(warp_slots, part.shape[1]) for warp_slots, part in zip(slots, flat)])
    where = np.concatenate([part.ravel() for part in flat])
    buf, off = access.resolve(ctx, site, lanes, "shared", where.astype(np.uint64), element_bytes, False)
    values = to_float(buf.view(dtype)[off // element_bytes], atype)
    bounds = np.cumsum([0] + [part.size for part in flat])
    return [values[lo:hi].reshape(read.shape) for lo, hi, read in zip(bounds, bounds[1:], reads)]


def _chunk_starts(fields, mn, k, element_bytes, mn_major):
    """Addresses of the 16-byte chunks holding elements (mn, k): every chunk's elements run along
    K (K-major) or M/N (M/N-major) from its start, and a swizzle moves whole chunks."""
    per_chunk = 16 // element_bytes
    if mn_major:
        return operand_addresses(fields, mn[:, ::per_chunk], k, element_bytes, True)
    return operand_addresses(fields, mn, k[::per_chunk], element_bytes, False)


def _gather_chunks(ctx, site, slots, reads, atype):
    """Float64 operand values, (rows, mn, k) per read, from (chunk starts, mn_major) reads: each
    16-byte chunk is checked once and its elements gathered together."""
    element_bytes = INPUT_TYPES[atype][0]
    per_chunk = 16 // element_bytes
    dtype = np.uint16 if element_bytes == 2 else np.uint32
    flat = [where.reshape(len(where), -1) for where, _ in reads]
    lanes = np.concatenate([np.repeat(warp_slots, part.shape[1]) for warp_slots, part in zip(slots, flat)])
    where = np.concatenate([part.ravel() for part in flat])
    buf, off = access.resolve(ctx, site, lanes, "shared", where.astype(np.uint64), 16, False)
    values = to_float(buf.view(dtype)[(off // element_bytes)[:, None] + np.arange(per_chunk)], atype)
    bounds = np.cumsum([0] + [part.size for part in flat])
    out = []
    for (starts, mn_major), lo, hi in zip(reads, bounds, bounds[1:]):
        rows, mn, k = starts.shape
        chunk = values[lo:hi].reshape(rows, mn, k, per_chunk)
        if mn_major:
            out.append(chunk.transpose(0, 1, 3, 2).reshape(rows, mn * per_chunk, k))
        else:
            out.append(chunk.reshape(rows, mn, k * per_chunk))
    return out


def _shared_operands(ctx, site, slots, b_desc, a_desc, a_rows, n, k, atype, trans_a, trans_b):
    """(B (warps, n, k), A (warps, 16, k) or None) read from shared memory through the descriptors.

    The warps of a warpgroup share B: it is read once per CTA and descriptor
    (and its addresses placed once per descriptor), and every operand a
    16-byte chunk at a time. A bad address is then looked for again element
    by element, warp by warp, B before A, so the fault names the warp and
    element a warp-by-warp read meets first.
    """
    element_bytes = INPUT_TYPES[atype][0]
    krange, nrange = np.arange(k), np.arange(n)
    keys = np.stack([ctx.cta[slots].astype(np.int64), b_desc.view(np.int64)], axis=1)
    _, first, per_warp = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    descs, per_pair = np.unique(b_desc[first], return_inverse=True)
    b_chunks = _chunk_starts(descriptor_fields(descs), np.broadcast_to(nrange, (len(descs), n)), krange,
                             element_bytes, trans_b)
    reads, read_slots = [(b_chunks[per_pair.ravel()], trans_b)], [slots[first]]
    if a_desc is not None:
        a_fields = descriptor_fields(a_desc)
        reads.append((_chunk_starts(a_fields, a_rows, krange, element_bytes, trans_a), trans_a))
        read_slots.append(slots)
    try:
        values = _gather_chunks(ctx, site, read_slots, reads, atype)
    except MemoryFault:
        in_warp_order = [operand_addresses(descriptor_fields(b_desc), np.broadcast_to(nrange, (len(slots), n)),
                                           krange, element_bytes, trans_b).reshape(len(slots), -1)]
        if a_desc is not None:
            in_warp_order.append(operand_addresses(a_fields, a_rows, krange, element_bytes,
                                                   trans_a).reshape(len(slots), -1))
        _gather_elements(ctx, site, [slots], [np.concatenate(in_warp_order, axis=1)], atype)
        raise
    return values[0][per_warp.ravel()], (values[1] if a_desc is not None else None)


def to_float(bits: np.ndarray, atype: str) -> np.ndarray:
    """Element bits as float64: f16, bf16, or tf32 (the tensor cores read 10 mantissa bits)."""
    if atype == "f16":
        return np.asarray(bits, np.uint16).view(np.float16).astype(np.float64)
    if atype == "bf16":
        return _bf16_to_f32(bits.astype(np.uint16)).astype(np.float64)
    return (bits.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)


@lru_cache(maxsize=None)
def accumulator_offsets(n: int) -> np.ndarray:
    """(32, n/2): where accumulator element i of each lane sits in its warp's 16 x n rows (row * n + col)."""
    lane = np.arange(32)
    group, pair = (lane >> 2)[:, None], (lane & 3)[:, None]
    i = np.arange(n // 2)
    rows, cols = group + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * pair + (i & 1)
    offsets = rows * n + cols
    offsets.setflags(write=False)
    return offsets


@lru_cache(maxsize=None)
def register_a_offsets() -> np.ndarray:
    """(32, 8): where each lane's A elements in registers sit in its warp's 16 x 16 rows (row * 16 + col)."""
    rows, cols = _fragment_positions("a", "m16n8k16", np.arange(32))
    offsets = rows * 16 + cols
    offsets.setflags(write=False)
    return offsets


def mma_async(ctx, site, idx, ins, a, b_desc, scale_d, d_words):
    """One warpgroup MMA for every warp at the instruction: the new accumulator words, (len(idx), registers).

    Each warp's product is its own (16 x K) @ (K x N) matrix product; the
    warps' products are one stacked np.matmul, which multiplies each pair as
    the product of that pair alone does (the same BLAS call per warp), so the
    bits do not depend on how many warps issue together.
    """
    (n, k), (dtype, atype, _) = parse(ins)
    imms = [op.value for op in ins.srcs[3:]]
    scale_a, scale_b = imms[0], imms[1]
    a_in_registers = "words" in a
    trans_a = 0 if a_in_registers or atype == "tf32" else imms[2]
    trans_b = 0 if atype == "tf32" else imms[-1]
    firsts, row = _first_lanes(idx)
    slots = idx[firsts]
    warps = len(slots)
    lane = ctx.lane[idx].astype(np.int64)
    a_rows = None
    if not a_in_registers:
        quarter = ctx.warp_in_cta[slots].astype(np.int64) % 4
        a_rows = 16 * quarter[:, None] + np.arange(16)
    B, A = _shared_operands(ctx, site, slots, np.asarray(b_desc[firsts], np.uint64),
                            None if a_in_registers else np.asarray(a["desc"][firsts], np.uint64), a_rows,
                            n, k, atype, bool(trans_a), bool(trans_b))
    B = B.transpose(0, 2, 1)                            # (warps, k, n), each warp's F-ordered as before
    if a_in_registers:
        words = np.ascontiguousarray(a["words"], dtype=np.uint32).view(np.uint16)
        A = np.zeros((warps, 16 * k))
        A[row[:, None], register_a_offsets()[lane & 31]] = to_float(words, atype)
        A = A.reshape(warps, 16, k)
    products = np.matmul(scale_a * A, scale_b * B)
    products = products.reshape(warps, 16 * n)
    if len(idx) == 32 * warps and np.array_equal(lane, np.tile(np.arange(32), warps)):
        result = np.take(products, accumulator_offsets(n), axis=1).reshape(len(idx), n // 2)   # whole warps
    else:
        result = products[row[:, None], accumulator_offsets(n)[lane & 31]]
    accumulate = np.asarray(scale_d, dtype=bool)
    kind = np.float32 if dtype == "f32" else np.float16
    old = np.ascontiguousarray(d_words, dtype=np.uint32).view(kind).astype(np.float64)
    if accumulate.all():
        result += old
    else:
        result += np.where(accumulate[:, None], old, 0.0)
    if dtype == "f32":
        return result.astype(np.float32).view(np.uint32)
    return np.ascontiguousarray(result.astype(np.float16)).view(np.uint32)


# ------------------------------------------------------------ emitters

@emitted("wgmma", family="wgmma", kind=WARP, pipe="tensor", check=check_wgmma, warp_sync=True,
         member_mask=whole_warp)
def emit_wgmma(c, ins):
    """mma_async: d = A x B (+ d when scale-d), computed at once (runtime above).

    wgmma.fence, commit_group and wait_group: every mma_async completed when
    it was issued, so there is nothing to order or wait for.
    """
    if ins.mods[0] != "mma_async" or check_wgmma(ins):
        return False                                  # an unsupported form: the table check says why
    d, a, b = ins.dsts[0], ins.srcs[0], ins.srcs[1]
    if isinstance(a, Vec):
        a_expr = f"{{'words': {fragment_words(c, a)}}}"
    else:
        a_expr = f"{{'desc': fit({c.typed(a, 'b64')}, n)}}"
    scale_d = f"fit({c.typed(ins.srcs[2], 'pred')}, n)"
    res = c.fresh("wgmma")
    c.emit(f"{res} = wgmma.mma_async(ctx, {c.site(ins)}, idx, {c.const(ins, 'wgmma_mma_async')}, "
           f"{a_expr}, fit({c.typed(b, 'b64')}, n), {scale_d}, {fragment_words(c, d)})")
    write_fragment(c, d.items, res)
    return False
