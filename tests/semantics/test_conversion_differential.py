"""F2I and FRND against cvt's float -> integer and round-to-integral forms on random and edge bits.

NaNs (0, or the top bit alone from f64 and into 64-bit integers), infinities,
values just past every integer range and subnormals under .FTZ.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import as_f32, as_f64, assert_same_bits, edge_bits, run_ptx, run_sass, split64

ROUNDINGS = {"": "rni", ".TRUNC": "rzi", ".FLOOR": "rmi", ".CEIL": "rpi"}


def _f32_inputs(rng):
    a = edge_bits(rng)
    scaled = rng.integers(0x4E000000, 0x5F800000, size=len(a) // 4, dtype=np.uint64).astype(np.uint32)
    a[-len(scaled):] = scaled | (rng.integers(0, 2, size=len(scaled)).astype(np.uint32) << np.uint32(31))
    return a


@pytest.mark.parametrize("mode", list(ROUNDINGS))
@pytest.mark.parametrize("dst", ["S32", "U32", "S64", "U64"])
def test_f2i_from_f32_agrees_with_cvt(mode, dst):
    a = _f32_inputs(np.random.default_rng(len(mode) * 5 + len(dst)))
    wide = dst.endswith("64")
    sass = f"F2I{'.' + dst if dst != 'S32' else ''}{mode}"
    got = run_sass(f"{sass} R2, R1", {1: a}, ["R2.64" if wide else "R2"])[0]
    want = run_ptx(f"cvt.{ROUNDINGS[mode]}.{dst.lower()}.f32", as_f32(a))
    assert_same_bits(got, np.asarray(want).view(np.uint64 if wide else np.uint32), sass, (a,))


@pytest.mark.parametrize("mode", list(ROUNDINGS))
def test_f2i_from_f64_agrees_with_cvt(mode):
    a = edge_bits(np.random.default_rng(len(mode) + 40), 64)
    low, high = split64(a)
    (got,) = run_sass(f"F2I.F64{mode} R0, R2", {2: low, 3: high}, ["R0"])
    want = run_ptx(f"cvt.{ROUNDINGS[mode]}.s32.f64", as_f64(a))
    assert_same_bits(got, np.asarray(want).view(np.uint32), f"F2I.F64{mode}", (a,))


@pytest.mark.parametrize("mode", list(ROUNDINGS))
def test_frnd_agrees_with_cvt_to_integral(mode):
    a = _f32_inputs(np.random.default_rng(len(mode) + 50))
    (got,) = run_sass(f"FRND{mode} R0, R1", {1: a}, ["R0"])
    want = run_ptx(f"cvt.{ROUNDINGS[mode]}.f32.f32", as_f32(a))
    assert_same_bits(got, want, f"FRND{mode}", (a,))
