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
  payloads: see the NaN encodings of semantics/conversion.py, where the
  conversion to a float type lives (this module decodes cvt and calls it).
"""

from __future__ import annotations

import numpy as np

from ...ptx.types import TYPES
from ...semantics.conversion import (FLOAT_ROUNDING, INT_ROUNDING, PACK_TARGETS, convert_to_float, float_to_int,
                                     int_to_int, pack_saturated, read_float)
from .floating import quietly
from .table import Signature, value_op

FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
INTS = frozenset({"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
                  "b8", "b16", "b32", "b64"})
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
    return None


def _cvt_signature(ins) -> Signature:
    if "pack" in ins.flags:
        return Signature(("b32",), ("s32", "s32", "b32")[:len(ins.srcs)])
    dst, src = ins.types[0], ins.types[1]
    return Signature((dst,), (src,) * len(ins.srcs))


# --------------------------------------------------------------- int <-> int

def _int_to_int(ins, values, dst: str, src: str):
    """Wrap (truncate / sign- or zero-extend by the source type), or clamp with .sat."""
    return int_to_int(values, _storage(dst), "sat" in ins.flags)


# ------------------------------------------------------------- float -> int

def _float_to_int(ins, x, dst: str, src: str):
    """Round to an integer by the .rXi mode, then saturate (semantics/conversion.py)."""
    (rounding,) = ins.flags & set(INT_ROUNDING)
    return float_to_int(x, rounding, _storage(dst), nan_top_bit=src == "f64" or TYPES[dst].bits == 64)


def _storage(t: str):
    """The NumPy dtype of an integer type's values (.bN: unsigned)."""
    return TYPES[t].storage if TYPES[t].kind == "b" else TYPES[t].dtype


# ------------------------------------------------------------ to a float type

def _to_float(ins, values, dst: str, src: str):
    """cvt to a float type: semantics/conversion.convert_to_float on plain format names, an
    integer source cast to its storage and named "int"."""
    if _kind(src) == "int":
        values, src = np.asarray(values).astype(_storage(src), copy=False), "int"
    return convert_to_float(values, dst, src, ins.flags)


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
    low, high = (convert_to_float(_element_bits(h, src_elem), dst_elem, src_elem, ins.flags)
                 for h in (low, high))
    return _pack(high, low, size, word)


# ------------------------------------------------- cvt.pack.sat (integers)

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
        return _float_to_int(ins, read_float(ins.flags, values, src), dst, src)
    return _to_float(ins, values, dst, src)


_quiet_cvt = quietly(_cvt)
_INTEGER_TYPES = frozenset(f"{kind}{bits}" for kind in "us" for bits in (8, 16, 32, 64))


def _cvt_warning_free(ins, *sources):
    """cvt under quietly's errstate, except an integer-to-integer conversion of per-lane values,
    which raises no floating-point warning (the errstate costs more than the conversion)."""
    types = ins.types
    if (len(types) == 2 and types[0] in _INTEGER_TYPES and types[1] in _INTEGER_TYPES
            and "pack" not in ins.flags and len(sources) == 1 and type(sources[0]) is np.ndarray
            and sources[0].ndim):
        return _cvt(ins, *sources)
    return _quiet_cvt(ins, *sources)


value_op("cvt", family="conversion", signature=_cvt_signature, check=_check_cvt,
         pipe="alu")(_cvt_warning_free)
# conversions to or from f64 issue to the FP64 pipe
value_op("cvt", family="conversion", signature=_cvt_signature, check=_check_cvt,
         pipe="fp64", types={"f64"})(_quiet_cvt)
