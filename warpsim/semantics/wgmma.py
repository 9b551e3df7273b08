"""Warpgroup MMA (sm_90): what wgmma.mma_async and HGMMA compute, for both executors.

A warpgroup (4 consecutive warps) multiplies a 64xK tile of A by a KxN tile of
B; warp w of the warpgroup (warp_in_cta % 4) holds rows 16w..16w+15 of D and,
when A is in registers, the same rows of A. So each warp's part depends only
on its own registers and on shared memory, and an executor may compute any
set of warps at once. Each executor reads its own instruction (PTX's
`wgmma.mma_async` operands, SASS's `HGMMA` modifiers and `gdesc[URx]`) and its
own shared memory; what the operands mean and what the product is lives here.

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

Products add as the H200's tensor cores add them (semantics.tensor_sum, measured
bit for bit there for every input type into f32, and f16 and fp8 into f16):
each instruction's K products and the old accumulator are aligned to the largest
exponent and cut there (25 bits below it, 13 for fp8), so sums drift low as they
grow.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import tensor_sum
from .floatbits import decode
from .tensor_sum import accumulates_here, exponents  # noqa: F401 (exponents: the compiled tier's)

# Input type -> (bytes per element, K of one instruction). A row of K elements is 32 bytes.
INPUT_TYPES = {"f16": (2, 16), "bf16": (2, 16), "tf32": (4, 8), "e4m3": (1, 32), "e5m2": (1, 32), "s8": (1, 32),
               "u8": (1, 32)}
FP8_INPUTS = ("e4m3", "e5m2")          # K-major operands only (no transpose); A from shared memory or registers
INTEGER_INPUTS = ("s8", "u8")          # into an .s32 accumulator, A and B signed or not each; K-major only
ACCUMULATORS = ("f32", "f16", "s32")
SWIZZLE_BITS = {0: 0, 1: 3, 2: 2, 3: 1}      # descriptor mode -> row bits XORed into the chunk bits
SWIZZLE_NAMES = {0: "none", 1: "128B", 2: "64B", 3: "32B"}
SWIZZLE_ROW_BITS = np.array([SWIZZLE_BITS[mode] for mode in range(4)])   # the same, indexed by mode


def accumulator_registers(n: int, dtype: str) -> int:
    """Registers a thread holds of an m64nN accumulator: two f16 a register, one f32 or s32."""
    return n // 4 if dtype == "f16" else n // 2


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


def chunk_starts(fields: dict, mn: np.ndarray, k: np.ndarray, element_bytes: int, mn_major: bool) -> np.ndarray:
    """Addresses of the 16-byte chunks holding elements (mn, k): every chunk's elements run along
    K (K-major) or M/N (M/N-major) from its start, and a swizzle moves whole chunks."""
    per_chunk = 16 // element_bytes
    if mn_major:
        return operand_addresses(fields, mn[:, ::per_chunk], k, element_bytes, True)
    return operand_addresses(fields, mn, k[::per_chunk], element_bytes, False)


def chunk_operand(values: np.ndarray, shape: tuple, mn_major: bool) -> np.ndarray:
    """(rows, mn, k) float operand from the values of the chunks chunk_starts placed.

    `values` is (chunks, elements per chunk) in the order of chunk starts of
    `shape` (rows, mn or mn / per chunk, k or k / per chunk)."""
    rows, mn, k = shape
    per_chunk = values.shape[-1]
    chunk = values.reshape(rows, mn, k, per_chunk)
    if mn_major:
        return chunk.transpose(0, 1, 3, 2).reshape(rows, mn * per_chunk, k)
    return chunk.reshape(rows, mn, k * per_chunk)


def to_float(bits: np.ndarray, atype: str) -> np.ndarray:
    """Element bits as float64: f16, bf16 (the high half of an f32), tf32 (10 mantissa bits read),
    the fp8 formats e4m3 and e5m2, or 8-bit integers (all exact in float64)."""
    if atype in FP8_INPUTS:
        return decode(bits, atype)
    if atype in INTEGER_INPUTS:
        return np.asarray(bits, np.uint8).view(np.int8 if atype == "s8" else np.uint8).astype(np.float64)
    if atype == "f16":
        return np.asarray(bits, np.uint16).view(np.float16).astype(np.float64)
    if atype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
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


def lane_view(products: np.ndarray, paired: bool = False) -> np.ndarray:
    """Whole warps' (warps, 16, n) products as a view in accumulator order, (warps, 8, 4, n/8, 2, 2):
    row group + 8 h and column 8 j + 2 pair + e go to lane 4 group + pair, element 4 j + 2 h + e
    (accumulator_offsets' placement); reshaped to (warps * 32, n/2), lanes by registers. `paired`:
    the products' element pairs (e) viewed as one complex number each, (warps, 8, 4, n/8, 2)."""
    if paired:                                 # products viewed as (warps, 16, n/2) complex pairs
        warps, _, half = products.shape
        return products.reshape(warps, 2, 8, half // 4, 4).transpose(0, 2, 4, 3, 1)
    warps, _, n = products.shape
    return products.reshape(warps, 2, 8, n // 8, 4, 2).transpose(0, 2, 4, 3, 1, 5)


@lru_cache(maxsize=None)
def register_a_offsets(per_register: int = 2) -> np.ndarray:
    """(32, 4 * per_register): where each lane's A elements in registers sit in its warp's 16 x K rows
    (row * K + col), K = 8 * per_register, for `per_register` elements in each of the 4 registers.

    16-bit inputs (2 a register, K = 16) are mma.sync's m16n8k16 A fragment: element i at row
    group + 8 (i/2 % 2), column 2 (lane % 4) + i % 2 + 8 (i >= 4). 8-bit inputs (fp8: 4 a register,
    K = 32, the PTX manual's wgmma m64nNk32 A fragment) are m16n8k32's: row group + 8 (i/4 % 2),
    column 4 (lane % 4) + i % 4 + 16 (i >= 8). Both: each register holds one row's consecutive
    elements, the registers alternate rows g and g + 8, and the second pair moves half-way along K.
    """
    lane = np.arange(32)
    group, pair = (lane >> 2)[:, None], (lane & 3)[:, None]
    i = np.arange(4 * per_register)
    rows = group + 8 * ((i // per_register) % 2)
    cols = per_register * pair + i % per_register + 4 * per_register * (i >= 2 * per_register)
    offsets = rows * 8 * per_register + cols
    offsets.setflags(write=False)
    return offsets


def register_a(words: np.ndarray, row: np.ndarray, lane: np.ndarray, warps: int, k: int, atype: str) -> np.ndarray:
    """(warps, 16, k) A from the lanes' registers: words (lanes, 4), each of two 16-bit elements (f16,
    bf16) or four 8-bit ones (e4m3, e5m2), low first; the lane of each thread and the row (warp) of the
    result it belongs to."""
    element_bytes = INPUT_TYPES[atype][0]
    if element_bytes not in (1, 2):
        raise ValueError(f"wgmma A in registers takes 8- or 16-bit inputs, not .{atype}")
    elements = np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8 if element_bytes == 1 else np.uint16)
    per_register = 4 // element_bytes
    if len(lane) == 32 * warps and (lane.reshape(warps, 32) == np.arange(32)).all() \
            and (row.reshape(warps, 32) == np.arange(warps)[:, None]).all():
        # whole warps in order: lane 4 group + pair's element 4 p kh + p h + e (p per register) is
        # row 8 h + group, column 4 p kh + p pair + e; a transpose instead of a scatter
        placed = elements.reshape(warps, 8, 4, 2, 2, per_register).transpose(0, 4, 1, 3, 2, 5)
        return to_float(placed, atype).reshape(warps, 16, k)
    A = np.zeros((warps, 16 * k))
    A[row[:, None], register_a_offsets(4 // element_bytes)[lane & 31]] = to_float(elements, atype)
    return A.reshape(warps, 16, k)


# Largest K whose products BLAS sums in K order for any number of rows, so that warps sharing a
# B may be multiplied as one taller matrix with the same bits (the per-warp products' order):
# checked on fp16 inputs of every exponent; at K = 32 (fp8) the order depends on the rows.
GROUPED_K = 16


def warp_products(A: np.ndarray, B: np.ndarray, b_of_warp: np.ndarray) -> np.ndarray:
    """(warps, 16, N) float64: each warp's A (16 x K) times its B, B[b_of_warp[w]] (N x K, used transposed).

    Warps sharing a B (a warpgroup's 4 warps, all of a CTA reading one descriptor) are
    stacked into one (16 g x K) @ (K x N) product per B when every B has the same number
    g of warps and K <= GROUPED_K: one BLAS call per CTA instead of per warp, with the
    per-warp bits (see GROUPED_K). Otherwise each warp's product is its own, as np.matmul
    stacks them.
    """
    warps, _, k = A.shape
    groups, n = B.shape[0], B.shape[1]
    counts = np.bincount(b_of_warp, minlength=groups)
    if k > GROUPED_K or groups == warps or not (counts == counts[0]).all():
        return np.matmul(A, B[b_of_warp].transpose(0, 2, 1))
    Bt = np.ascontiguousarray(B.transpose(0, 2, 1))           # (groups, k, n)
    in_order = bool((b_of_warp[1:] >= b_of_warp[:-1]).all())
    order = None if in_order else np.argsort(b_of_warp, kind="stable")
    stacked = (A if in_order else A[order]).reshape(groups, 16 * counts[0], k)
    products = np.matmul(stacked, Bt).reshape(warps, 16, n)
    if in_order:
        return products
    placed = np.empty_like(products)
    placed[order] = products
    return placed


def warpgroup_mma(A: np.ndarray, B: np.ndarray, scale_a: int, scale_b: int, row: np.ndarray, lane: np.ndarray,
                  n: int, dtype: str, accumulate: np.ndarray, d_words: np.ndarray,
                  b_of_warp: np.ndarray | None = None, atype: str | None = None,
                  accumulate_aligned=None, registers_first: bool = False, satfinite: bool = False) -> np.ndarray:
    """The new accumulator words of each thread, (threads, registers), or (registers, threads) where
    `registers_first` (d_words too: an executor's register file as it is, each register's threads in
    a row; accumulate_aligned then takes that layout, the other forms a transposed copy).

    A is (warps, 16, K), B (warps, N, K) as read (each warp's B is used
    transposed), or (Bs, N, K) with b_of_warp naming each warp's; row gives
    each thread's warp, lane its lane; accumulate (per thread, bool) adds the
    old accumulators d_words (scale-d). Each warp's product is its own
    (16 x K) @ (K x N) matrix product, computed by warp_products with the bits
    of that pair alone, so the bits do not depend on how many warps issue together.
    atype names the inputs: they add as `aligned_sum` does where tensor_sum.accumulates_here,
    f16 and bf16 into f32 through `accumulate_aligned` where an executor passes one (a
    faster aligned_accumulate with the same bits, machine/compiled/aligned_sum.py). Integer inputs
    into .s32 are exact, the sum wrapping around 32 bits, or clamped to them where `satfinite`.
    """
    warps = A.shape[0]
    fast = accumulate_aligned is not None and dtype == "f32" and atype in ALIGNED_INPUTS
    if registers_first and not fast:
        return warpgroup_mma(A, B, scale_a, scale_b, row, lane, n, dtype, accumulate, np.asarray(d_words).T,
                             b_of_warp, atype, satfinite=satfinite).T
    if b_of_warp is None:
        b_of_warp = np.arange(warps)
    if dtype == "s32":                         # products of 8-bit integers: exact in float64 at any K here
        products = warp_products(A, B, np.asarray(b_of_warp, np.int64))
        total = products.reshape(warps, 16 * n)[row[:, None], accumulator_offsets(n)[lane & 31]].astype(np.int64)
        old = np.ascontiguousarray(d_words, dtype=np.uint32).view(np.int32)
        total += np.where(np.asarray(accumulate, dtype=bool)[:, None], old, 0)
        if satfinite:
            total = np.clip(total, -(1 << 31), (1 << 31) - 1)
        return (total & 0xFFFFFFFF).astype(np.uint32)
    A = A if scale_a == 1 else scale_a * A
    B = B if scale_b == 1 else scale_b * B
    accumulate = np.asarray(accumulate, dtype=bool)
    kind = np.float32 if dtype == "f32" else np.float16
    old = np.ascontiguousarray(d_words, dtype=np.uint32).view(kind)
    if accumulate.all():
        addend = old
    elif accumulate.any():
        addend = np.where(accumulate[None, :] if registers_first else accumulate[:, None], old, kind(0.0))
    else:
        addend = np.zeros_like(old)            # scale-d's zero is still added: -0.0 products become +0.0
    if accumulates_here(atype, dtype):
        b_of_warp = np.asarray(b_of_warp, np.int64)
        if fast:
            return accumulate_aligned(A, B, b_of_warp, row, lane, n, addend, atype, registers_first)
        return aligned_accumulate(A, B, b_of_warp, row, lane, n, addend, atype, dtype)
    products = warp_products(A, B, np.asarray(b_of_warp, np.int64))
    words = np.empty(old.shape, kind)
    if len(lane) == 32 * warps and (lane.reshape(warps, 32) == np.arange(32)).all():
        # whole warps: the products read in lane order through a strided view, added and
        # rounded to the accumulator type in one pass (float64 sum, one rounding)
        if kind is np.float32:                 # each lane's element pairs (e) as one complex number:
            pairs = lane_view(products.view(np.complex128), paired=True)     # half the strided steps,
            np.add(pairs, addend.view(np.complex64).reshape(pairs.shape),  # the same real additions
                   out=words.view(np.complex64).reshape(pairs.shape))
        else:
            placed = lane_view(products)
            np.add(placed, addend.reshape(placed.shape), out=words.reshape(placed.shape), dtype=np.float64)
    else:
        np.add(products.reshape(warps, 16 * n)[row[:, None], accumulator_offsets(n)[lane & 31]], addend,
               out=words, dtype=np.float64)
    return words.view(np.uint32)


# f16 and bf16 products into f32, the forms an executor may sum with its own (compiled) copy of the
# rule; the rule and its parameters live in semantics.tensor_sum.
ALIGNED_INPUTS = ("f16", "bf16")
ALIGN_BITS = tensor_sum.ALIGN_BITS["f16"]


def aligned_accumulate(A: np.ndarray, B: np.ndarray, b_of_warp: np.ndarray, row: np.ndarray, lane: np.ndarray,
                       n: int, addend: np.ndarray, atype: str, dtype: str = "f32") -> np.ndarray:
    """The threads' new accumulator words, (threads, registers) uint32: `aligned_sum` of their old
    ones (addend, of `dtype`, in accumulator_offsets' order) and each warp's A times its B."""
    warps = A.shape[0]
    offsets = accumulator_offsets(n)[lane & 31]
    C = np.zeros((warps, 16 * n))
    C[row[:, None], offsets] = addend
    D = aligned_sum(A, B, np.asarray(b_of_warp, np.int64), C.reshape(warps, 16, n), atype, dtype)
    return np.ascontiguousarray(D.reshape(warps, 16 * n)[row[:, None], offsets]).view(np.uint32)


def aligned_sum(A: np.ndarray, B: np.ndarray, b_of_warp: np.ndarray, C: np.ndarray, atype: str,
                dtype: str = "f32") -> np.ndarray:
    """(warps, 16, N) float32 (float16 for an f16 accumulator): C + each warp's A (16 x K) times its
    B[b_of_warp[w]] (N x K, used transposed), added as the H200's tensor cores add `atype` inputs
    (semantics.tensor_sum.aligned_sum: aligned to the largest exponent, cut, summed exactly; on the
    H200, C = A @ B of uniform [0, 1) f16 inputs at K = 1024 comes out about 70 f32 ulps low)."""
    return tensor_sum.aligned_sum(A, B[b_of_warp], C, atype, dtype)
