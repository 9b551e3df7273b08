"""The tensor core by instruction: how long an HGMMA (wgmma) holds it and when its result is ready.

The preset's tables come from the eighth microbenchmark batch (validation/timing/microbench8.cu):
per input type and N of m64nNk, the cycles between wgmmas a warpgroup keeps back to back on one
accumulator (groups of four, one group pending: a K loop's pattern) and the cycles from one
wgmma's issue to its wait_group's return. Between the measured N the figures are interpolated
linearly in N (the work is), beyond them scaled with N (a latency below the
smallest N measured keeps that N's). A preset without tables (no wgmma on the
GPU) gives None, and pipes.tensor_cycles keeps its peak-rate rule.
"""

from __future__ import annotations

import numpy as np

# SASS type modifiers -> the tables' input type (HGMMA with no input modifier takes f16)
_TYPE_OF_MOD = {"BF16": "bf16", "TF32": "tf32", "E4M3": "e4m3", "E5M2": "e4m3", "S8": "e4m3", "U8": "e4m3"}


def hgmma_shape(mods: tuple):
    """(m, n, k) of an HGMMA's shape modifier ('64x128x16'), or None."""
    shape = next((m for m in mods if "x" in m and all(p.isdigit() for p in m.split("x"))), None)
    return tuple(int(v) for v in shape.split("x")) if shape else None


def input_type(mods: tuple) -> str:
    """The tables' input type of an HGMMA from its modifiers."""
    return next((_TYPE_OF_MOD[m] for m in mods if m in _TYPE_OF_MOD), "f16")


def _lookup(table, kind: str, n: int, scale_below: bool = True):
    points = sorted((nn, v) for (t, nn), v in table.items() if t == kind)
    if not points:
        return None
    ns = np.array([p[0] for p in points], dtype=float)
    vs = np.array([p[1] for p in points], dtype=float)
    if n <= ns[0]:
        return float(vs[0] * n / ns[0]) if scale_below else float(vs[0])
    if n >= ns[-1]:
        return float(vs[-1] * n / ns[-1])
    return float(np.interp(n, ns, vs))


def hgmma_interval(mods: tuple, preset):
    """Cycles an HGMMA holds the SM's tensor cores (each sub-partition's, for its warp of the
    warpgroup) when a warpgroup issues them back to back; None where the preset has no table."""
    table = getattr(preset, "hgmma_interval_cycles", None)
    shape = hgmma_shape(mods)
    if not table or shape is None:
        return None
    m, n, _ = shape
    value = _lookup(table, input_type(mods), n)
    return None if value is None else value * m / 64


def hgmma_latency(mods: tuple, preset) -> float:
    """Cycles from an HGMMA's issue until its result is ready (a wait_group 0 right after it)."""
    table = getattr(preset, "hgmma_latency_cycles", None)
    shape = hgmma_shape(mods)
    if table and shape is not None:
        value = _lookup(table, input_type(mods), shape[1], scale_below=False)
        if value is not None:
            return value
    return 2 * preset.fp64_latency + 16
