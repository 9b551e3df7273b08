"""SIMT versus SIMD: the same conditional as a NumPy masked blend and as a kernel."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "simd"
TITLE = "SIMT versus SIMD"
CLAIM = """
CPU vector units are SIMD: conditionals are expressed as masked blends, so the
vector width is visible in the code. SIMT moves that bookkeeping into hardware:
each thread has its own registers and index, and when the lanes of a warp
disagree the hardware keeps a per-lane active mask and executes each distinct
path with only the relevant lanes enabled. Making it fast is a matter of making
neighbouring threads behave alike.
"""
KERNELS = "simd.cu"
N, THREADS, STEPS = 4096, 256, 32
SIMD_WIDTH = 8                    # f32 lanes of an AVX2 register
BIG_N = 1 << 22                   # the launch whose time is predicted (a sample of its blocks runs)


def masked_blend(x: np.ndarray) -> tuple:
    """The SIMD way: both sides for every element, then a blend (y, element-operations done)."""
    positive, negative = x.copy(), x.copy()
    for _ in range(STEPS):
        positive = positive * np.float32(0.999) + np.float32(0.25)
        negative = negative * np.float32(1.001) - np.float32(0.25)
    return np.where(x > 0, positive, negative), 2 * len(x) * STEPS


def simt(x: np.ndarray, label: str):
    from .. import api
    y = api.full(N, np.nan, dtype=np.float32)
    run = common.launch(KERNELS, "conditional", N // THREADS, THREADS,
                        (api.asarray(x), y, np.int32(N), np.int32(STEPS)), label=label)
    return y.get(), run


def run(console=None) -> common.DemoResult:
    result = common.DemoResult(NAME, TITLE)
    x = np.random.default_rng(17).standard_normal(N).astype(np.float32)   # signs at random
    blended, element_ops = masked_blend(x)
    useful = N * STEPS
    loops = None
    figures = {}
    for label, data in (("random signs", x), ("sorted by sign", np.sort(x))):
        y, launched = simt(data, f"conditional, {label}")
        reference, _ = masked_blend(data)
        assert np.allclose(y, reference, rtol=1e-4, atol=1e-4)        # the kernel may fuse to fma
        loops = loops or common.loop_ptx_lines(launched.fn)
        figures[label] = (common.lanes_on_ptx_lines(launched, loops), launched.issued)
        result.runs.append(launched)
    simd_useful = useful / element_ops
    random_lanes, random_issued = figures["random signs"]
    sorted_lanes, sorted_issued = figures["sorted by sign"]
    result.figures.update(simd_useful=simd_useful, simd_instructions=element_ops // SIMD_WIDTH,
                          random_loop_lanes=random_lanes, sorted_loop_lanes=sorted_lanes,
                          random_issued=random_issued, sorted_issued=sorted_issued)
    result.add(f"SIMD masked blend ({SIMD_WIDTH} lanes): useful lane work, any data order",
               common.pct(simd_useful), "both sides for every lane", simd_useful == 0.5)
    result.add("SIMT, random signs: active lanes per loop instruction", f"{random_lanes:.1f} of 32",
               "each path with its lanes only", 12 < random_lanes < 20)
    signs = (np.sort(x) > 0).reshape(-1, 32)
    mixed = int((signs.any(axis=1) & ~signs.all(axis=1)).sum())    # warps holding both signs
    result.figures["sorted_mixed_warps"] = mixed
    result.add("SIMT, sorted by sign: active lanes per loop instruction",
               f"{sorted_lanes:.1f} of 32 ({mixed} of {N // 32} warps hold both signs)",
               "neighbours alike: full width", sorted_lanes > 31 and mixed <= 1)
    result.add("SIMT warp instructions issued, random vs sorted", f"{random_issued} vs {sorted_issued} "
               f"({random_issued / sorted_issued:.2f}x)", "only the paths some lane takes",
               random_issued > 1.5 * sorted_issued)
    common.add_predicted(result, f"{BIG_N:,} floats, random signs vs sorted by sign", *predicted_times(),
                         "neighbouring threads alike: faster", lambda r: r > 1.3, figure="predicted_sorted_speedup")
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  y = x > 0 ? loop_a(x) : loop_b(x) for {N} floats, {STEPS} steps per loop:")
        common.say(console, "    NumPy (SIMD): positive = ...; negative = ...; "
                            "y = np.where(x > 0, positive, negative)")
        common.say(console, "    CUDA (SIMT):  if (v > 0.f) { ... } else { ... }   one thread's code; "
                            "the warp keeps the mask")
        console.print(common.figures_table(result))
    return result


def predicted_times():
    """(random signs, sorted by sign) Timings of the kernel on BIG_N floats."""
    from .. import api
    x = np.random.default_rng(18).standard_normal(BIG_N).astype(np.float32)
    y = api.zeros(BIG_N, dtype=np.float32)
    return tuple(common.predict(KERNELS, "conditional", BIG_N // THREADS, THREADS,
                                (api.asarray(data), y, np.int32(BIG_N), np.int32(STEPS)))
                 for data in (x, np.sort(x)))
