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

What the operands mean (matrix descriptors, the canonical layouts and their
swizzles, the accumulator and register-A fragments) and the product itself
live in semantics/wgmma.py, which the SASS executor's HGMMA calls too; this
module decodes the PTX instruction and reads the PTX machine's shared memory.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from ...errors import MemoryFault
from ...ptx.ir import Imm, Vec
from ...semantics.wgmma import (ACCUMULATORS, FP8_INPUTS, INPUT_TYPES, INTEGER_INPUTS, SWIZZLE_NAMES,  # noqa: F401
                                accumulator_registers, chunk_operand, chunk_starts, descriptor_fields,
                                operand_addresses, register_a, swizzle, to_float, warpgroup_mma)
from .. import access, cluster
from .table import WARP, emitted, whole_warp
from .tensor import fragment_words

SHAPE = re.compile(r"m64n(\d+)k(\d+)$")
ELEMENT_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32}      # an operand element's bits, by its bytes


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
                ".f16, .bf16, .tf32, .e4m3 or .e5m2 inputs, and .s32 with .s8 or .u8 inputs")
    dtype, atype, btype = types
    integer = atype in INTEGER_INPUTS
    if (atype != btype and not (integer and btype in INTEGER_INPUTS)) or atype not in INPUT_TYPES \
            or dtype not in ACCUMULATORS or integer != (dtype == "s32"):
        return f"wgmma.mma_async .{dtype}.{atype}.{btype} is not supported"
    if dtype == "f16" and atype not in ("f16",) + FP8_INPUTS:
        return "an .f16 accumulator takes .f16, .e4m3 or .e5m2 inputs"
    if k != INPUT_TYPES[atype][1] or n % 8 or not 8 <= n <= 256:
        return f"wgmma.mma_async .{atype} has shape m64nNk{INPUT_TYPES[atype][1]}, N = 8, 16, ... 256"
    d = ins.dsts[0] if ins.dsts else None
    want = accumulator_registers(n, dtype)
    if not isinstance(d, Vec) or len(d.items) != want:
        return f"wgmma.mma_async m64n{n} .{dtype} takes {want} accumulator registers"
    a_in_registers = isinstance(ins.srcs[0], Vec)
    if a_in_registers and atype == "tf32":
        return f"wgmma.mma_async with .{atype} A in registers is not supported"
    transposes = 2 if atype in ("f16", "bf16") else 0          # only 16-bit inputs may be transposed
    if a_in_registers and transposes:
        transposes = 1
    scales = 0 if integer else 2                                # integer forms have no imm-scale-a/b
    if len(ins.srcs) != 3 + scales + transposes:
        return f"wgmma.mma_async takes {3 + scales + transposes} operands after d, got {len(ins.srcs)}"
    if not all(isinstance(op, Imm) for op in ins.srcs[3:]):
        return "wgmma.mma_async's scale and transpose arguments are immediates"
    return None


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
    dtype = ELEMENT_BITS[element_bytes]
    flat = [where.reshape(len(where), -1) for where in reads]
    lanes = np.concatenate([np.repeat(warp_slots, part.shape[1]) for warp_slots, part in zip(slots, flat)])
    where = np.concatenate([part.ravel() for part in flat])
    buf, off = access.resolve(ctx, site, lanes, "shared", where.astype(np.uint64), element_bytes, False)
    values = to_float(buf.view(dtype)[off // element_bytes], atype)
    bounds = np.cumsum([0] + [part.size for part in flat])
    return [values[lo:hi].reshape(read.shape) for lo, hi, read in zip(bounds, bounds[1:], reads)]


def _gather_chunks(ctx, site, slots, reads, atype):
    """Float64 operand values, (rows, mn, k) per read, from (chunk starts, mn_major) reads: each
    16-byte chunk is checked once and its elements gathered together."""
    element_bytes = INPUT_TYPES[atype][0]
    per_chunk = 16 // element_bytes
    dtype = ELEMENT_BITS[element_bytes]
    flat = [where.reshape(len(where), -1) for where, _ in reads]
    lanes = np.concatenate([np.repeat(warp_slots, part.shape[1]) for warp_slots, part in zip(slots, flat)])
    where = np.concatenate([part.ravel() for part in flat])
    buf, off = access.resolve(ctx, site, lanes, "shared", where.astype(np.uint64), 16, False)
    off = np.asarray(off, np.int64)
    raw = buf.view(np.uint8)
    if raw.size % 16 == 0 and not (off & 15).any():
        # aligned chunks, gathered as 16-byte items (a complex128 view: the bytes are only copied)
        chunks = raw.view(np.complex128)[off >> 4].view(dtype).reshape(len(off), per_chunk)
    else:
        chunks = buf.view(dtype)[(off // element_bytes)[:, None] + np.arange(per_chunk)]
    values = to_float(chunks, atype)
    bounds = np.cumsum([0] + [part.size for part in flat])
    return [chunk_operand(values[lo:hi], starts.shape, mn_major)
            for (starts, mn_major), lo, hi in zip(reads, bounds, bounds[1:])]


@lru_cache(maxsize=1024)
def _chunk_layout(desc: int, first_row: int, rows: int, k: int, element_bytes: int, mn_major: bool) -> np.ndarray:
    """Chunk starts (rows or rows / per chunk, k / per chunk or k) of one descriptor's rows
    first_row.. of M/N (a B's 0..N-1, an A warp's 16 of the warpgroup's 64), as chunk_starts
    places them: offsets in the CTA's shared memory, the same for every CTA and every issue of
    the descriptor (a kernel's pipeline stages reuse a few)."""
    fields = descriptor_fields(np.array([desc], np.uint64))
    starts = chunk_starts(fields, first_row + np.arange(rows)[None], np.arange(k), element_bytes, mn_major)[0]
    starts.setflags(write=False)
    return starts


def _read_chunks(ctx, reads, atype):
    """Float64 operand values, (rows, mn, k) per read, from (CTA of each row, chunk starts (rows, ...),
    mn_major) reads that all lie in shared memory (checked by the caller): one 16-byte gather."""
    element_bytes = INPUT_TYPES[atype][0]
    per_chunk = 16 // element_bytes
    shared_chunks = ctx.shared.view(np.complex128)            # 16-byte items: the bytes are only copied
    at = [(ctas[:, None] * (ctx.shared_size >> 4) + (starts.reshape(len(starts), -1) >> 4)).ravel()
          for ctas, starts, _ in reads]
    values = to_float(shared_chunks[np.concatenate(at)].view(ELEMENT_BITS[element_bytes]).reshape(-1, per_chunk),
                      atype)
    bounds = np.cumsum([0] + [part.size for part in at])
    return [chunk_operand(values[lo:hi], starts.shape, mn_major)
            for (_, starts, mn_major), lo, hi in zip(reads, bounds, bounds[1:])]


def _distinct(values):
    """np.unique(values, return_inverse=True), the inverse flat; one value for every warp (a kernel's
    usual descriptor) without sorting."""
    if (values == values[0]).all():
        return values[:1], np.zeros(len(values), np.int64)
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.ravel()


def _runs(keys):
    """(index of each distinct key's first warp, each warp's distinct key in order), as
    np.unique(keys, return_index=True, return_inverse=True) gives them; warps in slot order come
    in runs of one key (a CTA's), found without sorting."""
    if (keys[1:] < keys[:-1]).any():
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return first, inverse.ravel()
    starts = np.r_[True, keys[1:] != keys[:-1]]
    return np.flatnonzero(starts), np.cumsum(starts) - 1


def _b_pairs(ctx, slots, b_desc):
    """The (CTA, B descriptor) pairs the warps read B through, each read once: (each warp's CTA, the
    distinct descriptors, each warp's among them, each pair's first warp, each warp's pair)."""
    ctas = ctx.cta[slots].astype(np.int64)
    descs, desc_of_warp = _distinct(b_desc)
    first, per_warp = _runs(ctas * len(descs) + desc_of_warp)
    return ctas, descs, desc_of_warp, first, per_warp


def _shared_operands(ctx, site, slots, b_desc, a_desc, quarter, n, k, atype, trans_a, trans_b):
    """(B (Bs, n, k), the B of each warp, A (warps, 16, k) or None) read from shared memory through
    the descriptors.

    The warps of a warpgroup share B: it is read once per CTA and descriptor, and every operand a
    16-byte chunk at a time. Each descriptor's chunk starts are placed once (_chunk_layout) and
    hold for every CTA, so when they all lie inside the kernel's shared bytes no lane is checked
    on its own; otherwise the reads go through _checked_operands, which names the fault.
    """
    element_bytes = INPUT_TYPES[atype][0]
    ctas, descs_of_warps, desc_of_warp, first, per_warp = _b_pairs(ctx, slots, b_desc)
    b_layouts = [_chunk_layout(int(desc), 0, n, k, element_bytes, trans_b) for desc in descs_of_warps]
    layouts = list(b_layouts)
    if a_desc is not None:
        a_descs, a_desc_of_warp = _distinct(a_desc)
        a_keys, a_of_warp = _distinct(a_desc_of_warp * 4 + quarter)
        a_layouts = [_chunk_layout(int(a_descs[key >> 2]), 16 * int(key & 3), 16, k, element_bytes, trans_a)
                     for key in a_keys]
        layouts += a_layouts
    last = max(int(layout.max()) for layout in layouts) + 16
    if last > ctx.shared_used or last > cluster.CLUSTER_ADDRESS or ctx.shared.size % 16:
        return _checked_operands(ctx, site, slots, b_desc, a_desc, quarter, n, k, atype, trans_a, trans_b)
    reads = [(ctas[first], np.stack(b_layouts)[desc_of_warp[first]], trans_b)]
    if a_desc is not None:
        reads.append((ctas, np.stack(a_layouts)[a_of_warp], trans_a))
    values = _read_chunks(ctx, reads, atype)
    return values[0], per_warp, (values[1] if a_desc is not None else None)


def _checked_operands(ctx, site, slots, b_desc, a_desc, quarter, n, k, atype, trans_a, trans_b):
    """_shared_operands' reads with every lane's chunks checked as a load's are: a bad address is
    looked for again element by element, warp by warp, B before A, so the fault names the warp and
    element a warp-by-warp read meets first."""
    element_bytes = INPUT_TYPES[atype][0]
    krange, nrange = np.arange(k), np.arange(n)
    a_rows = None if a_desc is None else 16 * quarter[:, None] + np.arange(16)
    _, _, _, first, per_warp = _b_pairs(ctx, slots, b_desc)
    descs, per_pair = np.unique(b_desc[first], return_inverse=True)
    b_chunks = chunk_starts(descriptor_fields(descs), np.broadcast_to(nrange, (len(descs), n)), krange,
                             element_bytes, trans_b)
    reads, read_slots = [(b_chunks[per_pair.ravel()], trans_b)], [slots[first]]
    if a_desc is not None:
        a_fields = descriptor_fields(a_desc)
        reads.append((chunk_starts(a_fields, a_rows, krange, element_bytes, trans_a), trans_a))
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
    return values[0], per_warp, (values[1] if a_desc is not None else None)


def mma_async(ctx, site, idx, ins, a, b_desc, scale_d, d_words):
    """One warpgroup MMA for every warp at the instruction: the new accumulator words, (registers, len(idx)),
    from the old ones d_words in that layout (the registers stacked as they are, no transposes).

    The product is semantics.wgmma.warpgroup_mma's, which HGMMA calls too; f16/bf16 into f32
    adds through machine code with the rule's bits (compiled/aligned_sum.py).
    """
    (n, k), (dtype, atype, btype) = parse(ins)
    imms = [op.value for op in ins.srcs[3:]]
    scale_a, scale_b = (imms[0], imms[1]) if dtype != "s32" else (1, 1)
    a_in_registers = "words" in a
    transposable = atype in ("f16", "bf16")
    trans_a = imms[2] if transposable and not a_in_registers else 0
    trans_b = imms[-1] if transposable else 0
    firsts, row = _first_lanes(idx)
    slots = idx[firsts]
    warps = len(slots)
    lane = ctx.lane[idx].astype(np.int64)
    quarter = ctx.warp_in_cta[slots].astype(np.int64) % 4        # which 16 rows of A a warp holds
    B, b_of_warp, A = _shared_operands(ctx, site, slots, np.asarray(b_desc[firsts], np.uint64),
                            None if a_in_registers else np.asarray(a["desc"][firsts], np.uint64), quarter,
                            n, k, atype, bool(trans_a), bool(trans_b))
    A = register_a(a["words"], row, lane, warps, k, atype) if a_in_registers else A
    if btype != atype:                           # .s8 with .u8: B's bytes were read as A's type
        B = np.where(B < 0, B + 256, B) if btype == "u8" else np.where(B >= 128, B - 256, B)
    from ..compiled.aligned_sum import compiled_accumulate      # Numba: loaded with the first wgmma
    return warpgroup_mma(A, B, scale_a, scale_b, row, lane, n, dtype, scale_d, d_words, b_of_warp, atype,
                         accumulate_aligned=compiled_accumulate, registers_first=True,
                         satfinite="satfinite" in ins.mods)


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
    block = c.register_block([r.name for r in d.items])     # (registers, threads): each register a row
    if block is not None:
        accumulators = f"{block}[:, rows]"
    else:
        accumulators = "np.stack([" + ", ".join(f"fit({c.typed(r, 'b32')}, n)" for r in d.items) + "])"
    c.emit(f"{res} = wgmma.mma_async(ctx, {c.site(ins)}, idx, {c.const(ins, 'wgmma_mma_async')}, "
           f"{a_expr}, fit({c.typed(b, 'b64')}, n), {scale_d}, {accumulators})")
    if block is not None:
        c.store_register_block([r.name for r in d.items], res)
    else:
        for k, register in enumerate(d.items):
            c.write(register, "b32", f"{res}[{k}]")
    return False
