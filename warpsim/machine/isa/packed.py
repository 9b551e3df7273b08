"""SIMD-within-a-register integer instructions.

The 16x2 forms (add, sub, min, max on .u16x2/.s16x2, sm_90) and the video
instructions NVVM emits for CUDA's __v*2/__v*4 intrinsics (vadd4, vsub4,
vavrg4, vabsdiff4, vmin4, vmax4 and their 2-lane forms). A 32-bit register is
viewed as its lanes (little-endian: lane 0 in the low bits), the operation
runs per lane, and the lanes are packed back.
"""

from __future__ import annotations

import numpy as np

from ...semantics import integer as bits
from ...semantics.integer import accumulate_lanes, pack_lanes as pack, word_lanes as lanes
from .table import Signature, same_type, value_op

PACKED_TYPES = frozenset({"u16x2", "s16x2"})


def _check_16x2(ins):
    extra = ins.flags - ({"relu"} if ins.opcode in ("min", "max") and ins.type == "s16x2" else set())
    return f"modifiers {sorted(extra)} not supported on {ins.opcode}.{ins.type}" if extra else None


@value_op("add", "sub", "min", "max", family="packed", signature=same_type, types=PACKED_TYPES,
          check=_check_16x2)
def sixteen_by_two(ins, a, b):
    """Per 16-bit lane: add/sub wrap; min/max by the lane type; .relu clamps at 0."""
    signed = ins.type == "s16x2"
    if ins.opcode in ("min", "max"):
        out = bits.packed_min_max(a, b, ins.opcode == "min", 16, signed, "relu" in ins.flags)
    else:
        out = bits.packed_sum(a, b, 16, ins.opcode == "sub")
    return out if np.ndim(a) or np.ndim(b) else out[0]


# ---------------------------------------------------------------- video instructions

VIDEO_OPS = {
    "add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
    "absdiff": None,                                    # semantics.integer.lane_absolute_differences
    "avrg": lambda x, y: (x + y + 1) >> 1,              # rounds half up, as PTX says
}


def _video_signature(ins) -> Signature:
    return Signature(("b32",), ("b32", "b32", "b32"))


def _check_video(ins):
    types = ins.types
    if len(types) != 3 or any(t not in ("u32", "s32") for t in types):
        return "video instructions take .dtype.atype.btype, each .u32 or .s32"
    extra = ins.flags - {"sat", "add"}
    if extra:
        return f"modifiers {sorted(extra)} (lane selectors, masks) are not supported"
    return None


def _video(width: int):
    def compute(ins, a, b, c):
        """d = per-lane op (saturated if .sat, else wrapped), or c + the lanes' sum with .add."""
        name = ins.opcode[1:-1]
        dtype, atype, btype = ins.types
        if name == "absdiff":                           # the rule SASS's VABSDIFF4 shares
            result = bits.lane_absolute_differences(a, b, width, atype == "s32", btype == "s32")
        else:
            result = VIDEO_OPS[name](lanes(a, width, atype == "s32"), lanes(b, width, btype == "s32"))
        if "add" in ins.flags:
            out = accumulate_lanes(c, result)
        else:
            if "sat" in ins.flags:
                lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if dtype == "s32" else (0, (1 << width) - 1)
                result = np.clip(result, lo, hi)
            out = pack(result, width)
        return out if np.ndim(a) or np.ndim(b) else out[0]
    return compute


for _name in VIDEO_OPS:
    value_op(f"v{_name}4", family="packed", signature=_video_signature, check=_check_video)(_video(8))
    value_op(f"v{_name}2", family="packed", signature=_video_signature, check=_check_video)(_video(16))


# ---------------------------------------------------------------- scalar video instructions
# vop.dtype.atype.btype{.sat}{.op2} d, a, b{, c}: the operation on a and b read as 32-bit words of
# their types, in 34 bits, clamped to dtype's range with .sat (else its low 32 bits read as dtype),
# then the secondary operation with c (.add, .min, .max, c read as dtype), the result's low 32 bits:
# as ptxas lowers them (tests/sass/test_executor_simd_and_bmov.py runs its SASS beside). vshl/vshr
# take the amount as .u32, clamped at 32 (.clamp) or taken modulo 32 (.wrap); vset compares (.eq .ne
# .lt .le .gt .ge) to 1 or 0. The PTX ISA's byte and half-word selectors (a.b0, d.h1) and vmad are not supported.
# An H100 gives vshr.u32.u32.u32.clamp.add (0xF0F0F00F, 5, 3) = 0x07878783 (CUB's SHR_ADD).

SCALAR_VIDEO = {
    "vadd": lambda x, y: x + y, "vsub": lambda x, y: x - y, "vabsdiff": lambda x, y: np.abs(x - y),
    "vmin": np.minimum, "vmax": np.maximum,
}
VIDEO_SHIFTS = ("vshl", "vshr")
VIDEO_COMPARES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                  "gt": np.greater, "ge": np.greater_equal}
SECONDARY = {"add": lambda t, c: t + c, "min": np.minimum, "max": np.maximum}
# the intermediate's width: ptxas's vshl.sat keeps bits 32-33 of the shifted value and sign-extends bit 33
INTERMEDIATE_MASK, INTERMEDIATE_SIGN = (1 << 34) - 1, 1 << 33


def _scalar_video_signature(ins) -> Signature:
    return Signature(("b32",), ("b32",) * len(ins.srcs))


def _check_scalar_video(ins):
    types = ins.types
    wanted = 2 if ins.opcode == "vset" else 3
    if len(types) != wanted or any(t not in ("u32", "s32") for t in types):
        return f"{ins.opcode} takes {'.atype.btype' if wanted == 2 else '.dtype.atype.btype'}, each .u32 or .s32"
    allowed = {"sat"} | set(SECONDARY)
    if ins.opcode in VIDEO_SHIFTS:
        allowed |= {"clamp", "wrap"}
        if len({"clamp", "wrap"} & ins.flags) != 1:
            return f"{ins.opcode} needs one of .clamp and .wrap"
    if ins.opcode == "vset":
        allowed = set(SECONDARY) | set(VIDEO_COMPARES)
        if len(set(VIDEO_COMPARES) & ins.flags) != 1:
            return "vset needs one comparison (.eq .ne .lt .le .gt .ge)"
    extra = ins.flags - allowed
    if extra:
        return f"modifiers {sorted(extra)} not supported on {ins.opcode} (byte and half-word selectors are not)"
    secondary = set(SECONDARY) & ins.flags
    if len(secondary) > 1 or bool(secondary) != (len(ins.srcs) == 3):
        return f"{ins.opcode} takes c with exactly one secondary operation (.add .min .max)"
    return None


def _word(values, signed: bool) -> np.ndarray:
    """32-bit words as exact int64 values of their type."""
    return (bits.as_signed if signed else bits.as_unsigned)(np.asarray(values, dtype=np.uint32)).astype(np.int64)


@value_op(*SCALAR_VIDEO, *VIDEO_SHIFTS, "vset", family="packed", signature=_scalar_video_signature,
          check=_check_scalar_video)
def scalar_video(ins, a, b, c=None):
    types = ins.types
    dtype, atype, btype = ("u32",) + tuple(types) if ins.opcode == "vset" else types
    signed = dtype == "s32"
    x = _word(a, atype == "s32")
    if ins.opcode in VIDEO_SHIFTS:
        amount = _word(b, False)
        amount = np.minimum(amount, 32) if "clamp" in ins.flags else amount & 31
        if ins.opcode == "vshr":
            result = x >> amount
        else:                               # in 34 bits: what overflows them is lost before .sat looks
            low = (x & INTERMEDIATE_MASK) << amount
            result = np.where(low & INTERMEDIATE_SIGN, (low & INTERMEDIATE_MASK) - (INTERMEDIATE_SIGN << 1),
                              low & INTERMEDIATE_MASK)
    elif ins.opcode == "vset":
        compare = next(VIDEO_COMPARES[f] for f in ins.flags if f in VIDEO_COMPARES)
        result = compare(x, _word(b, btype == "s32")).astype(np.int64)
    else:
        result = SCALAR_VIDEO[ins.opcode](x, _word(b, btype == "s32"))
    if "sat" in ins.flags:
        result = np.clip(result, -(1 << 31), (1 << 31) - 1) if signed else np.clip(result, 0, (1 << 32) - 1)
    else:                                   # the secondary operation sees dtype's 32-bit word
        result = _word((result & 0xFFFFFFFF).astype(np.uint32), signed)
    if c is not None:
        op = next(SECONDARY[f] for f in ins.flags if f in SECONDARY)
        result = op(result, _word(c, signed))
    out = (result & 0xFFFFFFFF).astype(np.uint32)
    return out if np.ndim(a) or np.ndim(b) else out[0]
