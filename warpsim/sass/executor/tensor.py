"""Tensor cores: HMMA (the warp-wide mma.sync of sm_80 and later), HGMMA and WARPGROUP (sm_90).

`HMMA.16816.F32 Rd, Ra, Rb, Rc` is mma.sync.m16n8k16.row.col.f32.f16.f16.f32:
the shape is the modifier's digits (16816: m16n8k16, 1688: m16n8k8, 1684: m16n8k4, tf32 only), the
accumulator type the next modifier (.F32 or .F16), and the inputs f16 unless
.BF16 or .TF32 says otherwise. Fragments are consecutive registers from Ra, Rb,
Rc and Rd, laid out as the PTX manual fixes them; the multiply is the PTX
machine's (machine.isa.tensor.mma_sync), so both levels compute the same
products in the same order.

`QGMMA.64x32x32.F32.E4M3.E4M3 Rd, gdesc[URx], Rc, ...` is the same for fp8
inputs (A's type, then B's; K-major; A from shared memory, or from registers
`Rd, Ra, gdesc[URx]`, four bytes a register).

`HGMMA.64x128x16.F32 Rd, gdesc[URx].tnspB, Rc [, UPp] [, gsb0]` is
wgmma.mma_async.m64n128k16.f32.f16.f16: the shape is the first modifier, the
accumulator type the next (.F32, .F16), the inputs f16 unless .BF16 or .TF32
says otherwise. `gdesc[URx]` names four uniform registers: A's shared-memory
descriptor in URx, URx+1 and B's in URx+2, URx+3; `Rd, Ra, gdesc[URx]...`
takes A from the registers Ra..Ra+3 instead (URx's A half unused). `.tnspA` /
`.tnspB` are PTX's imm-trans-a / -b = 1 (M/N-major in shared memory), `.negA` / `.negB`
imm-scale-a / -b = -1. The
accumulators are Rd.. in the order of PTX's {d0, d1, ...}; Rc = RZ, or a
false predicate (`RZ, !UPT`), is scale-d = 0. `gsb0` marks the last HGMMA of
a group (commit_group). The multiply, descriptors and swizzles are
semantics.wgmma's, which the PTX machine's wgmma.mma_async calls too; the
operation completes when it issues, so `WARPGROUP.ARRIVE` (wgmma.fence) and
`WARPGROUP.DEPBAR.LE gsb0, n` (wait_group n) have nothing left to wait for.
"""

from __future__ import annotations

import re

import numpy as np

from ...machine.compiled.aligned_sum import compiled_accumulate
from ...machine.isa.tensor import mma_sync
from ...semantics.wgmma import (INPUT_TYPES as WGMMA_INPUTS, accumulator_registers, chunk_operand, chunk_starts,
                                descriptor_fields, register_a, to_float, warpgroup_mma)
from .access import resolve
from .errors import SassFault
from .operands import U32, predicate
from .state import Group
from .table import Step, Unsupported, semantics

SHAPES = {"16816": "m16n8k16", "1688": "m16n8k8", "1684": "m16n8k4"}      # 1684: tf32 (wmma m16n16k8's halves)
INPUTS = {"BF16": "bf16", "TF32": "tf32"}           # absent: f16
FP8_INPUTS = {"E4M3": "e4m3", "E5M2": "e5m2"}       # QGMMA's A and B types, in that order
INTEGER_INPUTS = {"S8": "s8", "U8": "u8"}          # IMMA's and IGMMA's, A's then B's (an s32 accumulator)
ACCUMULATORS = {"F32": "f32", "F16": "f16"}


def fragment_registers(shape: str, atype: str, ctype: str) -> tuple:
    """(A, B, C/D) registers per lane of one HMMA."""
    k16 = shape == "m16n8k16"
    if atype == "tf32":
        a, b = (2, 1) if shape == "m16n8k4" else (4, 2)
    else:
        a, b = (4, 2) if k16 else (2, 1)
    return a, b, 4 if ctype == "f32" else 2


class MmaForm:
    """What mma_sync reads of a PTX instruction: the shape and the d, a, b, c types, as modifiers."""

    def __init__(self, shape: str, atype: str, ctype: str, btype: str | None = None, saturate: bool = False):
        satfinite = ("satfinite",) if saturate else ()
        self.mods = (shape, "row", "col") + satfinite + (ctype, atype, btype or atype, ctype)


@semantics("HMMA", family="tensor", pipe="tensor",
           mods=tuple(SHAPES) + tuple(INPUTS) + tuple(ACCUMULATORS), warp_level=True,
           doc="mma.sync: .16816 (m16n8k16) or .1688 (m16n8k8) of f16, .BF16 or .TF32 inputs, .1684 (m16n8k4) of "
               ".TF32, into .F32 or .F16; the PTX machine's multiply (semantics.tensor_sum's sums)")
def hmma(ins):
    shape = next((SHAPES[m] for m in ins.mods if m in SHAPES), None)
    ctype = next((ACCUMULATORS[m] for m in ins.mods if m in ACCUMULATORS), None)
    atype = next((INPUTS[m] for m in ins.mods if m in INPUTS), "f16")
    if shape is None or ctype is None or (atype == "tf32" and shape not in ("m16n8k8", "m16n8k4")) \
            or (shape == "m16n8k4" and atype != "tf32"):
        raise Unsupported("HMMA shape")
    ops = ins.operands
    if len(ops) != 4 or any(op.kind != "reg" for op in ops):
        raise Unsupported("operand form")
    return _mma_step(ins, MmaForm(shape, atype, ctype), fragment_registers(shape, atype, ctype))


def _mma_step(ins, form: MmaForm, counts: tuple):
    """The step of an HMMA or IMMA `d, a, b, c`: mma_sync on the registers of each fragment (A's, B's,
    C/D's `counts`)."""
    d, a, b, c = ins.operands

    def run(st, g):
        words = mma_sync(st, g.idx, form, _registers(st, g, a.number, counts[0]),
                         _registers(st, g, b.number, counts[1]), _registers(st, g, c.number, counts[2]))
        if d.number is not None:
            for k in range(counts[2]):
                st.R[d.number + k][g.sel] = words[:, k]
    return Step(ins, run)


# ------------------------------------------------------------ DMMA

@semantics("DMMA", family="tensor", pipe="tensor", mods=("8x8x4", "884"), warp_level=True,
           doc="mma.sync.m8n8k4.row.col.f64: A and B a register pair a lane, C and D two; the PTX "
               "machine's multiply (each product added as an fma, in k's order)")
def dmma(ins):
    ops = ins.operands
    if not {"8x8x4", "884"} & set(ins.mods) or len(ops) != 4 or any(op.kind != "reg" for op in ops):
        raise Unsupported("DMMA form")
    d, a, b, c = ops
    form = MmaForm("m8n8k4", "f64", "f64")

    def doubles(st, g, first, count):
        """(lanes, count) 64-bit words of `count` register pairs, the low word first."""
        pairs = _registers(st, g, first, 2 * count).astype(np.uint64).reshape(g.n, count, 2)
        return pairs[:, :, 0] | (pairs[:, :, 1] << np.uint64(32))

    def run(st, g):
        words = mma_sync(st, g.idx, form, doubles(st, g, a.number, 1), doubles(st, g, b.number, 1),
                         doubles(st, g, c.number, 2))
        if d.number is not None:
            halves = np.ascontiguousarray(words).view(np.uint32).reshape(g.n, 4)
            for k in range(4):
                st.R[d.number + k][g.sel] = halves[:, k]
    return Step(ins, run)


# ------------------------------------------------------------ HGMMA (warpgroup MMA, sm_90)

# ------------------------------------------------------------ IMMA

IMMA_SHAPES = {"16816": "m16n8k16", "16832": "m16n8k32"}


@semantics("IMMA", family="tensor", pipe="tensor", mods=tuple(IMMA_SHAPES) + tuple(INTEGER_INPUTS) + ("SAT",),
           warp_level=True,
           doc="mma.sync.m16n8k16 / m16n8k32 .row.col.s32 of 8-bit integers (.S8/.U8 for A, then B; Ra.ROW, "
               "Rb.COL): the PTX machine's multiply (exact products, s32 sums wrapping, .SAT: clamped)")
def imma(ins):
    shape = next((IMMA_SHAPES[m] for m in ins.mods if m in IMMA_SHAPES), None)
    types = [INTEGER_INPUTS[m] for m in ins.mods if m in INTEGER_INPUTS]
    ops = ins.operands
    if shape is None or len(types) != 2 or len(ops) != 4 or any(op.kind != "reg" for op in ops) \
            or ops[1].suffixes not in ((), ("ROW",)) or ops[2].suffixes not in ((), ("COL",)):
        raise Unsupported("IMMA form")
    form = MmaForm(shape, types[0], "s32", btype=types[1], saturate="SAT" in ins.mods)
    return _mma_step(ins, form, (4, 2, 4) if shape == "m16n8k32" else (2, 1, 4))


# ------------------------------------------------------------ HGMMA

HGMMA_SHAPE = re.compile(r"64x(\d+)x(\d+)$")
HGMMA_SHAPES = tuple(f"64x{n}x{k}" for n in range(8, 257, 8) for k in (8, 16))
QGMMA_SHAPES = tuple(f"64x{n}x32" for n in range(8, 257, 8))
GDESC = re.compile(r"gdesc\[UR(\d+)\]((?:\.(?:tnsp|neg)[AB])*)$")


def hgmma_form(ins) -> tuple:
    """(N, K, accumulator type, A's input type, B's) from HGMMA's (QGMMA's, IGMMA's) modifiers."""
    shape = next((HGMMA_SHAPE.match(m) for m in ins.mods if HGMMA_SHAPE.match(m)), None)
    ctype = next((ACCUMULATORS[m] for m in ins.mods if m in ACCUMULATORS), None)
    btype = None
    if ins.opcode == "IGMMA":                                   # 8-bit integers into s32, A's type then B's
        types = [INTEGER_INPUTS[m] for m in ins.mods if m in INTEGER_INPUTS]
        if len(types) != 2:
            raise Unsupported("IGMMA types")
        (atype, btype), ctype = types, "s32"
    elif ins.opcode == "QGMMA":
        types = [FP8_INPUTS[m] for m in ins.mods if m in FP8_INPUTS]
        if len(types) != 2 or types[0] != types[1]:            # the PTX machine multiplies one type
            raise Unsupported("QGMMA types")
        atype = types[0]
    else:
        atype = next((INPUTS[m] for m in ins.mods if m in INPUTS), "f16")
    if shape is None or ctype is None or (ctype == "f16" and atype not in ("f16",) + tuple(FP8_INPUTS.values())):
        raise Unsupported(f"{ins.opcode} shape or types")
    n, k = int(shape.group(1)), int(shape.group(2))
    if k != WGMMA_INPUTS[atype][1]:
        raise Unsupported(f"HGMMA K={k} with {atype} inputs")
    return n, k, ctype, atype, btype or atype


def hgmma_highest_register(ins) -> int:
    """The highest register HGMMA's accumulators and A fragment reach (the register file must hold them)."""
    try:
        n, _, ctype, _, _ = hgmma_form(ins)
    except Unsupported:
        return 0
    count = accumulator_registers(n, ctype)
    regs = [op for op in ins.operands if op.kind == "reg" and op.number is not None]
    return max([op.number + count - 1 for op in regs] + [0])


def _registers(st, g, first: int | None, count: int) -> np.ndarray:
    """(lanes, count) words of registers first..first+count-1 (RZ: zeros)."""
    if first is None:
        return np.zeros((g.n, count), dtype=U32)
    return np.stack([st.R[first + k][g.sel] for k in range(count)], axis=1)


def _uniform_pair(st, slots, row: int) -> np.ndarray:
    """A 64-bit descriptor per warp from URrow (low) and URrow+1 (high)."""
    return st.UR[row][slots].astype(np.uint64) | (st.UR[row + 1][slots].astype(np.uint64) << np.uint64(32))


def _shared_b(ctas: np.ndarray, b_desc: np.ndarray) -> tuple:
    """(the first warp of each distinct (CTA, B descriptor), which of them each warp reads), in warp order."""
    descs, desc_of_warp = np.unique(b_desc, return_inverse=True)
    keys = ctas.astype(np.int64) * len(descs) + desc_of_warp.ravel()
    _, first, b_of_warp = np.unique(keys, return_index=True, return_inverse=True)
    return first, b_of_warp.ravel()


def _shared_chunks(st, ins, slots, reads, atype):
    """Float64 operands (rows, mn, k) from per-warp chunk starts: [(starts, mn_major)], read 16 bytes
    at a time from the CTA's shared memory, checked as an LDS.128 of the warp's first lane."""
    element_bytes = WGMMA_INPUTS[atype][0]
    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[element_bytes]
    flat = [starts.reshape(len(starts), -1) for starts, _ in reads]
    lanes = np.concatenate([np.repeat(slots, part.shape[1]) for part in flat])
    where = np.concatenate([part.ravel() for part in flat]).astype(np.uint64)
    space = resolve(st, ins, Group(lanes), "shared", where, 16)[0][1]
    values = to_float(np.ascontiguousarray(space.gather(16)).view(dtype), atype)
    bounds = np.cumsum([0] + [part.size for part in flat])
    return [chunk_operand(values[lo:hi], starts.shape, mn_major)
            for (starts, mn_major), lo, hi in zip(reads, bounds, bounds[1:])]


@semantics("HGMMA", family="tensor", pipe="tensor", mods=HGMMA_SHAPES + tuple(INPUTS) + tuple(ACCUMULATORS),
           warp_level=True,
           doc="wgmma.mma_async: .64xNxK of f16, .BF16 or .TF32 inputs into .F32 or .F16; A and B from "
               "gdesc[URx] (A's descriptor, then B's), or A from registers; .tnspA/.tnspB, .negA/.negB; every "
               "swizzle; "
               "semantics.wgmma's multiply, as the PTX machine's")
def hgmma(ins):
    return warpgroup_mma_step(ins)


@semantics("QGMMA", family="tensor", pipe="tensor", mods=QGMMA_SHAPES + tuple(FP8_INPUTS) + tuple(ACCUMULATORS),
           warp_level=True,
           doc="wgmma.mma_async of fp8: .64xNx32 of .E4M3 or .E5M2 inputs (A's type, then B's, equal) into .F32 "
               "or .F16; B from gdesc[URx], A from there or registers, K-major; semantics.wgmma's fp8 decoding "
               "and multiply")
def qgmma(ins):
    return warpgroup_mma_step(ins)


@semantics("IGMMA", family="tensor", pipe="tensor", mods=QGMMA_SHAPES + tuple(INTEGER_INPUTS) + ("SAT",),
           warp_level=True,
           doc="wgmma.mma_async of 8-bit integers: .64xNx32 of .S8/.U8 inputs (A's type, then B's) into s32; B "
               "from gdesc[URx], A from there or registers, K-major; exact, the sums wrapping (.SAT: clamped); "
               "semantics.wgmma's multiply, as the PTX machine's")
def igmma(ins):
    return warpgroup_mma_step(ins)


def warpgroup_mma_step(ins):
    n, k, ctype, atype, btype = hgmma_form(ins)
    ops = [op for op in ins.operands if not (op.kind == "other" and op.text == "gsb0")]
    scale_d = None
    if ops and ops[-1].kind in ("pred", "upred"):
        scale_d = predicate(ops.pop())
    gdesc = [i for i, op in enumerate(ops) if op.kind == "other" and GDESC.match(op.text)]
    if len(gdesc) != 1 or len(ops) not in (3, 4) or gdesc[0] != len(ops) - 2:
        raise Unsupported("operand form")
    match = GDESC.match(ops[gdesc[0]].text)
    base, suffixes = int(match.group(1)), match.group(2)
    d, c = ops[0], ops[-1]
    a = ops[1] if len(ops) == 4 else None
    if any(op.kind != "reg" for op in (d, c) + ((a,) if a is not None else ())) or d.number is None:
        raise Unsupported("operand form")
    if a is not None and (a.number is None or atype == "tf32"):
        raise Unsupported("A in registers")
    trans_a, trans_b = "tnspA" in suffixes, "tnspB" in suffixes
    saturate = "SAT" in ins.mods
    scale_a, scale_b = (-1 if "negA" in suffixes else 1), (-1 if "negB" in suffixes else 1)
    if atype != "f16" and atype != "bf16" and (trans_a or trans_b):
        raise Unsupported(f"transposed {atype}")
    count = accumulator_registers(n, ctype)
    element_bytes = WGMMA_INPUTS[atype][0]
    krange, nrange = np.arange(k), np.arange(n)

    def run(st, g):
        lanes, firsts = g.warp_lanes()
        slots = g.idx[firsts]
        warps = len(slots)
        row = np.cumsum(np.r_[True, (g.idx[1:] >> 5) != (g.idx[:-1] >> 5)]) - 1
        lane = st.lane[g.idx].astype(np.int64)
        b_desc = _uniform_pair(st, slots, base + 2)
        reads = []
        if a is None:
            quarter = ((slots >> 5) % st.warps_per_cta) % 4
            a_rows = 16 * quarter[:, None] + np.arange(16)
            reads.append((chunk_starts(descriptor_fields(_uniform_pair(st, slots, base)), a_rows, krange,
                                       element_bytes, trans_a), trans_a))
        # the warps of a CTA reading one B (a warpgroup's four) share it: read once, from its first warp
        first, b_of_warp = _shared_b(slots // (32 * st.warps_per_cta), b_desc)
        b_reads = [(chunk_starts(descriptor_fields(b_desc[first]), np.broadcast_to(nrange, (len(first), n)),
                                 krange, element_bytes, trans_b), trans_b)]
        try:
            operands = _shared_chunks(st, ins, slots[first], b_reads, btype) + (
                _shared_chunks(st, ins, slots, reads, atype) if reads else [])
        except SassFault:           # name the warp and address a read of every warp's B, then A, meets first
            every_b = chunk_starts(descriptor_fields(b_desc), np.broadcast_to(nrange, (warps, n)), krange,
                                   element_bytes, trans_b)
            _shared_chunks(st, ins, slots, [(every_b, trans_b)] + reads, atype)
            raise
        B = operands[0]
        A = operands[1] if a is None else register_a(_registers(st, g, a.number, 4), row, lane, warps, k, atype)
        accumulate = np.full(g.n, c.number is not None)
        if scale_d is not None:
            accumulate &= np.broadcast_to(scale_d(st, g), (g.n,))
        # the accumulators as the register file holds them: (registers, threads), no transposes
        old = np.zeros((count, g.n), U32) if c.number is None else st.R[c.number:c.number + count, g.sel]
        words = warpgroup_mma(A, B, scale_a, scale_b, row, lane, n, ctype, accumulate, old, b_of_warp, atype,
                              accumulate_aligned=compiled_accumulate, registers_first=True, satfinite=saturate)
        st.R[d.number:d.number + count, g.sel] = words
    return Step(ins, run)


@semantics("WARPGROUP", family="tensor", pipe="branch", mods=("ARRIVE", "DEPBAR", "LE"),
           doc="ARRIVE (wgmma.fence) and DEPBAR.LE gsb0, n (wgmma.wait_group n): HGMMA completes when it "
               "issues, so nothing is left to order or wait for")
def warpgroup(ins):
    if "ARRIVE" not in ins.mods and "DEPBAR" not in ins.mods:
        raise Unsupported("WARPGROUP form")
    return Step(ins, lambda st, g: None)
