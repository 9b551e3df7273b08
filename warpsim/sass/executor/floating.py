"""Float SASS: FADD FMUL FFMA FMNMX FCHK MUFU, DADD DMUL DFMA, HADD2 HMUL2 HFMA2.

Rounding, subnormal flushing and NaN results come from semantics/, as the
PTX machine's do (floatbits.py, floating.py), so a SASS instruction and the
PTX instruction it came from round identically:

- FADD/FMUL/FFMA round to nearest unless .RZ/.RM/.RP; .FTZ flushes subnormal
  inputs and results (and, in FMUL/FFMA, a result rounded up to the smallest
  normal from a value that is tiny after rounding, floatbits.flush_tiny_result); .SAT clamps to [0, 1] (NaN -> +0). f32 NaN results are
  the canonical 0x7fffffff the GPU writes. FFMA rounds once.
- MUFU is the special-function unit: RCP, RSQ, SQRT, EX2, LG2 on f32 with
  subnormals flushed, as the PTX .approx instructions are modelled; SIN/COS
  take their angle in revolutions (ptxas multiplies by 1/(2 pi) with FMUL.RZ
  first); RCP64H/RSQ64H read and write only the high word of an f64.
- FCHK P, a, b is true when a / b needs ptxas's slow path (the Newton
  sequence could be inexact): either operand not normal (a zero a too: the
  fast path would turn -0 / b into +0) or the exponents near the ends of
  the range. Taking the slow path more often than the GPU
  does changes counts, never results.
- DADD/DMUL/DFMA pass a NaN operand on quieted, in the order an H200 picks.
- HFMA2.MMA Rd, -RZ, RZ, hi, lo is how ptxas loads a 32-bit constant: the two
  f16 immediates are its halves.
"""

from __future__ import annotations

import numpy as np

from ...semantics.floatbits import (F16, F32, F64, add_rounded, encode, flush_subnormal, flush_tiny_result,
                                    fma_rounded, mul_rounded, round_to)
from ...semantics.floating import (approx_reciprocal, canonical_nan, fma_nearest, fma_operand_nan, high_word_sfu,
                                   ieee_min_max, operand_nan, sfu_revolutions)
from .operands import U32, U64, alu, bits32, bits64, dest, f32, f64, pred_dest, source
from .table import Step, Unsupported, semantics

MODES = {"RN": "rn", "RZ": "rz", "RM": "rm", "RP": "rp"}
F32_MODS = tuple(MODES) + ("FTZ", "SAT")
MIN_NORMAL_F32 = np.float32(1.1754943508222875e-38)


def _mode(ins) -> str:
    return next((MODES[m] for m in ins.mods if m in MODES), "rn")


def _inputs(ins, *values):
    values = [np.asarray(f32(v), dtype=np.float32) for v in values]
    if "FTZ" in ins.mods:
        values = [flush_subnormal(v, F32) for v in values]
    return values


def _finish(ins, result, rescaled=None):
    """float32 results -> bits, after .FTZ, .SAT and canonical NaNs. `rescaled(scale)`, for
    FMUL/FFMA, is the operation on scaled operands: .FTZ's tininess test (floatbits)."""
    result = np.asarray(result, dtype=np.float32)
    if "FTZ" in ins.mods:
        result = flush_tiny_result(result, rescaled, F32)
    if "SAT" in ins.mods:
        result = (np.where(np.isnan(result), np.float32(0), np.clip(result, 0, 1)) + np.float32(0))
    return bits32(canonical_nan(np.atleast_1d(result).astype(np.float32)))


def _rounded(fn_native, fn_exact, ins, scaled=None):
    """compute(*f32 bits) for an f32 op: NumPy's float32 for .RN, floatbits' exact rounding for the
    other modes; `scaled(scale, *operands)` (mul, fma) gives the operands whose exact result is
    `scale` times the op's, for .FTZ's tininess test."""
    mode = _mode(ins)

    def compute(*values):
        values = _inputs(ins, *values)
        with np.errstate(all="ignore"):
            wide = [v.astype(np.float64) for v in values]
            if mode == "rn":
                result = fn_native(*values)
            else:
                result = np.asarray(fn_exact(*wide, mode)).astype(np.float32)
            rescaled = None if scaled is None else (lambda scale: fn_exact(*scaled(scale, *wide), mode))
            return _finish(ins, result, rescaled)
    return compute


@semantics("FADD", family="float", pipe="fp32", mods=F32_MODS, doc="a + b in f32")
def fadd(ins):
    dst, a, b = ins.operands[:3]
    fn = _rounded(np.add, lambda x, y, m: add_rounded(x, y, F32, m), ins)
    return Step(ins, alu([dest(dst)], [source(a, floating=True), source(b, floating=True)], fn))


@semantics("FMUL", family="float", pipe="fp32",
           mods=F32_MODS + ("D2", "D4", "D8", "M2", "M4", "M8"), doc="a * b in f32")
def fmul(ins):
    if set(ins.mods) & {"D2", "D4", "D8", "M2", "M4", "M8"}:
        raise Unsupported("scaled FMUL")
    dst, a, b = ins.operands[:3]
    fn = _rounded(np.multiply, lambda x, y, m: mul_rounded(x, y, F32, m), ins,
                  scaled=lambda scale, x, y: (x * scale, y))
    return Step(ins, alu([dest(dst)], [source(a, floating=True), source(b, floating=True)], fn))


@semantics("FFMA", family="float", pipe="fp32", mods=F32_MODS, doc="a * b + c in f32, rounded once")
def ffma(ins):
    dst, a, b, c = ins.operands[:4]
    fn = _rounded(fma_nearest, lambda x, y, z, m: fma_rounded(x, y, z, F32, m), ins,
                  scaled=lambda scale, x, y, z: (x * scale, y, z * scale))
    return Step(ins, alu([dest(dst)], [source(op, floating=True) for op in (a, b, c)], fn))


@semantics("FMNMX", family="float", pipe="fp32", mods=("FTZ", "NAN", "XORSIGN"),
           doc="min (predicate true) or max of two f32, NaN losing to a number")
def fmnmx(ins):
    if set(ins.mods) & {"NAN", "XORSIGN"}:
        raise Unsupported("FMNMX variant")
    dst, a, b, p = ins.operands[:4]
    from .operands import predicate

    def fn(x, y, choose_min):
        x, y = _inputs(ins, x, y)
        x, y = np.broadcast_arrays(np.atleast_1d(x), np.atleast_1d(y))
        return bits32(canonical_nan(ieee_min_max(x, y, np.asarray(choose_min, dtype=bool))))
    return Step(ins, alu([dest(dst)], [source(a, floating=True), source(b, floating=True), predicate(p)], fn))


@semantics("FCHK", family="float", pipe="fp32", mods=("DIVIDE",),
           doc="P = a / b needs the slow path (an operand not normal, or exponents near the range ends)")
def fchk(ins):
    dst, a, b = ins.operands[:3]
    write, ra, rb = pred_dest(dst), source(a, floating=True), source(b, floating=True)

    def run(st, g):
        x, y = (np.broadcast_to(np.asarray(f32(r(st, g)), dtype=np.float32), (g.n,)) for r in (ra, rb))
        ex = ((x.view(U32) >> U32(23)) & U32(0xFF)).astype(np.int32) - 127
        ey = ((y.view(U32) >> U32(23)) & U32(0xFF)).astype(np.int32) - 127
        unusual = ~np.isfinite(x) | ~np.isfinite(y) | (y == 0) | (np.abs(y) < MIN_NORMAL_F32)
        unusual |= np.abs(x) < MIN_NORMAL_F32      # zero too: the fast path would lose -0's sign
        unusual |= (x != 0) & ((ex >= 126) | (ex <= -100) | (ex - ey >= 126) | (ex - ey <= -100))
        unusual |= (ey >= 126) | (ey <= -125)
        write(st, g, unusual)
    return Step(ins, run)


# ------------------------------------------------------------------ MUFU

def _sfu_f32(fn, flush_result=True):
    def compute(x):
        x = flush_subnormal(np.atleast_1d(f32(x)).astype(np.float64), F32)
        with np.errstate(all="ignore"):
            y = round_to(fn(x), F32, "rn")
        if flush_result:
            y = flush_subnormal(y, F32)
        return bits32(canonical_nan(np.asarray(y).astype(np.float32)))
    return compute


def _high_word(fn):
    """RCP64H/RSQ64H: the operand is the high word of an f64 (low word 0); the result its high word."""
    def compute(high):
        x = (np.atleast_1d(np.asarray(high, dtype=U64)) << U64(32)).view(np.float64)
        with np.errstate(all="ignore"):
            y = high_word_sfu(fn, x)
        return (y.view(U64) >> U64(32)).astype(U32)
    return compute


MUFU = {
    "RCP": lambda x: bits32(canonical_nan(approx_reciprocal(np.atleast_1d(f32(x)).astype(np.float64), flush=True)
                                          .astype(np.float32))),      # a NaN: 0x7fffffff (h200.npz, rcp.approx.ftz)
    "RSQ": _sfu_f32(lambda v: 1.0 / np.sqrt(v)),
    "SQRT": _sfu_f32(np.sqrt),
    "EX2": _sfu_f32(np.exp2),
    "LG2": _sfu_f32(np.log2),
    "SIN": _sfu_f32(sfu_revolutions(np.sin)),
    "COS": _sfu_f32(sfu_revolutions(np.cos)),
    "TANH": _sfu_f32(np.tanh, flush_result=False),
    "RCP64H": _high_word(lambda v: 1.0 / v),
    "RSQ64H": _high_word(lambda v: 1.0 / np.sqrt(v)),
}


@semantics("MUFU", family="float", pipe="mufu", mods=tuple(MUFU),
           doc="special-function unit: RCP RSQ SQRT EX2 LG2 SIN COS TANH (f32), RCP64H RSQ64H (f64 high word)")
def mufu(ins):
    fn = next((MUFU[m] for m in ins.mods if m in MUFU), None)
    if fn is None:
        raise Unsupported("MUFU function")
    dst, a = ins.operands[:2]
    return Step(ins, alu([dest(dst)], [source(a, floating=True)], fn))


# ------------------------------------------------------------------ f64

def _double(ins, native, exact, nan_fix, count):
    mode = _mode(ins)

    def compute(*values):
        values = [np.atleast_1d(f64(v)) for v in values]
        with np.errstate(all="ignore"):
            result = native(*values) if mode == "rn" else exact(*values, mode)
            result = nan_fix(np.asarray(result, dtype=np.float64), *values)
        return bits64(result)
    return compute


@semantics("DADD", family="float", pipe="fp64", mods=tuple(MODES), doc="a + b in f64")
def dadd(ins):
    dst, a, b = ins.operands[:3]
    fn = _double(ins, np.add, lambda x, y, m: add_rounded(x, y, F64, m), operand_nan, 2)
    return Step(ins, alu([dest(dst, 64)], [source(a, 64, True), source(b, 64, True)], fn))


@semantics("DMUL", family="float", pipe="fp64", mods=tuple(MODES), doc="a * b in f64")
def dmul(ins):
    dst, a, b = ins.operands[:3]
    fn = _double(ins, np.multiply, lambda x, y, m: mul_rounded(x, y, F64, m), operand_nan, 2)
    return Step(ins, alu([dest(dst, 64)], [source(a, 64, True), source(b, 64, True)], fn))


@semantics("DFMA", family="float", pipe="fp64", mods=tuple(MODES), doc="a * b + c in f64, rounded once")
def dfma(ins):
    dst, a, b, c = ins.operands[:4]
    fn = _double(ins, lambda x, y, z: fma_rounded(x, y, z, F64, "rn"),
                 lambda x, y, z, m: fma_rounded(x, y, z, F64, m), fma_operand_nan, 3)
    return Step(ins, alu([dest(dst, 64)], [source(op, 64, True) for op in (a, b, c)], fn))


# ------------------------------------------------------------------ packed f16

SWIZZLES = {None: (0, 1), "H0_H0": (0, 0), "H1_H1": (1, 1), "H1_H0": (1, 0), "H0_H1": (0, 1)}


def _half_sources(ops):
    """Readers of packed-f16 sources -> (low, high) float16 pairs; two immediates make one operand."""
    readers, k = [], 0
    while k < len(ops):
        op = ops[k]
        if op.kind == "imm" and k + 1 < len(ops) and ops[k + 1].kind == "imm":
            high = np.float16(float(op.value)).view(np.uint16)
            low = np.float16(float(ops[k + 1].value)).view(np.uint16)
            pair = U32(int(high) << 16 | int(low))
            readers.append((lambda st, g, pair=pair: pair, (0, 1)))
            k += 2
            continue
        swizzle = next((s for s in op.suffixes if s in SWIZZLES), None)
        if any(s not in SWIZZLES for s in op.suffixes):
            raise Unsupported(f"operand {op.text}")
        readers.append((source(op, floating=False) if not (op.negate or op.absolute) else _half_modified(op),
                        SWIZZLES[swizzle]))
        k += 1
    return readers


def _half_modified(op):
    """-R / |R| on a packed pair: both halves' sign bits."""
    from dataclasses import replace
    plain = source(replace(op, negate=False, absolute=False, suffixes=()))

    def read(st, g):
        v = np.asarray(plain(st, g), dtype=U32)
        if op.absolute:
            v = v & U32(0x7FFF7FFF)
        if op.negate:
            v = v ^ U32(0x80008000)
        return v
    return read


def _halves(value, swizzle):
    v = np.asarray(value, dtype=U32)
    parts = [(v & U32(0xFFFF)).astype(np.uint16).view(np.float16),
             (v >> U32(16)).astype(np.uint16).view(np.float16)]
    return parts[swizzle[0]].astype(np.float64), parts[swizzle[1]].astype(np.float64)


HALF_MODS = ("FTZ", "SAT", "RELU")


def _half_op(ins, rounded, arity, scaled=None):
    """Each f16 half through floatbits' `rounded(*values, F16, 'rn')`, as the PTX machine's
    add/mul/fma.f16x2: .FTZ flushes subnormal inputs and results (`scaled`, for HMUL2/HFMA2:
    the operands of the scaled operation, floatbits.flush_tiny_result's tininess test), .SAT
    clamps to [0, 1] (NaN -> +0), .RELU negatives to +0; NaN results are 0x7fff."""
    dst = ins.operands[0]
    readers = _half_sources(ins.operands[1:])
    if len(readers) != arity:
        raise Unsupported("operand form")
    to_f32 = "F32" in ins.mods
    ftz, sat, relu = ("FTZ" in ins.mods), ("SAT" in ins.mods), ("RELU" in ins.mods)
    if to_f32 and (ftz or sat or relu):
        raise Unsupported(".F32 with .FTZ/.SAT/.RELU")
    write = dest(dst)

    def half(*values):
        if ftz:
            values = [flush_subnormal(v, F16) for v in values]
        result = rounded(*values, F32 if to_f32 else F16, "rn")
        if ftz:
            result = flush_tiny_result(result, None if scaled is None else
                                       (lambda scale: rounded(*scaled(scale, *values), F16, "rn")), F16)
        if sat:
            result = np.where(np.isnan(result), 0.0, np.clip(result, 0.0, 1.0)) + 0.0
        if relu:
            result = np.where(result < 0, 0.0, result) + 0.0
        return result

    def run(st, g):
        pairs = [_halves(read(st, g), swizzle) for read, swizzle in readers]
        with np.errstate(all="ignore"):
            low = np.atleast_1d(half(*(p[0] for p in pairs)))
            high = np.atleast_1d(half(*(p[1] for p in pairs)))
        if to_f32:                 # a NaN is the canonical 0x7fffffff (cvt.f32.f16 on an H200, h200.npz)
            write(st, g, encode(low, "f32").view(U32))
            return
        low, high = (encode(h, "f16").view(np.uint16).astype(U32) for h in (low, high))
        write(st, g, low | (high << U32(16)))
    return Step(ins, run)


@semantics("HADD2", family="float", pipe="fp32", mods=("F32",) + HALF_MODS,
           doc="packed f16 a + b (.F32: the low half's sum as f32); .FTZ .SAT .RELU as add.f16x2's")
def hadd2(ins):
    return _half_op(ins, add_rounded, 2)


@semantics("HMUL2", family="float", pipe="fp32",
           mods=HALF_MODS, doc="packed f16 a * b; .FTZ .SAT .RELU as mul.f16x2's")
def hmul2(ins):
    return _half_op(ins, mul_rounded, 2, scaled=lambda scale, x, y: (x * scale, y))


@semantics("HFMA2", family="float", pipe="fp32", mods=("MMA",) + HALF_MODS,
           doc="packed f16 a * b + c, rounded once; .MMA -RZ, RZ, hi, lo loads a constant; "
               ".FTZ .SAT .RELU as fma.f16x2's")
def hfma2(ins):
    return _half_op(ins, fma_rounded, 3, scaled=lambda scale, x, y, z: (x * scale, y, z * scale))
