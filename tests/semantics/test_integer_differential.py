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
