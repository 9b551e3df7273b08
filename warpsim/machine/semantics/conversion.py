"""cvt: conversions between every integer and float type of PTX.

Where PTX differs from NumPy:
- float -> int always saturates to the destination's range and NaN gives 0
  (NumPy's casts of out-of-range floats are undefined); .rni/.rzi/.rmi/.rpi
  pick how the value is rounded to an integer first;
- int -> int truncates or extends by the source's signedness, and .sat clamps;
- int -> float and narrowing float -> float round exactly under .rn/.rz/.rm/.rp
  (NumPy: nearest only, and int64 -> float32 may round twice through float64),
  see floatbits.round_to / round_integers;
- NaN results are canonical (0x7fffffff for f32, 0x7fff for f16/bf16);
- packing forms: cvt.rn.f16x2.f32 d, a, b puts a in the upper half and b in the
  lower one (so do bf16x2 and the fp8 pairs e4m3x2/e5m2x2);
- .ftz flushes subnormal f32 sources and results; .sat on a float destination
  clamps to [0, 1] (NaN -> 0); .relu clamps negatives to 0; .satfinite turns
  infinities and overflow into the largest finite value.
"""

from __future__ import annotations

import numpy as np

from ...ptx.types import TYPES
from .floatbits import (F32, FORMATS, decode, encode, flush_subnormal, round_integers,
                        round_to)
from .registry import Signature, value_op

FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
INTS = frozenset({"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
                  "b8", "b16", "b32", "b64"})
FLOAT_ROUNDING = {"rn", "rz", "rm", "rp", "rna"}
INT_ROUNDING = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
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
    if "ftz" in flags and "f32" not in (dst, src):
        return ".ftz applies only when the source or destination is .f32"
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
    return None


def _cvt_signature(ins) -> Signature:
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

def _float_to_int(ins, x, dst: str):
    """Round to an integer by the .rXi mode, then saturate; NaN -> 0 (PTX)."""
    (rounding,) = ins.flags & set(INT_ROUNDING)
    r = INT_ROUNDING[rounding](x)
    info = np.iinfo(TYPES[dst].storage if TYPES[dst].kind == "b" else TYPES[dst].dtype)
    over = r >= float(info.max) + 1.0          # max + 1 is a power of two: exact in f64
    under = r < float(info.min)
    safe = np.where(over | under | np.isnan(r), 0.0, r)
    wide = safe.astype(np.int64 if info.min < 0 else np.uint64)
    wide = np.where(over, wide.dtype.type(info.max), np.where(under, wide.dtype.type(info.min), wide))
    return wide.astype(info.dtype)


# ------------------------------------------------------------ to a float type

def _float_mode(ins) -> str:
    found = ins.flags & FLOAT_ROUNDING
    return next(iter(found)) if found else "rn"


def _finish_float(ins, rounded, dst: str):
    """Apply .ftz/.sat/.relu/.satfinite to exactly rounded values and encode."""
    flags = ins.flags
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


def _to_float(ins, values, dst: str, src: str):
    """Any int or float source to a float format, rounded once."""
    fmt = FORMATS[dst]
    if _kind(src) == "int":
        storage = TYPES[src].storage if TYPES[src].kind == "b" else TYPES[src].dtype
        return _finish_float(ins, round_integers(np.asarray(values).astype(storage), fmt,
                                                 _float_mode(ins)), dst)
    x = _decoded(ins, values, src)
    integer_rounding = ins.flags & set(INT_ROUNDING)
    if integer_rounding:                           # cvt.rni.f32.f32 and kin: round to integral
        x = INT_ROUNDING[next(iter(integer_rounding))](x)
        return _finish_float(ins, round_to(x, fmt, "rn"), dst)
    return _finish_float(ins, round_to(x, fmt, _float_mode(ins)), dst)


def _decoded(ins, values, src: str):
    """A float source as float64, subnormal f32 flushed under .ftz."""
    x = decode(values, src)
    if "ftz" in ins.flags and src == "f32":
        x = flush_subnormal(x, F32)
    return x


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
        a, b = (_to_float(ins, s, dst_elem, src) for s in sources)
        return _pack(a, b, size, word)
    src_elem = PAIRS[src]
    low, high = _unpack(sources[0], 8 if src in FP8 else 16)
    low, high = (_to_float(ins, _element_bits(h, src_elem), dst_elem, src_elem)
                 for h in (low, high))
    return _pack(high, low, size, word)


# --------------------------------------------------------------------- cvt

def _cvt(ins, *sources):
    dst, src = ins.types[0], ins.types[1]
    if dst in PAIRS or src in PAIRS:
        return _convert_pair(ins, dst, src, sources)
    (values,) = sources
    kinds = _kind(dst), _kind(src)
    if kinds == ("int", "int"):
        return _int_to_int(ins, values, dst, src)
    if kinds == ("int", "float"):
        return _float_to_int(ins, _decoded(ins, values, src), dst)
    return _to_float(ins, values, dst, src)


value_op("cvt", family="conversion", signature=_cvt_signature, check=_check_cvt,
         pipe="alu")(_cvt)
# conversions to or from f64 issue to the FP64 pipe
value_op("cvt", family="conversion", signature=_cvt_signature, check=_check_cvt,
         pipe="fp64", types={"f64"})(_cvt)
