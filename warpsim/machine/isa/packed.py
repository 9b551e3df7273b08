"""SIMD-within-a-register integer instructions.

The 16x2 forms (add, sub, min, max on .u16x2/.s16x2, sm_90) and the video
instructions NVVM emits for CUDA's __v*2/__v*4 intrinsics (vadd4, vsub4,
vavrg4, vabsdiff4, vmin4, vmax4 and their 2-lane forms). A 32-bit register is
viewed as its lanes (little-endian: lane 0 in the low bits), the operation
runs per lane, and the lanes are packed back.
"""

from __future__ import annotations

import numpy as np

from .table import Signature, same_type, value_op

PACKED_TYPES = frozenset({"u16x2", "s16x2"})


def lanes(words, width: int, signed: bool) -> np.ndarray:
    """(n, 32/width) lane values of 32-bit words, as int64."""
    raw = np.ascontiguousarray(np.asarray(words, dtype=np.uint32).reshape(-1))
    kind = {8: np.int8 if signed else np.uint8, 16: np.int16 if signed else np.uint16}[width]
    return raw.view(kind).reshape(len(raw), 32 // width).astype(np.int64)


def pack(values: np.ndarray, width: int) -> np.ndarray:
    """Lane values (wrapped to `width` bits) back into 32-bit words."""
    unsigned = (values & ((1 << width) - 1)).astype({8: np.uint8, 16: np.uint16}[width])
    return np.ascontiguousarray(unsigned).view(np.uint32).reshape(-1)


def _check_16x2(ins):
    extra = ins.flags - ({"relu"} if ins.opcode in ("min", "max") and ins.type == "s16x2" else set())
    return f"modifiers {sorted(extra)} not supported on {ins.opcode}.{ins.type}" if extra else None


@value_op("add", "sub", "min", "max", family="packed", signature=same_type, types=PACKED_TYPES,
          check=_check_16x2)
def sixteen_by_two(ins, a, b):
    """Per 16-bit lane: add/sub wrap; min/max by the lane type; .relu clamps at 0."""
    signed = ins.type == "s16x2"
    x, y = lanes(a, 16, signed), lanes(b, 16, signed)
    result = {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum}[ins.opcode](x, y)
    if "relu" in ins.flags:
        result = np.maximum(result, 0)
    out = pack(result, 16)
    return out if np.ndim(a) or np.ndim(b) else out[0]


# ---------------------------------------------------------------- video instructions

VIDEO_OPS = {
    "add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
    "absdiff": lambda x, y: np.abs(x - y),
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
        op = VIDEO_OPS[ins.opcode[1:-1]]
        dtype, atype, btype = ins.types
        x, y = lanes(a, width, atype == "s32"), lanes(b, width, btype == "s32")
        result = op(x, y)
        if "add" in ins.flags:
            total = np.asarray(c, dtype=np.uint32).astype(np.int64) + result.sum(axis=1)
            out = (total & 0xFFFFFFFF).astype(np.uint32)
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
