"""Integer SASS against its PTX twins on random and edge words (semantics/integer.py serves both).

Each pair is the form ptxas gives the PTX instruction for sm_90 (bmsk.clamp is BMSK, szext.wrap.u32
SGXT.W.U32, bfind.shiftamt.s32 FLO.SH, clz FLO.U32 then 31 - it, ...); the PTX side is what an H200
confirmed (validation/conformance), so these keep the SASS executor on the hardware's answers.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import LANES, assert_same_bits, edge_bits, run_ptx, run_sass

AMOUNTS = [0, 1, 7, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 257, 0x104, 2 ** 31, 2 ** 32 - 1]


def amounts(rng, n: int = LANES) -> np.ndarray:
    """Shift counts and field operands: small ones, ones past 32 and 64, and whole-word ones."""
    out = rng.integers(0, 80, size=n).astype(np.uint32)
    wide = rng.random(n) < 0.2
    out[wide] = rng.integers(0, 2 ** 32, size=int(wide.sum()), dtype=np.uint64).astype(np.uint32)
    out[:len(AMOUNTS)] = AMOUNTS
    return out


def signed(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.int32)


def raw(values):
    """A PTX result's bits as unsigned (a signed result would sign-extend when compared)."""
    values = np.asarray(values)
    return values.view(np.dtype(f"uint{values.dtype.itemsize * 8}"))


# ------------------------------------------------------------------ bit counts, masks, extension

def test_popc_agrees_with_ptx():
    a = edge_bits(np.random.default_rng(1))
    (got,) = run_sass("POPC R0, R1", {1: a}, ["R0"])
    assert_same_bits(got, run_ptx("popc.b32", a), "POPC", (a,))


@pytest.mark.parametrize("sass, ptx", [("FLO.U32", "bfind.u32"), ("FLO", "bfind.s32"),
                                       ("FLO.U32.SH", "bfind.shiftamt.u32"), ("FLO.SH", "bfind.shiftamt.s32")])
def test_flo_agrees_with_bfind(sass, ptx):
    a = edge_bits(np.random.default_rng(len(sass)))
    (got,) = run_sass(f"{sass} R0, R1", {1: a}, ["R0"])
    typed = signed(a) if ptx.endswith("s32") else a
    assert_same_bits(got, run_ptx(ptx, typed), sass, (a,))


def test_clz_is_flo_then_31_minus_it():
    a = edge_bits(np.random.default_rng(2))
    (position,) = run_sass("FLO.U32 R0, R1", {1: a}, ["R0"])
    (got,) = run_sass("IADD3 R2, -R0, 0x1f, RZ", {0: position}, ["R2"])
    assert_same_bits(got, run_ptx("clz.b32", a), "FLO.U32; IADD3 -R0, 0x1f", (a,))


def test_brev_agrees_with_ptx():
    a = edge_bits(np.random.default_rng(3))
    (got,) = run_sass("BREV R0, R1", {1: a}, ["R0"])
    assert_same_bits(got, run_ptx("brev.b32", a), "BREV", (a,))


@pytest.mark.parametrize("sass, ptx", [("BMSK", "bmsk.clamp.b32"), ("BMSK.W", "bmsk.wrap.b32")])
def test_bmsk_agrees_with_ptx(sass, ptx):
    rng = np.random.default_rng(len(sass) + 4)
    start, count = amounts(rng), rng.permutation(amounts(rng))
    (got,) = run_sass(f"{sass} R0, R1, R2", {1: start, 2: count}, ["R0"])
    assert_same_bits(got, run_ptx(ptx, start, count), sass, (start, count))


@pytest.mark.parametrize("sass, ptx", [("SGXT", "szext.clamp.s32"), ("SGXT.W", "szext.wrap.s32"),
                                       ("SGXT.U32", "szext.clamp.u32"), ("SGXT.W.U32", "szext.wrap.u32")])
def test_sgxt_agrees_with_szext(sass, ptx):
    rng = np.random.default_rng(len(sass) + 5)
    a, count = edge_bits(rng), rng.permutation(amounts(rng))
    (got,) = run_sass(f"{sass} R0, R1, R2", {1: a, 2: count}, ["R0"])
    typed = signed(a) if ptx.endswith("s32") else a
    assert_same_bits(got, raw(run_ptx(ptx, typed, count)), sass, (a, count))


# ------------------------------------------------------------------ min, max

def _typed(bits, type_name: str):
    return signed(bits) if type_name.startswith("s") else bits


MIN_MAX = ["min.s32", "max.s32", "min.u32", "max.u32"]


@pytest.mark.parametrize("opcode, ptx", [("IMNMX", p) for p in MIN_MAX]        # ptxas gives .relu as VIMNMX.RELU
                         + [("VIMNMX", p) for p in MIN_MAX + ["min.relu.s32", "max.relu.s32"]])
def test_min_max_agrees_with_ptx(opcode, ptx):
    rng = np.random.default_rng(len(opcode) * 10 + len(ptx))
    a, b = edge_bits(rng), rng.permutation(edge_bits(rng))
    mods = (".U32" if ptx.endswith("u32") else "") + (".RELU" if "relu" in ptx else "")
    choose = "PT" if ptx.startswith("min") else "!PT"
    (got,) = run_sass(f"{opcode}{mods} R0, R1, R2, {choose}", {1: a, 2: b}, ["R0"])
    want = run_ptx(ptx, _typed(a, ptx[-3:]), _typed(b, ptx[-3:]))
    assert_same_bits(got, raw(want), f"{opcode}{mods} {choose}", (a, b))


def test_min_max_predicate_chooses_per_lane():
    rng = np.random.default_rng(11)
    a, b, smaller = edge_bits(rng), edge_bits(rng), rng.random(LANES) < 0.5
    (got,) = run_sass("VIMNMX R0, R1, R2, P0", {1: a, 2: b}, ["R0"], predicates={0: smaller})
    want = np.where(smaller, raw(run_ptx("min.s32", signed(a), signed(b))), raw(run_ptx("max.s32", signed(a), signed(b))))
    assert_same_bits(got, want, "VIMNMX P0", (a, b))


@pytest.mark.parametrize("type_name", ["s32", "u32"])
@pytest.mark.parametrize("opcode", ["min", "max"])
def test_vimnmx3_is_two_ptx_min_max(type_name, opcode):
    rng = np.random.default_rng(12 + len(opcode) + len(type_name))
    a, b, c = (edge_bits(rng) for _ in range(3))
    mods = ".U32" if type_name == "u32" else ""
    choose = "PT" if opcode == "min" else "!PT"
    (got,) = run_sass(f"VIMNMX3{mods} R0, R1, R2, R3, {choose}", {1: a, 2: b, 3: c}, ["R0"])
    ab = run_ptx(f"{opcode}.{type_name}", _typed(a, type_name), _typed(b, type_name))
    want = run_ptx(f"{opcode}.{type_name}", ab, _typed(c, type_name))
    assert_same_bits(got, raw(want), f"VIMNMX3{mods} {choose}", (a, b, c))


@pytest.mark.parametrize("type_name", ["s32", "u32"])
@pytest.mark.parametrize("opcode", ["min", "max"])
def test_viaddmnmx_is_ptx_add_then_min_max(type_name, opcode):
    rng = np.random.default_rng(13 + len(opcode) + len(type_name))
    a, b, c = (edge_bits(rng) for _ in range(3))
    mods = ".U32" if type_name == "u32" else ""
    choose = "PT" if opcode == "min" else "!PT"
    (got,) = run_sass(f"VIADDMNMX{mods} R0, R1, R2, R3, {choose}", {1: a, 2: b, 3: c}, ["R0"])
    total = run_ptx(f"add.{type_name}", _typed(a, type_name), _typed(b, type_name))
    want = run_ptx(f"{opcode}.{type_name}", total, _typed(c, type_name))
    assert_same_bits(got, raw(want), f"VIADDMNMX{mods} {choose}", (a, b, c))
