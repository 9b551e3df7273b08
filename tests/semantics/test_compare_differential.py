"""ISETP, FSETP and DSETP against PTX's setp on random and edge bits: one set of NaN rules.

FSETP.NE on a NaN operand was true in the SASS executor while setp.ne (and the
GPU) give false; both now call semantics/compare.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import as_f32, as_f64, assert_same_bits, edge_bits, run_ptx, run_sass, split64

TESTS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def _pairs(rng, bits):
    a, b = edge_bits(rng, bits), edge_bits(rng, bits)
    b[::5] = a[::5]                       # equal operands, NaNs with themselves included
    return a, b


@pytest.mark.parametrize("ftz", [False, True])
@pytest.mark.parametrize("test", TESTS)
def test_fsetp_agrees_with_setp_f32(test, ftz):
    rng = np.random.default_rng(len(test) * 7 + ftz)
    a, b = _pairs(rng, 32)
    ftz_mod = ".FTZ" if ftz else ""
    p, q = run_sass(f"FSETP.{test.upper()}{ftz_mod}.AND P0, P1, R1, R2, PT", {1: a, 2: b}, ["P0", "P1"])
    want = run_ptx(f"setp.{test}{'.ftz' if ftz else ''}.f32", as_f32(a), as_f32(b))
    assert_same_bits(p, want, f"FSETP.{test.upper()}{ftz_mod}", (a, b))
    assert_same_bits(q, ~want, f"FSETP.{test.upper()}{ftz_mod}'s second predicate", (a, b))


@pytest.mark.parametrize("test", TESTS)
def test_dsetp_agrees_with_setp_f64(test):
    rng = np.random.default_rng(len(test) * 11)
    a, b = _pairs(rng, 64)
    (a_lo, a_hi), (b_lo, b_hi) = split64(a), split64(b)
    (p,) = run_sass(f"DSETP.{test.upper()}.AND P0, PT, R2, R4, PT", {2: a_lo, 3: a_hi, 4: b_lo, 5: b_hi}, ["P0"])
    want = run_ptx(f"setp.{test}.f64", as_f64(a), as_f64(b))
    assert_same_bits(p, want, f"DSETP.{test.upper()}", (a, b))


@pytest.mark.parametrize("sass, ptx", [(f"ISETP.{t.upper()}{u}", f"setp.{t}.{'u' if u else 's'}32")
                                       for t in ("eq", "ne", "lt", "le", "gt", "ge") for u in ("", ".U32")])
def test_isetp_agrees_with_setp(sass, ptx):
    rng = np.random.default_rng(len(sass) * 13 + len(ptx))
    a, b = _pairs(rng, 32)
    (p,) = run_sass(f"{sass}.AND P0, PT, R1, R2, PT", {1: a, 2: b}, ["P0"])
    dtype = np.uint32 if ptx.endswith("u32") else np.int32
    want = run_ptx(ptx, a.view(dtype), b.view(dtype))
    assert_same_bits(p, want, sass, (a, b))


def test_ordered_not_equal_is_false_on_nan():
    nan, one = np.uint32(0x7FC00000), np.uint32(0x3F800000)
    a = np.array([nan, nan, one, one] * 256, dtype=np.uint32)
    b = np.array([nan, one, nan, one] * 256, dtype=np.uint32)
    ne, neu = (run_sass(f"FSETP.{t}.AND P0, PT, R1, R2, PT", {1: a, 2: b}, ["P0"])[0] for t in ("NE", "NEU"))
    assert not ne.any()
    assert neu.tolist() == [True, True, True, False] * 256


@pytest.mark.parametrize("test, bf, dest", [("GT", ".BF", "f32"), ("NEU", ".BF", "f32"), ("NE", "", "u32"),
                                            ("LT", "", "s32"), ("NAN", ".BF", "f32")])
def test_fset_agrees_with_set(test, bf, dest):
    rng = np.random.default_rng(len(test) * 3 + len(bf) + len(dest))
    a, b = edge_bits(rng), edge_bits(rng)
    b[::3] = a[::3]
    combine = rng.random(len(a)) < 0.75
    (got,) = run_sass(f"FSET{bf}.{test}.AND R0, R1, R2, P1", {1: a, 2: b}, ["R0"], {1: combine})
    want = run_ptx(f"set.{test.lower()}.and.{dest}.f32", as_f32(a), as_f32(b), combine)
    assert_same_bits(got, np.asarray(want).view(np.uint32), f"FSET{bf}.{test}", (a, b))


@pytest.mark.parametrize("which", ["MIN", "MAX"])
def test_dsetp_min_max_select_as_min_max_f64(which):
    """ptxas's min/max.f64: DSETP.MIN/MAX P0, P1, a, b, PT; select a where P0, else b; where P1
    (both NaN) set the quiet bit of the high word. The result must be PTX's min/max.f64."""
    rng = np.random.default_rng(53 + len(which))
    a, b = edge_bits(rng, 64), edge_bits(rng, 64)
    b[::5] = a[::5]
    b[1::7] = a[1::7] ^ np.uint64(1 << 63)                # +0 against -0 among them
    (low_a, high_a), (low_b, high_b) = split64(a), split64(b)
    p0, p1 = run_sass(f"DSETP.{which}.AND P0, P1, R2, R4, PT", {2: low_a, 3: high_a, 4: low_b, 5: high_b},
                      ["P0", "P1"])
    selected = np.where(p0, a, b)
    got = np.where(p1, selected | np.uint64(1 << 51), selected)
    assert_same_bits(got, run_ptx(f"{which.lower()}.f64", as_f64(a), as_f64(b)), f"DSETP.{which}", (a, b))
