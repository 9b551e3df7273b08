"""Warpgroup MMA (sm_90): wgmma.mma_async with shared-memory matrix descriptors, and its fences.

`wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b-desc, scale-d, ...`
multiplies a 64xK tile of A by a KxN tile of B for a warpgroup (4 consecutive
warps, 128 threads). Warp w of the warpgroup (warp_in_cta % 4) holds rows
16w..16w+15 of D and, when A is in registers, the same rows of A, so each
warp's part depends only on its own registers and on shared memory: warpsim
computes it warp by warp, at the instruction. The operation is asynchronous on
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

import numpy as np

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


def operand_addresses(fields: dict, warp: int, mn: np.ndarray, k: np.ndarray, element_bytes: int,
                      mn_major: bool) -> np.ndarray:
    """Shared byte addresses of elements (mn[i], k[j]) of one warp's descriptor: (len(mn), len(k)).

    K-major (imm-trans 0): rows of the M/N dimension are 16-byte core-matrix
    rows 16 * width bytes apart (width = 1, 2, 4, 8 chunks for no swizzle,
    32, 64, 128 bytes), 8-row groups SBO apart; K runs along the row in
    16-byte chunks (LBO apart without a swizzle). M/N-major (imm-trans 1): M/N
    runs along the row, width chunks then LBO (SBO without a swizzle) to the
    next; K rows are 16 * width bytes apart, groups of 8 SBO (LBO) apart.
    """
    mode = int(fields["swizzle"][warp])
    start, lbo, sbo = (int(fields[name][warp]) for name in ("start", "leading", "stride"))
    width = 1 << SWIZZLE_BITS[mode]                      # 16-byte chunks in a swizzle row
    per_chunk = 16 // element_bytes
    mn, k = mn[:, None].astype(np.int64), k[None, :].astype(np.int64)
    if not mn_major:
        chunk, within = np.divmod(k, per_chunk)
        along_k = chunk * (lbo if mode == 0 else 16) + within * element_bytes
        offset = (mn % 8) * 16 * width + (mn // 8) * sbo + along_k
    else:
        chunk, within = np.divmod(mn, per_chunk)
        if mode == 0:
            along_mn, group = chunk * sbo, lbo
        else:
            along_mn, group = (chunk % width) * 16 + (chunk // width) * lbo, sbo
        offset = along_mn + within * element_bytes + (k % 8) * 16 * width + (k // 8) * group
    return swizzle(start + offset, mode)


# ------------------------------------------------------------ runtime

def _first_lanes(idx):
    """(positions in idx of each warp's first thread, warp row of each thread of idx)."""
    warps = idx >> 5
    first = np.r_[True, warps[1:] != warps[:-1]]
    return np.flatnonzero(first), np.cumsum(first) - 1


def _read_operand(ctx, site, slot, desc_fields, warp, mn, k, atype, mn_major):
    """(len(mn), len(k)) float64 values of a shared-memory operand of the warp at `slot`."""
    element_bytes = INPUT_TYPES[atype][0]
    where = operand_addresses(desc_fields, warp, mn, k, element_bytes, mn_major)
    dtype = np.uint16 if element_bytes == 2 else np.uint32
    buf, off = access.resolve(ctx, site, np.full(where.size, slot), "shared",
                              where.ravel().astype(np.uint64), element_bytes, False)
    return to_float(buf.view(dtype)[off // element_bytes], atype).reshape(where.shape)


def to_float(bits: np.ndarray, atype: str) -> np.ndarray:
    """Element bits as float64: f16, bf16, or tf32 (the tensor cores read 10 mantissa bits)."""
    if atype == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if atype == "bf16":
        return _bf16_to_f32(bits.astype(np.uint16)).astype(np.float64)
    return (bits.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)


def accumulator_positions(lane: np.ndarray, n: int):
    """(rows within the warp's 16, cols) of accumulator element i of each lane: (lanes, n/2)."""
    group, pair = (lane >> 2)[:, None], (lane & 3)[:, None]
    i = np.arange(n // 2)
    return group + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * pair + (i & 1)


def mma_async(ctx, site, idx, ins, a, b_desc, scale_d, d_words):
    """One warpgroup MMA, warp by warp: the new accumulator words, (len(idx), registers)."""
    (n, k), (dtype, atype, _) = parse(ins)
    imms = [op.value for op in ins.srcs[3:]]
    scale_a, scale_b = imms[0], imms[1]
    a_in_registers = "words" in a
    trans_a = 0 if a_in_registers or atype == "tf32" else imms[2]
    trans_b = 0 if atype == "tf32" else imms[-1]
    firsts, row = _first_lanes(idx)
    slots = idx[firsts]
    lane = ctx.lane[idx].astype(np.int64)
    b_fields = descriptor_fields(b_desc[firsts])        # descriptors are warpgroup-uniform
    if not a_in_registers:
        a_fields = descriptor_fields(a["desc"][firsts])
    krange, nrange = np.arange(k), np.arange(n)
    products = np.zeros((len(slots), 16, n))
    for w, slot in enumerate(slots):
        quarter = int(ctx.warp_in_cta[slot]) % 4
        B = _read_operand(ctx, site, slot, b_fields, w, nrange, krange, atype, bool(trans_b)).T
        if a_in_registers:
            mine = row == w
            values = to_float(np.ascontiguousarray(a["words"][mine].astype(np.uint32)).view(np.uint16),
                              atype)
            r, c = _fragment_positions("a", "m16n8k16", lane[mine])
            A = np.zeros((16, k))
            A[r, c] = values
        else:
            A = _read_operand(ctx, site, slot, a_fields, w, 16 * quarter + np.arange(16), krange, atype,
                              bool(trans_a))
        products[w] = (scale_a * A) @ (scale_b * B)
    r, c = accumulator_positions(lane, n)
    result = products[row[:, None], r, c]
    if dtype == "f32":
        old = np.ascontiguousarray(d_words.astype(np.uint32)).view(np.float32).astype(np.float64)
        result = result + np.where(np.asarray(scale_d)[:, None], old, 0.0)
        return result.astype(np.float32).view(np.uint32)
    old = np.ascontiguousarray(d_words.astype(np.uint32)).view(np.float16).astype(np.float64)
    result = result + np.where(np.asarray(scale_d)[:, None], old, 0.0)
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
