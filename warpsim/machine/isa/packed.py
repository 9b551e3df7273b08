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
