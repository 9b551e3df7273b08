"""Float SASS: FADD FMUL FFMA FMNMX FCHK MUFU, DADD DMUL DFMA, HADD2 HMUL2 HFMA2 HMNMX2.

These decode operands and modifiers; what each computes is semantics/'s, the
PTX machine's too (floating.arithmetic and min_max, packed.py for halves),
with the modifiers read into a FloatEnv, so a SASS instruction and the PTX
instruction it came from round identically:

- FMUL.D2/.D4/.D8 (.M2/.M4/.M8) divide (multiply) the exact product by 2, 4, 8 and round
  once (semantics.floating.arithmetic's `scale`): the rule chosen where rounding twice would
  differ, for a product that overflows before a .D scale brings it back and for a scaled
  result in the subnormal range; validation/sass_fmul_scale checks it on an H200.
- FADD/FMUL/FFMA round to nearest unless .RZ/.RM/.RP; .FTZ flushes subnormal
  inputs and results (and, in FMUL/FFMA, a result rounded up to the smallest
  normal from a value that is tiny after rounding, floatbits.flush_tiny_result);
  .SAT clamps to [0, 1] (NaN -> +0). f32 NaN results are the canonical
  0x7fffffff the GPU writes. FFMA rounds once. FMNMX's NaN loses to a number
  (.NAN: wins).
- MUFU is the special-function unit: RCP, RSQ, SQRT, EX2, LG2 on f32 with
  subnormals flushed (TANH keeps them), as the PTX .approx instructions are
  modelled (semantics.floating.sfu_approx); SIN/COS
  take their angle in revolutions (ptxas multiplies by 1/(2 pi) with FMUL.RZ
  first); RCP64H/RSQ64H read and write only the high word of an f64.
- FCHK P, a, b is true when a / b needs ptxas's slow path (the Newton
  sequence could be inexact): either operand not normal (a zero a too: the
  fast path would turn -0 / b into +0) or the exponents near the ends of
  the range. Taking the slow path more often than the GPU
  does changes counts, never results.
- DADD/DMUL/DFMA pass a NaN operand on quieted, in the order an H200 picks;
  DADD's -R and |R| leave a NaN operand's sign alone.
- HADD2/HMUL2/HFMA2/HMNMX2 work on f16 halves, bf16 with .BF16_V2; a source's
  .H0_H0/.H1_H1 feeds one of its halves to both. HFMA2.MMA Rd, -RZ, RZ, hi, lo
  is how ptxas loads a 32-bit constant: the two immediates are its halves.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...semantics.floatbits import F32, FORMATS, encode, round_to
from ...semantics.floating import (FP64_UNIT, PLAIN, SFU_FLUSHING, FloatEnv, arithmetic, high_word_sfu, min_max,
                                   sfu_approx)
from ...semantics.packed import low_half_to_f32, packed_arithmetic, packed_min_max
from .operands import U32, U64, alu, bits32, bits64, dest, f32, f64, high_word_source, pred_dest, predicate, source
from .table import Step, Unsupported, semantics

MODES = {"RN": "rn", "RZ": "rz", "RM": "rm", "RP": "rp"}
F32_MODS = tuple(MODES) + ("FTZ", "SAT")
MIN_NORMAL_F32 = np.float32(F32.min_normal)


def _mode(ins) -> str:
    return next((MODES[m] for m in ins.mods if m in MODES), "rn")


def _env(ins) -> FloatEnv:
    """.FTZ (operands and results), .SAT, .RELU and .NAN (min/max) as a semantics.floating.FloatEnv."""
    mods = ins.mods
    return FloatEnv.flushing("FTZ" in mods, sat="SAT" in mods, relu="RELU" in mods, nan_wins="NAN" in mods)


def _f32_op(ins, op: str, scale: int = 0):
    """compute(*f32 bits) for FADD/FMUL/FFMA: semantics.floating.arithmetic under the modifiers
    (`scale`: FMUL's power of two, rounded once with the product)."""
    mode, env = _mode(ins), _env(ins)

    def compute(*values):
        with np.errstate(all="ignore"):
            return bits32(np.atleast_1d(arithmetic(op, "f32", *(f32(v) for v in values), mode=mode, env=env,
                                                   scale=scale)))
    return compute


@semantics("FADD", family="float", pipe="fp32", mods=F32_MODS, doc="a + b in f32")
def fadd(ins):
    dst, a, b = ins.operands[:3]
    return Step(ins, alu([dest(dst)], [source(a, floating=True), source(b, floating=True)], _f32_op(ins, "add")))


# FMUL's result scales: ptxas folds a contractable (x * y) * 2^k into one FMUL (PTX mul without .rn)
SCALES = {"D2": -1, "D4": -2, "D8": -3, "M2": 1, "M4": 2, "M8": 3}


@semantics("FMUL", family="float", pipe="fp32", mods=F32_MODS + tuple(SCALES),
           doc="a * b in f32; .D2 .D4 .D8 / .M2 .M4 .M8 scale the exact product, rounded once")
def fmul(ins):
    scales = [SCALES[m] for m in ins.mods if m in SCALES]
    if len(scales) > 1:
        raise Unsupported("two FMUL scales")
    dst, a, b = ins.operands[:3]
    return Step(ins, alu([dest(dst)], [source(a, floating=True), source(b, floating=True)],
                         _f32_op(ins, "mul", scales[0] if scales else 0)))


@semantics("FFMA", family="float", pipe="fp32", mods=F32_MODS, doc="a * b + c in f32, rounded once")
def ffma(ins):
    dst, a, b, c = ins.operands[:4]
    return Step(ins, alu([dest(dst)], [source(op, floating=True) for op in (a, b, c)], _f32_op(ins, "fma")))


@semantics("FMNMX", family="float", pipe="alu", mods=("FTZ", "NAN", "XORSIGN"),
           doc="min (predicate true) or max of two f32, NaN losing to a number (.NAN: winning)")
def fmnmx(ins):
    if "XORSIGN" in ins.mods:
        raise Unsupported("FMNMX variant")
    dst, a, b, p = ins.operands[:4]
    env = _env(ins)

    def fn(x, y, choose_min):
        x, y = np.broadcast_arrays(np.atleast_1d(f32(x)), np.atleast_1d(f32(y)))
        with np.errstate(all="ignore"):
            return bits32(min_max("f32", (x, y), np.asarray(choose_min, dtype=bool), env))
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

def _sfu(name: str, env=SFU_FLUSHING):
    """MUFU.<name> on f32 bits: semantics.floating.sfu_approx, operands and results flushed."""
    def compute(x):
        with np.errstate(all="ignore"):
            return bits32(encode(sfu_approx(name, np.atleast_1d(f32(x)), F32, env), "f32"))
    return compute


def _high_word(name: str):
    """RCP64H/RSQ64H: the operand is the high word of an f64 (low word 0); the result its high word."""
    def compute(high):
        x = (np.atleast_1d(np.asarray(high, dtype=U64)) << U64(32)).view(np.float64)
        with np.errstate(all="ignore"):
            y = high_word_sfu(name, x)
        return (y.view(U64) >> U64(32)).astype(U32)
    return compute


# MUFU.TANH keeps subnormals: ptxas emits it alone for tanh.approx.f32, which PTX defines on them
MUFU = {"RCP": _sfu("rcp"), "RSQ": _sfu("rsqrt"), "SQRT": _sfu("sqrt"), "EX2": _sfu("ex2"), "LG2": _sfu("lg2"),
        "SIN": _sfu("sin"), "COS": _sfu("cos"), "TANH": _sfu("tanh", PLAIN),
        "RCP64H": _high_word("rcp"), "RSQ64H": _high_word("rsqrt")}


@semantics("MUFU", family="float", pipe="mufu", mods=tuple(MUFU),
           doc="special-function unit: RCP RSQ SQRT EX2 LG2 SIN COS TANH (f32), RCP64H RSQ64H (f64 high word)")
def mufu(ins):
    name = next((m for m in ins.mods if m in MUFU), None)
    if name is None:
        raise Unsupported("MUFU function")
    dst, a = ins.operands[:2]
    return Step(ins, alu([dest(dst)], [high_word_source(a) if name.endswith("64H") else source(a, floating=True)],
                         MUFU[name]))


# ------------------------------------------------------------------ f64

def _f64_op(ins, op: str):
    """compute(*f64 bits) for DADD/DMUL/DFMA: a NaN operand passed on (FP64_UNIT)."""
    mode = _mode(ins)

    def compute(*values):
        with np.errstate(all="ignore"):
            return bits64(np.atleast_1d(arithmetic(op, "f64", *(f64(v) for v in values), mode=mode, env=FP64_UNIT)))
    return compute


def _nan_keeps_its_sign(op):
    """A DADD operand: -R and |R| change a number's sign, but a NaN goes on as its register holds
    it (on an H200, sub.f64 = DADD a, -b, neg.f64 = DADD -RZ, -a and abs.f64 = DADD -RZ, |a| pass
    a NaN operand on with its own sign)."""
    modified = source(op, 64, True)
    if not (op.negate or op.absolute):
        return modified
    plain = source(replace(op, negate=False, absolute=False), 64, True)

    def read(st, g):
        raw = np.asarray(plain(st, g), dtype=U64)
        return np.where(np.isnan(raw.view(np.float64)), raw, modified(st, g))
    return read


@semantics("DADD", family="float", pipe="fp64", mods=tuple(MODES), doc="a + b in f64")
def dadd(ins):
    dst, a, b = ins.operands[:3]
    return Step(ins, alu([dest(dst, 64)], [_nan_keeps_its_sign(a), _nan_keeps_its_sign(b)], _f64_op(ins, "add")))


@semantics("DMUL", family="float", pipe="fp64", mods=tuple(MODES), doc="a * b in f64")
def dmul(ins):
    dst, a, b = ins.operands[:3]
    return Step(ins, alu([dest(dst, 64)], [source(a, 64, True), source(b, 64, True)], _f64_op(ins, "mul")))


@semantics("DFMA", family="float", pipe="fp64", mods=tuple(MODES), doc="a * b + c in f64, rounded once")
def dfma(ins):
    dst, a, b, c = ins.operands[:4]
    return Step(ins, alu([dest(dst, 64)], [source(op, 64, True) for op in (a, b, c)], _f64_op(ins, "fma")))


# ------------------------------------------------------------------ packed halves

SWIZZLES = {None: (0, 1), "H0_H0": (0, 0), "H1_H1": (1, 1), "H1_H0": (1, 0), "H0_H1": (0, 1)}


def half_type(ins) -> str:
    """The halves' type of an H* instruction: bf16 with .BF16_V2, else f16."""
    return "bf16" if "BF16_V2" in ins.mods else "f16"


def half_sources(ops, elem: str):
    """Readers of packed-half sources and the half each result half takes (semantics/packed.py's
    `selects`); two immediates make one operand, the high half first."""
    readers, k = [], 0
    while k < len(ops):
        op = ops[k]
        if op.kind == "imm" and k + 1 < len(ops) and ops[k + 1].kind == "imm":
            high, low = (int(np.asarray(encode(round_to(float(v.value), FORMATS[elem]), elem)).view(np.uint16))
                         for v in (op, ops[k + 1]))         # nvdisasm's decimals, rounded to the half type
            readers.append((lambda st, g, pair=U32(high << 16 | low): pair, (0, 1)))
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
    plain = source(replace(op, negate=False, absolute=False, suffixes=()))

    def read(st, g):
        v = np.asarray(plain(st, g), dtype=U32)
        if op.absolute:
            v = v & U32(0x7FFF7FFF)
        if op.negate:
            v = v ^ U32(0x80008000)
        return v
    return read


HALF_MODS = ("FTZ", "SAT", "RELU", "BF16_V2")


def _half_op(ins, op: str, arity: int):
    """Each f16 (.BF16_V2: bf16) half through semantics/packed.py, as the PTX machine's
    add/mul/fma.f16x2/.bf16x2: .FTZ, .SAT, .RELU read into a FloatEnv; .F32 writes the low
    halves' result as an f32."""
    elem = half_type(ins)
    readers = half_sources(ins.operands[1:], elem)
    if len(readers) != arity:
        raise Unsupported("operand form")
    env, selects = _env(ins), [select for _, select in readers]
    to_f32 = "F32" in ins.mods
    if to_f32 and (env != PLAIN or elem != "f16"):
        raise Unsupported(".F32 with .FTZ/.SAT/.RELU/.BF16_V2")
    write = dest(ins.operands[0])

    def run(st, g):
        words = [read(st, g) for read, _ in readers]
        with np.errstate(all="ignore"):
            if to_f32:                 # a NaN is the canonical 0x7fffffff (cvt.f32.f16 on an H200, h200.npz)
                write(st, g, bits32(np.atleast_1d(low_half_to_f32(op, *words, selects=selects))))
            else:
                write(st, g, np.atleast_1d(packed_arithmetic(op, elem, *words, env=env, selects=selects)))
    return Step(ins, run)


@semantics("HADD2", family="float", pipe="fp16", mods=("F32",) + HALF_MODS,
           doc="packed f16 (.BF16_V2: bf16) a + b (.F32: the low half's sum as f32); .FTZ .SAT .RELU as add.f16x2's")
def hadd2(ins):
    return _half_op(ins, "add", 2)


@semantics("HMUL2", family="float", pipe="fp16",
           mods=HALF_MODS, doc="packed f16 (.BF16_V2: bf16) a * b; .FTZ .SAT .RELU as mul.f16x2's")
def hmul2(ins):
    return _half_op(ins, "mul", 2)


@semantics("HFMA2", family="float", pipe="fp16", mods=("MMA",) + HALF_MODS, mod_pipes={"MMA": "fp32"},
           doc="packed f16 (.BF16_V2: bf16) a * b + c, rounded once; .MMA -RZ, RZ, hi, lo loads a constant; "
               ".FTZ .SAT .RELU as fma.f16x2's")
def hfma2(ins):
    return _half_op(ins, "fma", 3)


@semantics("HMNMX2", family="float", pipe="alu", mods=("FTZ", "NAN", "BF16_V2", "XORSIGN"),
           doc="packed f16 (.BF16_V2: bf16) min (predicate true) or max per half; .NAN .FTZ as min/max.f16x2's")
def hmnmx2(ins):
    if "XORSIGN" in ins.mods:
        raise Unsupported("HMNMX2 variant")
    elem, env = half_type(ins), _env(ins)
    readers = half_sources(ins.operands[1:3], elem)
    if len(readers) != 2 or len(ins.operands) != 4:
        raise Unsupported("operand form")
    choose, write = predicate(ins.operands[3]), dest(ins.operands[0])
    selects = [select for _, select in readers]

    def run(st, g):
        words = [read(st, g) for read, _ in readers]
        take_min = np.asarray(choose(st, g), dtype=bool)
        with np.errstate(all="ignore"):
            write(st, g, np.atleast_1d(packed_min_max(elem, *words, take_min=take_min, env=env, selects=selects)))
    return Step(ins, run)
