"""HADD2/HMUL2/HFMA2/HMNMX2 (f16 halves, bf16 with .BF16_V2) against PTX's .f16x2/.bf16x2 twins.

Each half of the random words is salted with the 16-bit values where half
semantics differ: NaNs of both signs (quiet, signalling, all-ones payload),
infinities, signed zeros, subnormals, the smallest normal, the largest finite
value and the pairs whose .ftz products land just below the smallest normal.
SASS's operand swizzles (.H0_H0, .H1_H1) are checked against the PTX
instruction on words whose halves were swizzled by hand; HADD2.F32 against
NumPy and cvt.f32.f16.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import LANES, assert_same_bits, run_ptx, run_sass

EDGES = {
    "f16": [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
            0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0x3C00, 0xBC00, 0x3800, 0x07FF, 0x3801, 0x07FE, 0x3BFF],
    "bf16": [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0,
             0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0x3F80, 0xBF80, 0x3F00, 0x00FF, 0x3F81, 0x3F7F],
}
SASS_FLAG = {"f16": "", "bf16": ".BF16_V2"}


def edge_words(rng, elem: str, n: int = LANES) -> np.ndarray:
    """n words of two random 16-bit halves, each an edge value of `elem` with probability 1/3."""
    edges = np.array(EDGES[elem], dtype=np.uint32)
    halves = rng.integers(0, 1 << 16, size=(2, n), dtype=np.uint32)
    picks = rng.random((2, n)) < 1 / 3
    halves[picks] = edges[rng.integers(0, len(edges), size=int(picks.sum()))]
    halves[0, :len(edges)] = edges                       # every edge against every other at least once
    halves[1, :len(edges)] = edges[::-1]
    return halves[0] | (halves[1] << np.uint32(16))


def swizzled(words, select):
    """The word whose low and high halves are `words`' halves select[0] and select[1]."""
    halves = (words & np.uint32(0xFFFF), words >> np.uint32(16))
    return halves[select[0]] | (halves[select[1]] << np.uint32(16))


ARITHMETIC = [("HADD2", "add.rn", 2, ""), ("HADD2.FTZ", "add.rn.ftz", 2, ""), ("HADD2.SAT", "add.rn.sat", 2, ""),
              ("HADD2.FTZ.SAT", "add.rn.ftz.sat", 2, ""), ("HMUL2", "mul.rn", 2, ""),
              ("HMUL2.FTZ", "mul.rn.ftz", 2, ""), ("HMUL2.SAT", "mul.rn.sat", 2, ""),
              ("HFMA2", "fma.rn", 3, ""), ("HFMA2.FTZ", "fma.rn.ftz", 3, ""), ("HFMA2.SAT", "fma.rn.sat", 3, ""),
              ("HFMA2.RELU", "fma.rn.relu", 3, ""), ("HFMA2.MMA.FTZ.SAT", "fma.rn.ftz.sat", 3, "")]
BF16_ARITHMETIC = [("HADD2", "add.rn", 2, ""), ("HMUL2", "mul.rn", 2, ""), ("HFMA2", "fma.rn", 3, ""),
                   ("HFMA2.RELU", "fma.rn.relu", 3, ""), ("HFMA2.MMA", "fma.rn", 3, "")]


@pytest.mark.parametrize("elem, sass, ptx, arity, _", [("f16", *p) for p in ARITHMETIC]
                         + [("bf16", *p) for p in BF16_ARITHMETIC])
def test_packed_arithmetic_agrees_with_ptx(elem, sass, ptx, arity, _):
    rng = np.random.default_rng(len(sass) * 7 + len(ptx) + arity + len(elem))
    words = [edge_words(rng, elem) for _ in range(arity)]
    opcode, _, mods = sass.partition(".")
    text = f"{opcode}{SASS_FLAG[elem]}{'.' + mods if mods else ''}"
    (got,) = run_sass(f"{text} R0, " + ", ".join(f"R{k + 1}" for k in range(arity)),
                      {k + 1: w for k, w in enumerate(words)}, ["R0"])
    want = run_ptx(f"{ptx}.{elem}x2", *words)
    assert_same_bits(got, want, f"{text} vs {ptx}.{elem}x2", words)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("sass, ptx", [("HADD2", "add.rn"), ("HMUL2", "mul.rn"), ("HFMA2", "fma.rn")])
def test_operand_swizzles_feed_one_half_to_both(elem, sass, ptx):
    rng = np.random.default_rng(11 + len(sass) + len(elem))
    arity = 3 if sass == "HFMA2" else 2
    words = [edge_words(rng, elem) for _ in range(arity)]
    selects = [(0, 0), (1, 1), (0, 1)][:arity]
    names = {(0, 0): ".H0_H0", (1, 1): ".H1_H1", (0, 1): ""}
    operands = ", ".join(f"R{k + 1}{names[s]}" for k, s in enumerate(selects))
    (got,) = run_sass(f"{sass}{SASS_FLAG[elem]} R0, {operands}", {k + 1: w for k, w in enumerate(words)}, ["R0"])
    want = run_ptx(f"{ptx}.{elem}x2", *(swizzled(w, s) for w, s in zip(words, selects)))
    assert_same_bits(got, want, f"{sass} {operands}", words)


@pytest.mark.parametrize("elem, mods", [("f16", ""), ("f16", ".NAN"), ("f16", ".FTZ"), ("bf16", ""),
                                        ("bf16", ".NAN")])                 # min/max.bf16x2 have no .ftz
def test_hmnmx2_agrees_with_min_max(elem, mods):
    rng = np.random.default_rng(5 + len(mods) + len(elem))
    a, b = edge_words(rng, elem), edge_words(rng, elem)
    choose_min = rng.random(LANES) < 0.5                 # a per-lane predicate picks min or max
    (got,) = run_sass(f"HMNMX2{SASS_FLAG[elem]}{mods} R0, R1, R2, P0", {1: a, 2: b}, ["R0"], {0: choose_min})
    ptx_mods = {"": "", ".NAN": ".NaN", ".FTZ": ".ftz"}[mods]
    lowest, highest = (run_ptx(f"{op}{ptx_mods}.{elem}x2", a, b) for op in ("min", "max"))
    assert_same_bits(got, np.where(choose_min, lowest, highest), f"HMNMX2{SASS_FLAG[elem]}{mods}", (a, b))


def test_hadd2_f32_is_the_low_halves_sum_in_f32():
    rng = np.random.default_rng(17)
    a, b = edge_words(rng, "f16"), edge_words(rng, "f16")
    (got,) = run_sass("HADD2.F32 R0, R1.H0_H0, R2.H0_H0", {1: a, 2: b}, ["R0"])
    low = [(w & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64) for w in (a, b)]
    with np.errstate(all="ignore"):
        want = (low[0] + low[1]).astype(np.float32)      # exact in f64, so rounded once
    want = np.where(np.isnan(want), np.uint32(0x7FFFFFFF), want.view(np.uint32))
    assert_same_bits(got, want, "HADD2.F32", (a, b))
    (widened,) = run_sass("HADD2.F32 R0, -RZ, R1.H0_H0", {1: a}, ["R0"])
    assert_same_bits(widened, run_ptx("cvt.f32.f16", (a & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16)),
                     "HADD2.F32 -RZ, R.H0_H0 vs cvt.f32.f16", (a,))


def test_hfma2_mma_loads_a_constant_pair():
    for elem, high, low, bits in [("f16", "1", "-2", 0x3C00C000), ("bf16", "1", "1", 0x3F803F80)]:
        (got,) = run_sass(f"HFMA2.MMA{SASS_FLAG[elem]} R0, -RZ, RZ, {high}, {low}", {}, ["R0"], n=4)
        assert (got[:4] == bits).all(), f"{elem}: {got[0]:#x} != {bits:#x}"


HALF_TESTS = ["EQ", "NE", "LT", "GE", "NEU", "LTU", "GEU", "NUM", "NAN"]


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("test", HALF_TESTS)
def test_hsetp2_agrees_with_setp(elem, test):
    rng = np.random.default_rng(31 + len(test) + len(elem))
    a, b = edge_words(rng, elem), edge_words(rng, elem)
    b[::3] = a[::3]                                      # equal halves, NaNs included
    combine = rng.random(LANES) < 0.75
    p, q = run_sass(f"HSETP2{SASS_FLAG[elem]}.{test}.AND P0, P1, R1, R2, P2", {1: a, 2: b}, ["P0", "P1"],
                    {2: combine})
    low, high = run_ptx(f"setp.{test.lower()}.and.{elem}x2", a, b, combine, n_dsts=2)
    assert_same_bits(p, low, f"HSETP2.{test} P (low halves)", (a, b))
    assert_same_bits(q, high, f"HSETP2.{test} Q (high halves)", (a, b))


def test_hsetp2_ftz_and_swizzle_agree_with_setp_ftz():
    rng = np.random.default_rng(37)
    a, b = edge_words(rng, "f16"), edge_words(rng, "f16")
    p, q = run_sass("HSETP2.LT.FTZ.OR P0, P1, R1.H1_H1, R2, PT", {1: a, 2: b}, ["P0", "P1"])
    low, high = run_ptx("setp.lt.ftz.f16x2", swizzled(a, (1, 1)), b, n_dsts=2)
    assert_same_bits(p, np.ones(LANES, bool), "HSETP2 .OR PT", (a, b))
    p, q = run_sass("HSETP2.LT.FTZ.AND P0, P1, R1.H1_H1, R2, PT", {1: a, 2: b}, ["P0", "P1"])
    assert_same_bits(p, low, "HSETP2.FTZ P", (a, b))
    assert_same_bits(q, high, "HSETP2.FTZ Q", (a, b))


@pytest.mark.parametrize("elem, bf, dest", [("f16", ".BF", "f16x2"), ("bf16", ".BF", "bf16x2"), ("f16", "", "u32"),
                                            ("bf16", "", "s32")])
@pytest.mark.parametrize("test", ["GT", "NEU", "EQ"])
def test_hset2_agrees_with_set(elem, bf, dest, test):
    rng = np.random.default_rng(41 + len(test) + len(elem) + len(dest))
    a, b = edge_words(rng, elem), edge_words(rng, elem)
    b[::3] = a[::3]
    (got,) = run_sass(f"HSET2{SASS_FLAG[elem]}{bf}.{test}.AND R0, R1, R2, PT", {1: a, 2: b}, ["R0"])
    want = run_ptx(f"set.{test.lower()}.{dest}.{elem}x2", a, b)
    assert_same_bits(got, np.asarray(want).view(np.uint32), f"HSET2{bf}.{test} vs set.{dest}", (a, b))
