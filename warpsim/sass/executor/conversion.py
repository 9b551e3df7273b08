"""Conversions: I2F, I2FP, F2I, F2F, F2FP (fp8 pairs too), FRND, I2I, I2IP (and integer widening ptxas does with SHF/PRMT).

Types come from the modifiers, destination first: `F2I.U32.TRUNC.NTZ` is f32
to u32 truncating; `I2F.F64.S64` s64 to f64; `F2F.F32.F64` f64 to f32; floats
are F16, BF16, F32 and F64 (16-bit values in a register's low half). Integer
rounding modes are .TRUNC, .FLOOR, .CEIL and (default) nearest-even; float
results round to nearest unless .RZ/.RM/.RP. What each computes is
semantics/conversion.py's, as PTX's cvt: NaN converts to 0 for 32-bit
integers from f32 and to the top bit alone from f64 or into 64-bit
integers (seen on an H200); out-of-range values saturate; between float
types NaN payloads are kept or made canonical as the H200 does.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...semantics.conversion import convert_to_float, float_to_int, int_to_int, pack_saturated
from ...semantics.floatbits import F32, FORMATS, decode, flush_subnormal
from .operands import U32, U64, alu, dest, f32, f64, normalized, source
from .table import Step, Unsupported, semantics

INTS = {"U8": (np.uint8, 8), "S8": (np.int8, 8), "U16": (np.uint16, 16), "S16": (np.int16, 16),
        "U32": (np.uint32, 32), "S32": (np.int32, 32), "U64": (np.uint64, 64), "S64": (np.int64, 64)}
FLOATS = {"F16": 16, "BF16": 16, "F32": 32, "F64": 64}
ROUNDING = {"TRUNC": "rzi", "FLOOR": "rmi", "CEIL": "rpi"}      # to an integer; nearest-even (rni) unless named
ROUND_FLOAT = {"RN": "rn", "RZ": "rz", "RM": "rm", "RP": "rp"}


def _types(ins, default_dst, default_src):
    """(destination type, source type) from the modifiers. Between integers and floats each side is
    named by its kind (`I2F.U32.RP`: from u32; `F2I.F64`: from f64 to the default s32); between two
    floats the destination comes first, a lone one being whichever side is not the default."""
    named = [m for m in ins.mods if m in INTS or m in FLOATS]
    if (default_dst in INTS) != (default_src in INTS):
        dst_kind = INTS if default_dst in INTS else FLOATS
        dst = next((m for m in named if m in dst_kind), default_dst)
        src = next((m for m in named if m not in dst_kind), default_src)
        return dst, src
    if len(named) >= 2:
        return named[0], named[1]
    if len(named) == 1:
        return (named[0], default_src) if named[0] != default_src else (default_dst, named[0])
    return default_dst, default_src


def _low_half(v):
    return (np.atleast_1d(np.asarray(v, dtype=U32)) & U32(0xFFFF)).astype(np.uint16)


# a source register's bits -> the register values of its float type (16-bit types: the low half)
_REGISTER = {"f64": lambda v: np.atleast_1d(f64(v)), "f32": lambda v: np.atleast_1d(f32(v)),
             "f16": lambda v: _low_half(v).view(np.float16), "bf16": _low_half}


def _read_float(op, name: str):
    """Reader of a float source of type `name` (F16 BF16 F32 F64) and its decoding to float64."""
    kind = name.lower()
    return source(op, 64 if kind == "f64" else 32, floating=True), lambda v: decode(_REGISTER[kind](v), kind)


def _store_int(values, name):
    dtype, width = INTS[name]
    raw = np.asarray(values).astype(dtype)
    if width == 64:
        return raw.view(np.uint64) if raw.dtype == np.int64 else raw
    return raw.astype(np.int64).astype(U64) & U64(0xFFFFFFFF)


def _read_int(op, name):
    dtype, width = INTS[name]
    read = source(op, 64 if width == 64 else 32)
    if width == 64:
        return read, lambda v: np.atleast_1d(np.asarray(v, dtype=U64)).view(dtype) if dtype == np.int64 \
            else np.atleast_1d(np.asarray(v, dtype=U64))
    return read, lambda v: np.atleast_1d(np.asarray(v, dtype=U32)).astype(dtype)


def _float_bits(values, width):
    """f16/f32/f64 register values -> the destination register's bits (f16 in the low half)."""
    values = np.asarray(values)
    return values.view(U64) if width == 64 else values.view(np.uint16 if width == 16 else U32).astype(U32)


@semantics("I2F", "I2FP", family="conversion", pipe=("mufu", "alu"),
           mods=tuple(INTS) + tuple(FLOATS) + tuple(ROUND_FLOAT),
           doc="integer to float, rounded (default to nearest); I2FP issues to the ALU, I2F to the XU "
               "(fifteenth batch: ncu counts half of an I2FP + F2I loop's conversions on the XU pipe)")
def i2f(ins):
    dst_type, src_type = _types(ins, "F32", "S32")
    if dst_type not in FLOATS or src_type not in INTS:
        raise Unsupported("conversion types")
    width = FLOATS[dst_type]
    mode = next((ROUND_FLOAT[m] for m in ins.mods if m in ROUND_FLOAT), "rn")
    read, decode = _read_int(ins.operands[1], src_type)
    if any(s for s in ins.operands[1].suffixes):
        raise Unsupported(f"operand {ins.operands[1].text}")

    def fn(v):
        return _float_bits(convert_to_float(decode(v), dst_type.lower(), "int", {mode}), width)
    return Step(ins, alu([dest(ins.operands[0], width if width == 64 else 32)], [read], fn))


@semantics("F2I", family="conversion", pipe="mufu",
           mods=tuple(INTS) + tuple(FLOATS) + tuple(ROUNDING) + ("NTZ", "FTZ"),
           doc="float to integer: .TRUNC .FLOOR .CEIL or nearest-even, saturating; NaN as the PTX machine's cvt")
def f2i(ins):
    dst_type, src_type = _types(ins, "S32", "F32")
    if dst_type not in INTS or src_type not in FLOATS:
        raise Unsupported("conversion types")
    rounding = next((ROUNDING[m] for m in ins.mods if m in ROUNDING), "rni")
    read, decode_source = _read_float(ins.operands[1], src_type)
    dtype, width = INTS[dst_type]
    nan_top_bit = src_type == "F64" or width == 64

    def fn(v):
        x = decode_source(v)
        if "FTZ" in ins.mods and src_type == "F32":
            x = flush_subnormal(x, F32)
        return _store_int(float_to_int(x, rounding, dtype, nan_top_bit), dst_type)
    return Step(ins, alu([dest(ins.operands[0], 64 if width == 64 else 32)], [read], fn))


@semantics("I2I", family="conversion", pipe="mufu", mods=tuple(INTS) + ("SAT",),
           doc="integer to integer: wrapped, or clamped to the destination's range with .SAT (cvt.sat.s16.s32)")
def i2i(ins):
    dst_type, src_type = _types(ins, "S32", "S32")
    if dst_type not in INTS or src_type not in INTS or INTS[src_type][1] != 32 or INTS[dst_type][1] == 64:
        raise Unsupported("conversion types")
    read, decode_source = _read_int(ins.operands[1], src_type)
    dtype, saturate = INTS[dst_type][0], "SAT" in ins.mods

    def fn(v):        # a narrow result is written extended by its type, as F2I writes one (not measured)
        return _store_int(int_to_int(decode_source(v), dtype, saturate), dst_type)
    return Step(ins, alu([dest(ins.operands[0])], [read], fn))


NARROW = {"F16": "f16", "BF16": "bf16"}                  # 16-bit results of F2FP
NARROW_FLAGS = {"RZ": "rz", "RM": "rm", "RP": "rp", "RELU": "relu", "SATFINITE": "satfinite"}


def _narrowing(ins, kind: str):
    """f32 bits -> the 16-bit result's bits, rounded as the PTX machine's cvt (semantics/conversion.py)."""
    flags = [NARROW_FLAGS[m] for m in ins.mods if m in NARROW_FLAGS]

    def narrow(v):
        x = np.atleast_1d(f32(v)).astype(np.float32)
        return np.asarray(convert_to_float(x, NARROW[kind], "f32", flags)).view(np.uint16).astype(U32)
    return narrow


FP8 = {"E4M3": "e4m3", "E5M2": "e5m2"}                   # 8-bit results of F2FP.PACK_AB_MERGE_C


def _fp8_pair(ins, kind: str):
    """`F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C Rd, Ra, Rb, Rc`: cvt.rn.satfinite.e4m3x2.f32's pair
    (a in the high byte, b in the low) in Rd's low half, and Rc's low half above it: ptxas builds a
    register of four fp8 (a wgmma A fragment, Triton's fp8 casts) from two such pairs."""
    if len(ins.operands) != 4 or "SATFINITE" not in ins.mods:
        raise Unsupported("operand form")
    flags = [NARROW_FLAGS[m] for m in ins.mods if m in NARROW_FLAGS]

    def narrow(v):
        x = np.atleast_1d(f32(v)).astype(np.float32)
        return np.asarray(convert_to_float(x, FP8[kind], "f32", flags)).view(np.uint8).astype(U32)

    def fn(a, b, c):
        return ((np.asarray(c, dtype=U32) & U32(0xFFFF)) << U32(16)) | (narrow(a) << U32(8)) | narrow(b)
    reads = [source(ins.operands[1], 32, floating=True), source(ins.operands[2], 32, floating=True),
             source(ins.operands[3])]
    return Step(ins, alu([dest(ins.operands[0])], reads, fn))


def _fp8_unpack(ins, kind: str):
    """`F2FP.F16.E4M3.UNPACK_B Rd, Ra[.H1]`: the two fp8 of Ra's low half (.H1: its high half) widened
    to an f16x2, the lower byte in the lower half (cvt.rn.f16x2.e4m3x2, exact: every e4m3 and e5m2
    value is an f16). ptxas widens mma.sync's fp8 fragments this way on sm_90, which has no fp8 HMMA."""
    if len(ins.operands) != 2 or "F16" not in ins.mods:
        raise Unsupported("operand form")
    src = normalized(ins.operands[1])
    if src.kind != "reg" or src.suffixes not in ((), ("H1",)):
        raise Unsupported(f"operand {src.text}")
    shift = U32(16 if src.suffixes == ("H1",) else 0)

    def widen(v):
        pair = np.ascontiguousarray((np.atleast_1d(np.asarray(v, dtype=U32)) >> shift) & U32(0xFFFF))
        halves = decode(pair.astype(np.uint16).view(np.uint8), FP8[kind]).astype(np.float16).view(np.uint16)
        return halves.reshape(-1, 2).astype(U32) @ np.array([1, 1 << 16], dtype=U32)
    return Step(ins, alu([dest(ins.operands[0])], [source(replace(src, suffixes=()))], widen))


@semantics("F2FP", family="conversion", pipe="alu",
           mods=("F16", "BF16", "F32", "PACK_AB", "MERGE_C", "PACK_AB_MERGE_C", "UNPACK_B") + tuple(FP8)
           + tuple(NARROW_FLAGS),
           doc="two f32 to a packed f16x2 (no type: f16) / bf16x2: a in the high half, b in the low "
               "(cvt.rn.f16x2.f32 d, a, b); .MERGE_C with RZ: one f16/bf16 in the low half, 0 above "
               "(cvt.rn.relu.f16.f32); .RZ .RM .RP round, .RELU clamps at 0; .E4M3/.E5M2 .PACK_AB_MERGE_C: "
               "an fp8 pair (cvt.rn.satfinite.e4m3x2.f32) in the low half, c's low half above; .E4M3/.E5M2 "
               ".UNPACK_B: a half's fp8 pair widened to f16x2 (cvt.rn.f16x2.e4m3x2); on the ALU pipe, not the XU "
               "(fifteenth batch: ncu counts none of 512K F2FP.F16 / .BF16 a SM on the XU, all on the ALU)")
def f2fp(ins):
    fp8 = [m for m in ins.mods if m in FP8]
    if "UNPACK_B" in ins.mods:
        if len(fp8) != 1:
            raise Unsupported("operand form")
        return _fp8_unpack(ins, fp8[0])
    if fp8 or "PACK_AB_MERGE_C" in ins.mods:
        if len(fp8) != 1 or "PACK_AB_MERGE_C" not in ins.mods:
            raise Unsupported("operand form")
        return _fp8_pair(ins, fp8[0])
    kinds = [m for m in ins.mods if m in NARROW] or ["F16"]      # sm_80 writes F2FP.PACK_AB for f16 from f32
    merge = "MERGE_C" in ins.mods
    if len(kinds) != 1 or merge == ("PACK_AB" in ins.mods) or len(ins.operands) != 3:
        raise Unsupported("operand form")
    if merge and not ins.operands[2].is_zero_register:          # what C's high half does is not modelled
        raise Unsupported(f"operand {ins.operands[2].text}")
    narrow = _narrowing(ins, kinds[0])
    if merge:
        return Step(ins, alu([dest(ins.operands[0])], [source(ins.operands[1], 32, floating=True)], narrow))
    a, b = (source(op, 32, floating=True) for op in ins.operands[1:])
    return Step(ins, alu([dest(ins.operands[0])], [a, b], lambda x, y: (narrow(x) << U32(16)) | narrow(y)))


@semantics("F2F", family="conversion", pipe="mufu", mods=tuple(FLOATS) + tuple(ROUND_FLOAT) + ("FTZ",),
           doc="float to float (f16 bf16 f32 f64): widening exact, narrowing rounded (default to nearest) as cvt")
def f2f(ins):
    dst_type, src_type = _types(ins, "F32", "F32")
    if dst_type not in FLOATS or src_type not in FLOATS:
        raise Unsupported("conversion types")
    mode = next((ROUND_FLOAT[m] for m in ins.mods if m in ROUND_FLOAT), "rn")
    src, dst = src_type.lower(), dst_type.lower()
    ftz, width = "FTZ" in ins.mods, FLOATS[dst_type]
    read = source(ins.operands[1], 64 if src == "f64" else 32, floating=True)

    def fn(v):
        """cvt's conversion (NaN payloads as an H200 keeps them); .FTZ flushes the operand in its
        format and the result in its own."""
        x = _REGISTER[src](v)
        if ftz:
            x = flush_subnormal(x, FORMATS[src])
        y = x if src == dst == "f64" else np.asarray(convert_to_float(x, dst, src, {mode}))   # NaNs untouched
        return _float_bits(flush_subnormal(y, FORMATS[dst]) if ftz else y, width)
    return Step(ins, alu([dest(ins.operands[0], 64 if width == 64 else 32)], [read], fn))


@semantics("FRND", family="conversion", pipe="mufu", mods=("F16", "BF16", "F32", "F64", "FTZ") + tuple(ROUNDING),
           doc="round to an integral float: .TRUNC .FLOOR .CEIL or nearest-even (cvt.rXi.f32.f32); "
               ".F16/.BF16 round a register's low half (.H1: its high half) into the low half, 0 above "
               "(cvt.rni.f16.f16, hrint/h2rint)")
def frnd(ins):
    kinds = [m.lower() for m in ins.mods if m in FLOATS]
    if len(kinds) > 1:
        raise Unsupported("two FRND types")
    kind = kinds[0] if kinds else "f32"
    width = FLOATS[kind.upper()]
    flags = {next((ROUNDING[m] for m in ins.mods if m in ROUNDING), "rni")} | ({"ftz"} if "FTZ" in ins.mods else set())
    if width == 16:
        return _frnd_half(ins, kind, flags)

    def fn(v):
        return _float_bits(convert_to_float(_REGISTER[kind](v), kind, kind, flags), width)
    return Step(ins, alu([dest(ins.operands[0], width)], [source(ins.operands[1], width, floating=True)], fn))


def _frnd_half(ins, kind: str, flags):
    """FRND.F16 / FRND.BF16 Rd, Ra[.H1]: one half of Ra (ptxas's h2rint is two of these, one per half,
    joined by a PRMT) rounded to an integral value as the PTX machine's cvt.rXi.f16.f16; the result
    in Rd's low half, the high half 0 (ptxas reads only the low half back)."""
    if "FTZ" in ins.mods or len(ins.operands) != 2:
        raise Unsupported("operand form")
    src = normalized(ins.operands[1])
    if src.kind != "reg" or src.suffixes not in ((), ("H0",), ("H1",)) or src.negate or src.absolute:
        raise Unsupported(f"operand {src.text}")
    shift = U32(16 if src.suffixes == ("H1",) else 0)
    read = source(replace(src, suffixes=()))

    def fn(v):
        half = (np.atleast_1d(np.asarray(v, dtype=U32)) >> shift) & U32(0xFFFF)
        return _float_bits(convert_to_float(_REGISTER[kind](half), kind, kind, flags), 16)
    return Step(ins, alu([dest(ins.operands[0])], [read], fn))


PACK_TYPES = {"U16": "u16", "S16": "s16", "U8": "u8", "S8": "s8", "U4": "u4", "S4": "s4", "U2": "u2", "S2": "s2"}


@semantics("I2IP", family="conversion", pipe="mufu", mods=tuple(PACK_TYPES) + ("S32", "SAT"),
           doc="two s32 saturated to a narrow integer type and packed, b lowest, then a, then c's low bits "
               "(cvt.pack.sat; c's suffix, .24 on I2IP.U4, says how many of its bits fit)")
def i2ip(ins):
    kinds = [PACK_TYPES[m] for m in ins.mods if m in PACK_TYPES]
    if len(kinds) != 1 or "SAT" not in ins.mods or len(ins.operands) != 4:
        raise Unsupported("operand form")
    bits = 2 * int(kinds[0][1:])
    c = ins.operands[3]
    if c.suffixes not in ((), (str(32 - bits),)):
        raise Unsupported(f"operand {c.text}")
    readers = [source(op) for op in ins.operands[1:3]] + [source(replace(c, suffixes=()))]
    wide = bits == 32                                   # .U16/.S16: c is RZ, nothing of it fits
    return Step(ins, alu([dest(ins.operands[0])], readers,
                         lambda a, b, c: pack_saturated(kinds[0], a, b, None if wide else c)))
