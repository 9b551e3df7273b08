"""Tensor cores: wmma fragments (CUDA's nvcuda::wmma), mma.sync and ldmatrix.

The table entries, emitters and runtime of the warp-wide matrix instructions:
each is .sync.aligned, so the whole warp meets at it, and works on fragments
spread over the lanes' registers. A wmma fragment's layout across lanes is opaque in PTX: only wmma.load, wmma.mma
and wmma.store interpret it, and element-wise code (`frag.x[i] *= 2`) works
whatever it is. warpsim gives lane l the elements l*E .. l*E+E-1 of the
fragment's matrix in row-major order (E = elements per lane); when PTX gives a
lane more register slots than elements (f16 A/B fragments), the extra slots
repeat the same elements. Integer products are summed exactly (int64); float
products add as the H200's tensor cores add them (semantics.tensor_sum: each
instruction's K products and the accumulator aligned to the largest exponent
and cut there), so results equal the GPU's bit for bit.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Vec
from ...semantics.floatbits import F64, decode, fma_rounded
from ...semantics.tensor_sum import accumulates_here, chained_sum, fp8_mma_sync
from .. import access
from .table import WARP, emitted, whole_warp

SHAPES = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16),
          "m16n16k8": (16, 16, 8), "m8n8k4": (8, 8, 4)}
ELEMENT_TYPES = ("f16", "bf16", "tf32", "f32", "s32", "s8", "u8", "f64")


def fragment_shape(matrix: str, shape: tuple) -> tuple:
    """(rows, cols) of the logical matrix a fragment holds."""
    m, n, k = shape
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[matrix]


def parse(ins):
    """(kind, matrix, layouts, shape, space, types) from the modifiers of a wmma instruction."""
    mods = ins.mods
    kind = mods[0]                                   # load, store, mma
    matrix = mods[1] if kind in ("load", "store") else "d"
    shape = next((SHAPES[m] for m in mods if m in SHAPES), None)
    layouts = [m for m in mods if m in ("row", "col")]
    space = next((m.split("::")[0] for m in mods if m.split("::")[0] in ("global", "shared")), "generic")
    types = [m for m in mods if m in ELEMENT_TYPES]
    return kind, matrix, layouts, shape, space, types


def check_wmma(ins) -> str | None:
    if not ins.mods or ins.mods[0] not in ("load", "store", "mma"):
        return "wmma.load, wmma.store and wmma.mma are supported"
    kind, matrix, layouts, shape, space, types = parse(ins)
    if shape is None:
        return "wmma shape not supported (m16n16k16, m32n8k16, m8n32k16, m16n16k8, m8n8k4 are)"
    if not types:
        return "wmma element type not supported (f16, bf16, tf32, s8, u8, f32, s32, f64 are)"
    if kind == "mma" and {"b1", "s4", "u4"} & set(ins.mods):
        return "sub-byte and single-bit wmma.mma are not supported"
    if (shape == SHAPES["m8n8k4"]) != ("f64" in types):
        return "wmma m8n8k4 takes f64, and f64 takes m8n8k4"
    return None


def _bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def lane_elements(ctx, idx, rows: int, cols: int):
    """Per lane of idx: the fragment element indices it holds, shape (len(idx), E)."""
    per_lane = rows * cols // 32
    lane = ctx.lane[idx].astype(np.int64)
    return lane[:, None] * per_lane + np.arange(per_lane), per_lane


def to_slots(values, slots: int):
    """Repeat a lane's E element values across its register slots."""
    per_lane = values.shape[1]
    return values[:, np.arange(slots) % per_lane]


def gather_matrix(ctx, idx, slot_values, rows: int, cols: int) -> np.ndarray:
    """(warps, rows, cols) matrices from each warp's lanes' first E slots."""
    per_lane = rows * cols // 32
    warps = idx >> 5
    first = np.r_[True, warps[1:] != warps[:-1]]
    row_of_lane = np.cumsum(first) - 1
    out = np.zeros((int(first.sum()), rows * cols), dtype=slot_values.dtype)
    positions = ctx.lane[idx].astype(np.int64)[:, None] * per_lane + np.arange(per_lane)
    out[row_of_lane[:, None], positions] = slot_values[:, :per_lane]
    return out.reshape(-1, rows, cols), row_of_lane


def mma(ctx, idx, a, b, c, shape, dtype_name: str, atype: str, satfinite: bool):
    """D = A x B + C per warp, on slot values (float or int): integers exact, floats summed as the
    tensor cores sum one instruction's products (every wmma shape's K is one HMMA's)."""
    m, n, k = shape
    A, row = gather_matrix(ctx, idx, a, m, k)
    B, _ = gather_matrix(ctx, idx, b, k, n)
    C, _ = gather_matrix(ctx, idx, c, m, n)
    if atype in ("s8", "u8"):
        D = np.einsum("wik,wkj->wij", A.astype(np.int64), B.astype(np.int64)) + C.astype(np.int64)
        D = np.clip(D, -2**31, 2**31 - 1) if satfinite else D
        D = D.astype(np.int64).astype(np.int32)
    elif atype == "f64":
        D = double_product(A, B, C)
    else:
        D = tensor_core_product(A, B, C, atype, dtype_name, WMMA_STEPS.get(atype, k))
    elements, _ = lane_elements(ctx, idx, m, n)
    return D.reshape(len(D), -1)[row[:, None], elements]


def double_product(A, B, C) -> np.ndarray:
    """(warps, m, n) float64: C + A @ B per warp, each product added to the accumulator in k's order
    with one rounding (an fma a step: DMMA is IEEE double arithmetic)."""
    D = np.asarray(C, np.float64).copy()
    for k in range(A.shape[2]):
        D = fma_rounded(np.broadcast_to(A[:, :, k:k + 1], D.shape), np.broadcast_to(B[:, k:k + 1, :], D.shape),
                        D, F64, "rn")
    return D


# Products per tensor-core instruction where a wmma shape is more than one: ptxas runs
# wmma.m16n16k8 .tf32 as two HMMA.1684 (k 0-3, then 4-7), measured on the H200.
WMMA_STEPS = {"tf32": 4}


def tensor_core_product(A, B, C, atype: str, dtype: str, step: int = 64) -> np.ndarray:
    """(warps, m, n) float32 or float16: C + A @ B per warp (A (warps, m, k), B (warps, k, n)), added as
    semantics.tensor_sum says the H200 adds these inputs into this accumulator, `step` products an
    instruction, else exactly and rounded once."""
    A, B, C = (np.asarray(x, np.float64) for x in (A, B, C))
    if accumulates_here(atype, dtype):
        return chained_sum(A, B.transpose(0, 2, 1), C, atype, dtype, step)
    D = np.einsum("wik,wkj->wij", A, B) + C
    return D.astype(np.float32).astype(np.float16 if dtype == "f16" else np.float32)


# ---------------------------------------------------------------- register packing

MEMORY_DTYPES = {"f16": np.float16, "bf16": np.uint16, "f32": np.float32, "tf32": np.float32,
                 "s32": np.int32, "s8": np.int8, "u8": np.uint8, "f64": np.float64}


def pack(values: np.ndarray, nregs: int) -> np.ndarray:
    """(n, E) element values -> (n, nregs) 32-bit register words, slots repeating elements (f64:
    64-bit words, one element a register)."""
    if values.dtype == np.float64:
        return np.ascontiguousarray(to_slots(values, nregs)).view(np.uint64)
    per_reg = 4 // values.dtype.itemsize
    slots = np.ascontiguousarray(to_slots(values, nregs * per_reg))
    return slots.view(np.uint32).reshape(len(values), nregs)


def unpack(words: np.ndarray, etype: str) -> np.ndarray:
    """(n, nregs) register words -> (n, slots) element values for arithmetic."""
    if etype in MMA_FP8:                    # four a register, low byte first
        return decode(np.ascontiguousarray(words.astype(np.uint32)).view(np.uint8), etype)
    if etype == "f64":                      # one a 64-bit register
        return np.ascontiguousarray(words.astype(np.uint64)).view(np.float64)
    values = np.ascontiguousarray(words.astype(np.uint32)).view(MEMORY_DTYPES[etype])
    if etype == "bf16":
        return _bf16_to_f32(values)
    if etype == "tf32":                     # tensor cores read 10 mantissa bits
        return (values.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
    return values


def _element_addresses(ctx, idx, addrs, stride, rows, cols, layout, etype):
    """Per lane of idx, the addresses of its fragment elements: ((n, E) uint64, dtype)."""
    elements, _ = lane_elements(ctx, idx, rows, cols)
    i, j = np.divmod(elements, cols)
    stride = np.asarray(stride, dtype=np.int64)[:, None]
    offsets = i * stride + j if layout == "row" else j * stride + i
    dtype = np.dtype(MEMORY_DTYPES[etype])
    return addrs.astype(np.uint64)[:, None] + (offsets * dtype.itemsize).astype(np.uint64), dtype


def load_fragment(ctx, site, idx, space, addrs, stride, rows, cols, layout, etype, nregs):
    where, dtype = _element_addresses(ctx, idx, addrs, stride, rows, cols, layout, etype)
    per_lane = where.shape[1]
    values = access.load(ctx, site, np.repeat(idx, per_lane), space, where.ravel(), dtype)[0]
    return pack(values.reshape(len(idx), per_lane), nregs)


def store_fragment(ctx, site, idx, space, addrs, stride, rows, cols, layout, etype, words):
    where, dtype = _element_addresses(ctx, idx, addrs, stride, rows, cols, layout, etype)
    per_lane = where.shape[1]
    raw = words.astype(np.uint64) if etype == "f64" else words.astype(np.uint32)
    values = np.ascontiguousarray(raw).view(dtype)[:, :per_lane]
    access.store(ctx, site, np.repeat(idx, per_lane), space, where.ravel(), dtype, [values.ravel()])


def mma_fragments(ctx, idx, shape, types, satfinite, a_words, b_words, c_words, d_regs):
    """wmma.mma on register words; returns D's register words."""
    if len(types) == 2:
        dtype, atype, ctype = types[0], "f16", types[1]
    else:
        dtype, atype, _, ctype = types
    a, b, c = unpack(a_words, atype), unpack(b_words, atype), unpack(c_words, ctype)
    d = mma(ctx, idx, a, b, c, shape, dtype, atype, satfinite)
    return pack(d, d_regs)


# ---------------------------------------------------------------- mma.sync and ldmatrix
# Unlike wmma, these have layouts fixed by the PTX manual: element i of a lane's
# fragment sits at (row, col) given by the lane's group (lane >> 2) and its
# thread-in-group (lane % 4).

def _fragment_positions(matrix: str, shape: str, lane: np.ndarray, eight_bit: bool = False):
    """(rows, cols) arrays of shape (lanes, elements) for mma.m16n8k{8,16} fragments of 16-bit inputs
    and the m16n8k16 (`eight_bit`) and m16n8k32 fragments of 8-bit ones (4 a register)."""
    group, tig = (lane >> 2)[:, None], (lane & 3)[:, None]
    if matrix == "c":
        i = np.arange(4)
        return group + 8 * (i >= 2), tig * 2 + (i & 1)
    if shape == "m16n8k16" and eight_bit:        # 8-bit inputs at k 16: m16n8k32's first half along K
        if matrix == "a":
            i = np.arange(8)
            return group + 8 * (i >= 4), tig * 4 + (i & 3)
        i = np.arange(4)
        return tig * 4 + i, np.broadcast_to(group, (len(lane), 4))
    if shape == "m16n8k32":
        if matrix == "a":
            i = np.arange(16)
            return group + 8 * ((i // 4) % 2), tig * 4 + (i & 3) + 16 * (i >= 8)
        i = np.arange(8)
        return tig * 4 + (i & 3) + 16 * (i >= 4), np.broadcast_to(group, (len(lane), 8))
    if matrix == "a":
        count = 8 if shape == "m16n8k16" else 4
        i = np.arange(count)
        return group + 8 * ((i // 2) % 2), tig * 2 + (i & 1) + 8 * (i >= 4)
    count = 4 if shape == "m16n8k16" else 2                      # b
    i = np.arange(count)
    return tig * 2 + (i & 1) + 8 * (i >= 2), np.broadcast_to(group, (len(lane), count))


def _tf32_positions(matrix: str, lane: np.ndarray, k: int = 8):
    """(rows, cols) of mma.m16n8k8 (k = 8) and m16n8k4 (k = 4) .tf32 A and B fragments: one 32-bit
    element per register; m16n8k4's are m16n8k8's first half."""
    group, tig = (lane >> 2)[:, None], (lane & 3)[:, None]
    if matrix == "a":
        i = np.arange(k // 2)
        return group + 8 * (i & 1), tig + 4 * (i >= 2)
    i = np.arange(k // 4)
    return tig + 4 * i, np.broadcast_to(group, (len(lane), k // 4))


MMA_SHAPES = {"m16n8k16": (16, 8, 16), "m16n8k8": (16, 8, 8), "m16n8k32": (16, 8, 32), "m16n8k4": (16, 8, 4),
              "m8n8k4": (8, 8, 4)}
MMA_TYPES = ("f16", "bf16", "tf32", "f32", "e4m3", "e5m2", "s8", "u8", "s32", "f64")
MMA_FP8 = ("e4m3", "e5m2")
MMA_INTEGER = ("s8", "u8")


def check_mma(ins) -> str | None:
    shape = next((m for m in ins.mods if m in MMA_SHAPES), None)
    types = [m for m in ins.mods if m in MMA_TYPES]
    if shape is None or len(types) != 4 or not {"row", "col"} <= set(ins.mods):
        return ("mma.sync is supported for m16n8k16 and m16n8k8 .row.col with f16/bf16 inputs, "
                "m16n8k8 and m16n8k4 with tf32 inputs, m16n8k32 with e4m3/e5m2 inputs and m16n8k16 and "
                "m16n8k32 with s8/u8 inputs, m8n8k4 with f64")
    if shape == "m8n8k4" or "f64" in types:
        return None if shape == "m8n8k4" and types == ["f64"] * 4 else \
            "mma.sync m8n8k4 takes f64 (all four types), and f64 takes m8n8k4"
    integer = [t in MMA_INTEGER for t in types[1:3]]
    if any(integer):
        if not (all(integer) and types[0] == types[3] == "s32" and shape in ("m16n8k16", "m16n8k32")):
            return "mma.sync with s8/u8 inputs is supported for m16n8k16 and m16n8k32 with an s32 accumulator"
        return None
    if "s32" in types:
        return "mma.sync with an s32 accumulator takes s8/u8 inputs"
    if types[1] == "tf32" and shape not in ("m16n8k8", "m16n8k4"):
        return "mma.sync with tf32 inputs is supported for m16n8k8 and m16n8k4"
    if shape == "m16n8k4" and types[1] != "tf32":
        return "mma.sync m16n8k4 is supported for tf32 inputs"
    fp8 = [t in MMA_FP8 for t in types[1:3]]
    if any(fp8) and not (all(fp8) and shape == "m16n8k32" and types[0] == types[3] == "f32"):
        return "mma.sync with e4m3/e5m2 inputs is supported for m16n8k32 with an f32 accumulator"
    if shape == "m16n8k32" and not any(fp8):
        return "mma.sync m16n8k32 is supported for e4m3/e5m2 and s8/u8 inputs"
    if types[1] != types[2] and not all(fp8):
        return f"mma.sync with .{types[1]} A takes .{types[1]} B"
    return None


def mma_sync(ctx, idx, ins, a_words, b_words, c_words):
    shape = next(m for m in ins.mods if m in MMA_SHAPES)
    m, n, k = MMA_SHAPES[shape]
    dtype, atype, btype, ctype = [t for t in ins.mods if t in MMA_TYPES]
    lane = ctx.lane[idx].astype(np.int64)
    warps = idx >> 5
    first = np.r_[True, warps[1:] != warps[:-1]]
    row = (np.cumsum(first) - 1)[:, None]
    count = int(first.sum())

    if atype == "f64":                         # DMMA: one double of A and of B a lane, two of C
        return _double_mma_sync(lane, row, count, a_words, b_words, c_words)

    def matrix(words, etype, which, rows, cols):
        values = unpack(words, etype).astype(np.float64)
        r, c = (_tf32_positions(which, lane, k) if etype == "tf32"
                else _fragment_positions(which, shape, lane, etype in MMA_INTEGER))
        out = np.zeros((count, rows, cols))
        out[np.broadcast_to(row, r.shape), r, c] = values[:, :r.shape[1]]
        return out

    A = matrix(a_words, atype, "a", m, k)
    B = matrix(b_words, btype, "b", k, n)
    C = matrix(c_words, ctype, "c", m, n)
    if atype in MMA_INTEGER:                   # exact in float64; the sum wraps around 32 bits or clamps
        D = (np.einsum("wik,wkj->wij", A, B) + C).astype(np.int64)
        D = np.clip(D, -(1 << 31), (1 << 31) - 1) if "satfinite" in ins.mods else D
        r, c = _fragment_positions("c", shape, lane)
        return (D[np.broadcast_to(row, r.shape), r, c] & 0xFFFFFFFF).astype(np.uint32)
    if atype in MMA_FP8:                       # no fp8 HMMA on sm_90: ptxas's two f16 HMMAs and an FADD
        D = fp8_mma_sync(A, B.transpose(0, 2, 1), C)
    else:
        D = tensor_core_product(A, B, C, atype, dtype)
    r, c = _fragment_positions("c", shape, lane)
    d = D[np.broadcast_to(row, r.shape), r, c]
    if dtype == "f16":
        return pack(d, 2)
    return d.view(np.uint32)


def _double_mma_sync(lane, row, count, a_words, b_words, c_words):
    """mma.sync.m8n8k4 .f64 on 64-bit words: A's element (lane >> 2, lane % 4), B's (lane % 4,
    lane >> 2), C's and D's (lane >> 2, 2 (lane % 4) + i); D's two words a lane."""
    group, tig = lane >> 2, lane & 3
    A, B, C = np.zeros((count, 8, 4)), np.zeros((count, 4, 8)), np.zeros((count, 8, 8))
    w = row[:, 0]
    A[w, group, tig] = unpack(a_words, "f64")[:, 0]
    B[w, tig, group] = unpack(b_words, "f64")[:, 0]
    c = unpack(c_words, "f64")
    for i in range(2):
        C[w, group, 2 * tig + i] = c[:, i]
    D = double_product(A, B, C)
    return np.stack([D[w, group, 2 * tig + i] for i in range(2)], axis=1).view(np.uint64)


def matrix_element_addresses(ctx, idx, addrs, count: int, transpose: bool):
    """Where each lane's fragment halves of m8n8 .b16 matrices live, for ldmatrix and stmatrix.

    Lanes 8j..8j+7 give the row addresses of matrix j; lane l holds, in its
    register j, row l // 4 and columns 2 (l % 4), +1 of matrix j (of its
    transpose under .trans). Per matrix j: (word addresses, None) without
    .trans (the two halves are adjacent), (None, (low half, high half)
    addresses) with it.
    """
    lane = ctx.lane[idx].astype(np.int64)
    warps = idx >> 5
    first = np.r_[True, warps[1:] != warps[:-1]]
    row = np.cumsum(first) - 1
    rows = np.zeros((int(first.sum()), 32), dtype=np.uint64)
    rows[row, lane] = addrs
    for j in range(count):
        if not transpose:
            yield rows[row, j * 8 + (lane >> 2)] + (4 * (lane & 3)).astype(np.uint64), None
        else:
            yield None, tuple(rows[row, j * 8 + 2 * (lane & 3) + h] + (2 * (lane >> 2)).astype(np.uint64)
                              for h in (0, 1))


def ldmatrix(ctx, site, idx, space, addrs, count: int, transpose: bool):
    """ldmatrix.m8n8.x{1,2,4}.b16: lanes give row addresses; each gets 2 halves per matrix."""
    words = []
    for word_at, halves_at in matrix_element_addresses(ctx, idx, addrs, count, transpose):
        if word_at is not None:
            words.append(access.load(ctx, site, idx, space, word_at, np.uint32)[0])
        else:
            low, high = (access.load(ctx, site, idx, space, at, np.uint16)[0] for at in halves_at)
            words.append(low.astype(np.uint32) | (high.astype(np.uint32) << 16))
    return np.stack(words, axis=1)


# ------------------------------------------------------------ emitters

def write_fragment(c, registers, words: str, width: str = "b32"):
    """Write an (n, registers) array of 32-bit words (f64 fragments: 64-bit) back to its registers."""
    for k, register in enumerate(registers):
        c.write(register, width, f"{words}[:, {k}]")


def fragment_words(c, vector, width: str = "b32") -> str:
    """Expression of a fragment's registers as an (n, registers) array of 32-bit (or 64-bit) words."""
    return "np.stack([" + ", ".join(f"fit({c.typed(r, width)}, n)" for r in vector.items) + "], axis=1)"


@emitted("wmma", family="tensor", kind=WARP, pipe="tensor", check=check_wmma, warp_sync=True,
         member_mask=whole_warp)
def emit_wmma(c, ins):
    """Warp matrix load/store/multiply-accumulate on opaque fragments (the runtime above)."""
    kind, matrix, layouts, shape, space, types = parse(ins)
    operands = list(ins.dsts) + list(ins.srcs)
    site = c.site(ins)
    width = "b64" if "f64" in types else "b32"
    if kind == "mma":
        d, a, b, cc = operands
        words = [fragment_words(c, v, width) for v in (a, b, cc)]
        res = c.fresh("mma")
        c.emit(f"{res} = tensor.mma_fragments(ctx, idx, {shape!r}, {tuple(types)!r}, "
               f"{'satfinite' in ins.mods}, {words[0]}, {words[1]}, {words[2]}, {len(d.items)})")
        write_fragment(c, d.items, res, width)
        return False
    rows, cols = fragment_shape(matrix, shape)
    etype = types[-1]
    if kind == "load":
        regs, addr, rest = operands[0], operands[1], operands[2:]
    else:
        addr, regs, rest = operands[0], operands[1], operands[2:]
    stride = c.typed(rest[0], "u32") if rest else str(cols if layouts[0] == "row" else rows)
    expr, space = c.address(addr, space)
    a = c.fresh("addr")
    c.emit(f"{a} = {expr}")
    if kind == "load":
        res = c.fresh("frag")
        c.emit(f"{res} = tensor.load_fragment(ctx, {site}, idx, {space!r}, {a}, fit({stride}, n), "
               f"{rows}, {cols}, {layouts[0]!r}, {etype!r}, {len(regs.items)})")
        write_fragment(c, regs.items, res, width)
    else:
        words = fragment_words(c, regs, width)
        c.emit(f"tensor.store_fragment(ctx, {site}, idx, {space!r}, {a}, fit({stride}, n), "
               f"{rows}, {cols}, {layouts[0]!r}, {etype!r}, {words})")
    return False


@emitted("mma", family="tensor", kind=WARP, pipe="tensor", check=check_mma, warp_sync=True,
         member_mask=whole_warp)
def emit_mma(c, ins):
    """mma.sync.aligned.m16n8k{8,16}.row.col: fragments in the PTX manual's layout."""
    d, a, b, cc = list(ins.dsts) + list(ins.srcs)
    width = "b64" if "f64" in ins.mods else "b32"
    res = c.fresh("mma")
    c.emit(f"{res} = tensor.mma_sync(ctx, idx, {c.const(ins, ins.opcode)}, {fragment_words(c, a, width)}, "
           f"{fragment_words(c, b, width)}, {fragment_words(c, cc, width)})")
    write_fragment(c, d.items, res, width)
    return False


def check_ldmatrix(ins):
    return None if "m8n8" in ins.mods and "b16" in ins.mods else "ldmatrix.m8n8 .b16 is supported"


@emitted("ldmatrix", family="tensor", kind=WARP, pipe="lsu", check=check_ldmatrix, warp_sync=True,
         member_mask=whole_warp)
def emit_ldmatrix(c, ins):
    count = next(int(m[1:]) for m in ins.mods if m in ("x1", "x2", "x4"))
    expr, _ = c.address(ins.srcs[0], access.space_of(ins))
    site = c.site(ins)
    res = c.fresh("ldm")
    c.emit(f"{res} = tensor.ldmatrix(ctx, {site}, idx, {access.space_of(ins)!r}, {expr}, {count}, "
           f"{'trans' in ins.mods})")
    write_fragment(c, ins.dsts[0].items if isinstance(ins.dsts[0], Vec) else ins.dsts, res)
    return False
