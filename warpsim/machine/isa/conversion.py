"""cvt: conversions between every integer and float type of PTX.

Where PTX differs from NumPy:
- float -> int rounds by .rni/.rzi/.rmi/.rpi, then always saturates to the
  destination's range (NumPy's out-of-range casts are undefined); NaN gives 0,
  or 0x80..0 from f64 sources and into 64-bit integers, as an H200 does;
- int -> int truncates or extends by the source's signedness, and .sat clamps;
- int -> float and narrowing float -> float round exactly under .rn/.rz/.rm/.rp
  (NumPy: nearest only, and 64-bit integers may round twice), see floatbits;
- packing forms: cvt.rn.f16x2.f32 d, a, b puts a in the upper half and b in the
  lower one (so do bf16x2 and the fp8 pairs e4m3x2/e5m2x2); cvt.pack.sat clamps
  two s32 to a narrow integer type and packs them the same way, b lowest, then
  a, then (for the 2/4/8-bit types) the low bits of c in the rest of the word;
- .ftz flushes subnormal f32 sources and results (an H200 ignores it when
  converting to f16); .sat on a float destination clamps to [0, 1] (NaN -> 0);
  .relu clamps negatives to 0; .satfinite turns infinities and overflow into
  the largest finite value;
- NaN results are canonical (0x7fffffff, 0x7fff) except where the GPU keeps
  payloads: see the NaN encodings section.
"""

from __future__ import annotations

import numpy as np

from ...ptx.types import TYPES
from ...semantics.conversion import INT_ROUNDING, float_to_int
from ...semantics.floatbits import (F32, FORMATS, bf16_to_f32, decode, encode, flush_subnormal,
                                    round_integers, round_to)
from .floating import quietly
from .table import Signature, value_op

FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
INTS = frozenset({"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
                  "b8", "b16", "b32", "b64"})
FLOAT_ROUNDING = {"rn", "rz", "rm", "rp", "rna"}
FP8 = {"e4m3x2": "e4m3", "e5m2x2": "e5m2"}
PAIRS = {"f16x2": "f16", "bf16x2": "bf16", **FP8}

# Float conversions that never lose anything (no rounding modifier needed).
WIDENING = {("f32", "f16"), ("f64", "f16"), ("f32", "bf16"), ("f64", "bf16"), ("f64", "f32")}


def _kind(t: str) -> str:
    if t in INTS:
        return "int"
    if t in FLOATS:
        return "float"
    return t


def _forms(dst: str, src: str, n_srcs: int):
    """The (dst, src) pairs cvt accepts, with the number of sources each takes."""
    if _kind(dst) in ("int", "float") and _kind(src) in ("int", "float"):
        return n_srcs == 1
    if dst in ("f16x2", "bf16x2") and src == "f32":
        return n_srcs == 2
    if dst in FP8 and src == "f32":
        return n_srcs == 2
    if dst in FP8 and src == "f16x2" or dst == "f16x2" and src in FP8:
        return n_srcs == 1
    if dst == "tf32" and src == "f32":
        return n_srcs == 1
    return False


def _check_cvt(ins):
    if "pack" in ins.flags:
        return _check_pack(ins)
    if len(ins.types) != 2:
        return f"cvt takes a destination and a source type, got {ins.types or 'none'}"
    dst, src = ins.types
    if not _forms(dst, src, len(ins.srcs)):
        return f"cvt.{dst}.{src} with {len(ins.srcs)} source(s) is not supported"
    flags = ins.flags
    known = FLOAT_ROUNDING | set(INT_ROUNDING) | {"sat", "ftz", "relu", "satfinite"}
    if flags - known:
        return f"modifier(s) {', '.join('.' + m for m in sorted(flags - known))} not supported on cvt"
    rounding = flags & (FLOAT_ROUNDING | set(INT_ROUNDING))
    if len(rounding) > 1:
        return "more than one rounding modifier"
    if "ftz" in flags and ("f32" not in (dst, src) or dst in PAIRS or dst == "tf32"):
        return ".ftz applies only to .f32 sources or destinations (not packed or tf32 ones)"
    if flags & {"relu", "satfinite"} and dst not in ("f16", "bf16", "tf32") and dst not in PAIRS:
        return ".relu/.satfinite apply only to f16, bf16, tf32 and packed destinations"
    if dst in FP8 and "satfinite" not in flags:
        return f"cvt to .{dst} needs .satfinite"
    if "rna" in flags and dst != "tf32":
        return ".rna exists only for cvt.rna.tf32.f32"
    kinds = _kind(dst), _kind(src)
    if kinds == ("int", "float") and not flags & set(INT_ROUNDING):
        return "float-to-integer cvt needs .rni, .rzi, .rmi or .rpi"
    if kinds[1] == "int" and flags & set(INT_ROUNDING):
        return "integer rounding modifiers need a float source"
    if kinds[0] == "int" and flags & FLOAT_ROUNDING:
        return "float rounding modifiers need a float destination"
    narrowing = kinds == ("float", "float") and dst != src and (dst, src) not in WIDENING
    if (narrowing or dst in PAIRS or dst == "tf32") and not rounding:
        return f"cvt.{dst}.{src} loses precision and needs a rounding modifier"
    if kinds == ("float", "float") and dst != src and flags & set(INT_ROUNDING):
        return "integer rounding of a float needs the same source and destination type"
    if (dst, src) in WIDENING and rounding:
        return f"cvt.{dst}.{src} is exact and takes no rounding modifier"
    if "bf16" in (dst, src) and {dst, src} & {"u8", "s8", "b8"}:
        return "cvt has no conversion between bf16 and 8-bit integers"
    return None


def _cvt_signature(ins) -> Signature:
    if "pack" in ins.flags:
        return Signature(("b32",), ("s32", "s32", "b32")[:len(ins.srcs)])
    dst, src = ins.types[0], ins.types[1]
    return Signature((dst,), (src,) * len(ins.srcs))


# --------------------------------------------------------------- int <-> int

def _int_to_int(ins, values, dst: str, src: str):
    """Wrap (truncate / sign- or zero-extend by the source type), or clamp with .sat."""
    values = np.asarray(values)
    target = TYPES[dst].dtype if TYPES[dst].kind != "b" else TYPES[dst].storage
    if "sat" in ins.flags:
        source_range, target_range = np.iinfo(values.dtype), np.iinfo(target)
        low = max(source_range.min, target_range.min)
        high = min(source_range.max, target_range.max)
        values = np.clip(values, values.dtype.type(low), values.dtype.type(high))
    return values.astype(target)


# ------------------------------------------------------------- float -> int

def _float_to_int(ins, x, dst: str, src: str):
    """Round to an integer by the .rXi mode, then saturate (semantics/conversion.py)."""
    (rounding,) = ins.flags & set(INT_ROUNDING)
    dtype = TYPES[dst].storage if TYPES[dst].kind == "b" else TYPES[dst].dtype
    return float_to_int(x, rounding, dtype, nan_top_bit=src == "f64" or TYPES[dst].bits == 64)


# ------------------------------------------------------------ to a float type

def _float_mode(flags) -> str:
    found = flags & FLOAT_ROUNDING
    return next(iter(found)) if found else "rn"


def _finish_float(flags, rounded, dst: str):
    """Apply .ftz/.sat/.relu/.satfinite to exactly rounded values and encode."""
    fmt = FORMATS[dst]
    if "ftz" in flags and dst == "f32":
        rounded = flush_subnormal(rounded, F32)
    if "sat" in flags:
        rounded = np.where(np.isnan(rounded), 0.0, np.clip(rounded, 0.0, 1.0)) + 0.0
    if "relu" in flags:
        rounded = np.where(rounded < 0, 0.0, rounded) + 0.0
    if "satfinite" in flags:
        rounded = np.clip(rounded, -fmt.max_finite, fmt.max_finite)   # NaN stays NaN
    return encode(rounded, dst)


def convert_to_float(values, dst: str, src: str, flags=frozenset()):
    """cvt of `values` (of type src) to float type dst under `flags` ('rz', 'relu', ...), rounded once:
    PTX's cvt and the SASS executor's F2FP and F2F."""
    flags = frozenset(flags)
    if flags <= {"rn"}:
        fast = _nearest_by_numpy(values, dst, src)
        if fast is not None:
            return fast
    fmt = FORMATS[dst]
    if _kind(src) == "int":
        storage = TYPES[src].storage if TYPES[src].kind == "b" else TYPES[src].dtype
        return _finish_float(flags, round_integers(np.asarray(values).astype(storage), fmt,
                                                   _float_mode(flags)), dst)
    if dst == "tf32" and "rna" in flags:
        return _tf32_rna(flags, values)
    if (dst, src) == ("f32", "bf16") and not flags:
        return bf16_to_f32(values)                 # a shift: NaN payloads kept as they are
    x = _decoded(flags, values, src, dst)
    integer_rounding = flags & set(INT_ROUNDING)
    if integer_rounding:                           # cvt.rni.f32.f32 and kin: round to integral
        x = INT_ROUNDING[next(iter(integer_rounding))](x)
        out = _finish_float(flags, round_to(x, fmt, "rn"), dst)
    else:
        out = _finish_float(flags, round_to(x, fmt, _float_mode(flags)), dst)
    return _nan_as_gpu(out, values, dst, src, ftz="ftz" in flags)


def _nearest_by_numpy(values, dst: str, src: str):
    """The common round-to-nearest conversions NumPy's casts already do with
    one correct rounding (C casts from <= 32-bit ints, f64 -> f32), and
    f32 -> bf16 on the bits; None for everything else."""
    values = np.asarray(values)
    if _kind(src) == "int" and TYPES[src].bits <= 32 and dst in ("f32", "f64"):
        return values.astype(TYPES[dst].dtype)
    if (dst, src) == ("f32", "f64"):
        out = values.astype(np.float32)
        return _nan_as_gpu(out, values, dst, src, ftz=False) if np.isnan(out).any() else out
    if (dst, src) == ("bf16", "f32"):
        bits = values.view(np.uint32)
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
        return np.where(np.isnan(values), np.uint32(0x7FFF), rounded).astype(np.uint16)
    return None


def _decoded(flags, values, src: str, dst: str = ""):
    """A float source as float64, subnormal f32 flushed under .ftz (which an
    H200 ignores when converting to f16, but not to bf16)."""
    x = decode(values, src)
    if "ftz" in flags and src == "f32" and dst != "f16":
        x = flush_subnormal(x, F32)
    return x


# ------------------------------------------------------------- NaN encodings
# encode() writes the canonical NaN (0x7fffffff, 0x7fff); these are the
# conversions where an H200 writes something else.

_MANTISSA_BITS = {"f16": 10, "bf16": 7, "f32": 23, "tf32": 23, "f64": 52}


def _nan_as_gpu(out, values, dst: str, src: str, ftz: bool):
    """Replace the canonical NaNs in `out` where the GPU writes other bits."""
    if dst == "f64":
        if src == "f32" and ftz:                   # the f32 canonical NaN, widened
            nan_bits = np.uint64(0x7FFFFFFFE0000000)
        else:                                      # quieted, payload kept
            nan_bits = _widened_nan(values, src)
    elif src == "f64" and dst in ("f32", "f16", "bf16"):
        nan_bits = _narrowed_nan(values, dst)      # quieted, sign and top payload bits kept
    elif dst == "tf32":
        nan_bits = np.uint32(0x7FFFE000)
    else:
        return out
    nan = np.isnan(decode(out, dst))
    if not nan.any():
        return out
    bits = out.view(TYPES[dst].storage) if out.dtype.kind == "f" else out
    return np.where(nan, np.asarray(nan_bits).astype(bits.dtype), bits).view(out.dtype)


def _widened_nan(values, src: str):
    """Into f64: quieted, sign and payload kept (F2F.F64 from f32/f16/bf16)."""
    bits = np.asarray(values).view(TYPES[src].storage).astype(np.uint64) if src != "bf16" \
        else np.asarray(values).astype(np.uint64)
    width, mantissa = TYPES[src].bits, _MANTISSA_BITS[src]
    sign = (bits >> np.uint64(width - 1)) << np.uint64(63)
    payload = (bits & np.uint64((1 << mantissa) - 1)) << np.uint64(52 - mantissa)
    return sign | np.uint64(0x7FF8000000000000) | payload


def _narrowed_nan(values, dst: str):
    """From f64: quieted, sign and the top of the payload kept."""
    bits = np.asarray(values, dtype=np.float64).view(np.uint64)
    width, mantissa = TYPES[dst].bits, _MANTISSA_BITS[dst]
    sign = (bits >> np.uint64(63)) << np.uint64(width - 1)
    exponent = ((1 << (width - 1)) - 1) ^ ((1 << mantissa) - 1)
    quiet = 1 << (mantissa - 1)
    payload = (bits & np.uint64((1 << 52) - 1)) >> np.uint64(52 - mantissa)
    return sign | np.uint64(exponent | quiet) | payload


def _tf32_rna(flags, values):
    """cvt.rna.tf32.f32 works on the bits as an integer, as on an H200: add half
    an ulp to the magnitude (NaNs: nothing) and clear the low 13 bits, so NaN
    payloads survive truncated. .satfinite then steps anything at or above
    infinity down one ulp (which leaves NaNs NaN)."""
    bits = np.asarray(values).view(np.uint32)
    sign = bits & np.uint32(0x80000000)
    magnitude = bits & np.uint32(0x7FFFFFFF)
    nan = magnitude > np.uint32(0x7F800000)
    magnitude = np.where(nan, magnitude, magnitude + np.uint32(0x1000)) & np.uint32(0x7FFFE000)
    if "satfinite" in flags:
        too_big = magnitude >= np.uint32(0x7F800000)
        magnitude = np.where(too_big, magnitude - np.uint32(0x2000), magnitude)
    return sign | magnitude


# ------------------------------------------------------------------ packing

def _pack(high, low, element_bits: int, dtype):
    """Two elements' bits -> one word: `high` above `low`."""
    wide = np.dtype(dtype).type
    bits = {16: np.uint16, 8: np.uint8}[element_bits]
    high = np.asarray(high).view(bits).astype(dtype)
    low = np.asarray(low).view(bits).astype(dtype)
    return (high << wide(element_bits)) | low


def _unpack(word, element_bits: int):
    """A word -> (element 0 from the low bits, element 1 from the high bits)."""
    word = np.asarray(word)
    mask = word.dtype.type((1 << element_bits) - 1)
    bits = {16: np.uint16, 8: np.uint8}[element_bits]
    return (word & mask).astype(bits), (word >> word.dtype.type(element_bits)).astype(bits)


def _element_bits(values, t: str):
    """An element of a pair as the bits decode() expects for its type."""
    return values.view(np.float16) if t == "f16" else values


def _convert_pair(ins, dst: str, src: str, sources):
    dst_elem = PAIRS.get(dst, dst)
    word = TYPES[dst].storage
    size = 8 if dst in FP8 else 16
    if len(sources) == 2:                           # d = {cvt(a) high, cvt(b) low}
        a, b = (convert_to_float(s, dst_elem, src, ins.flags) for s in sources)
        return _pack(a, b, size, word)
    src_elem = PAIRS[src]
    low, high = _unpack(sources[0], 8 if src in FP8 else 16)
    low, high = (convert_to_float(_element_bits(h, src_elem), dst_elem, src_elem, ins.flags)
                 for h in (low, high))
    return _pack(high, low, size, word)


# ------------------------------------------------- cvt.pack.sat (integers)

# convertType -> (bits, signed). .u16/.s16/.u8/.s8 are PTX types; .u4/.s4/.u2/.s2 exist only
# here, so the parser reads them as modifiers.
PACK_TARGETS = {"u16": (16, False), "s16": (16, True), "u8": (8, False), "s8": (8, True),
                "u4": (4, False), "s4": (4, True), "u2": (2, False), "s2": (2, True)}


def _pack_target(ins):
    """The convertType of cvt.pack.sat: the first type, or a .u4/.s4/.u2/.s2 modifier."""
    named = [m for m in ins.flags if m in ("u4", "s4", "u2", "s2")]
    if named:
        return named[0] if len(named) == 1 else None
    return ins.types[0] if ins.types and ins.types[0] in PACK_TARGETS else None


def _check_pack(ins):
    target = _pack_target(ins)
    if target is None:
        return "cvt.pack takes .convertType.s32 (u16, s16) or .convertType.s32.b32 (u8, s8, u4, s4, u2, s2)"
    sources = [t for t in ins.types if t != target]
    wide = PACK_TARGETS[target][0] == 16
    if sources != (["s32"] if wide else ["s32", "b32"]):
        return (f"cvt.pack.sat.{target} takes {'.s32' if wide else '.s32.b32'}, "
                f"got {'.'.join(sources)}")
    if len(ins.srcs) != (2 if wide else 3):
        return f"cvt.pack.sat.{target} takes {2 if wide else 3} sources (a, b{'' if wide else ', c'})"
    extra = ins.flags - {"pack", "sat", target}
    if "sat" not in ins.flags or extra:
        return "cvt.pack needs .sat and takes no other modifier"
    return None


def pack_saturated(target: str, a, b, c=None) -> np.ndarray:
    """cvt.pack.sat.<target>: c's low bits above clamp(a) above clamp(b), b in the lowest bits
    (the PTX ISA's pseudocode; every form matched on an H200). Also SASS I2IP's meaning."""
    bits, signed = PACK_TARGETS[target]
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    field = (1 << bits) - 1
    a, b = (np.clip(np.asarray(v).astype(np.int32).astype(np.int64), low, high) & field for v in (a, b))
    word = (a << bits) | b
    if c is not None:
        word = word | (np.asarray(c).astype(np.int64) << (2 * bits))
    return (word & 0xFFFFFFFF).astype(np.uint32)


def _pack_saturated(ins, *sources):
    return pack_saturated(_pack_target(ins), *sources)


# --------------------------------------------------------------------- cvt

def _cvt(ins, *sources):
    if "pack" in ins.flags:
        return _pack_saturated(ins, *sources)
    dst, src = ins.types[0], ins.types[1]
    if dst in PAIRS or src in PAIRS:
        return _convert_pair(ins, dst, src, sources)
    (values,) = sources
    kinds = _kind(dst), _kind(src)
    if kinds == ("int", "int"):
        return _int_to_int(ins, values, dst, src)
    if kinds == ("int", "float"):
        return _float_to_int(ins, _decoded(ins.flags, values, src), dst, src)
    return convert_to_float(values, dst, src, ins.flags)


value_op("cvt", family="conversion", signature=_cvt_signature, check=_check_cvt,
         pipe="alu")(quietly(_cvt))
# conversions to or from f64 issue to the FP64 pipe
value_op("cvt", family="conversion", signature=_cvt_signature, check=_check_cvt,
         pipe="fp64", types={"f64"})(quietly(_cvt))
