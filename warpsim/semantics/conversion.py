"""Float to integer as both ISAs convert: PTX's cvt.rXi.{s,u}N.fM and SASS's F2I.

Round by the mode, then saturate to the destination's range. NaN gives 0 as
PTX says, except where an H200 gives the top bit alone (0x80..0 of the
destination's width): from f64, and into 64-bit integers; the caller says
which (`nan_top_bit`), knowing its source type.
"""

from __future__ import annotations

import numpy as np

INT_ROUNDING = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def float_to_int(x, rounding: str, dtype, nan_top_bit: bool) -> np.ndarray:
    """float64 values -> integers of `dtype` rounded by `rounding` (a key of INT_ROUNDING), saturated."""
    info = np.iinfo(dtype)
    r = INT_ROUNDING[rounding](x)
    over = r >= float(info.max) + 1.0          # max + 1 is a power of two: exact in f64
    under = r < float(info.min)
    nan = np.isnan(r)
    safe = np.where(over | under | nan, 0.0, r)
    wide = safe.astype(np.int64 if info.min < 0 else np.uint64)
    wide = np.where(over, wide.dtype.type(info.max), np.where(under, wide.dtype.type(info.min), wide))
    result = wide.astype(info.dtype)
    if nan_top_bit and nan.any():
        top_bit = np.array(1 << (info.bits - 1), dtype=np.uint64).astype(np.dtype(f"uint{info.bits}"))
        result = np.where(nan, top_bit.view(info.dtype), result)
    return result
