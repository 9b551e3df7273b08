"""LOP3, SHF and PRMT against PTX's lop3, shf and prmt on random words (semantics/bits.py serves both)."""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import assert_same_bits, edge_bits, run_ptx, run_sass


@pytest.mark.parametrize("lut", [0x00, 0xFF, 0x96, 0xE8, 0xF0, 0xCC, 0xAA, 0x3C, 0x80, 0xFE, 0x5A, 0x1D])
def test_lop3_agrees_with_ptx(lut):
    rng = np.random.default_rng(lut)
    a, b, c = (edge_bits(rng) for _ in range(3))
    (got,) = run_sass(f"LOP3.LUT R0, R1, R2, R3, {lut:#x}, !PT", {1: a, 2: b, 3: c}, ["R0"])
    want = run_ptx("lop3.b32", a, b, c, np.full(len(a), lut, dtype=np.uint32))
    assert_same_bits(got, want, f"LOP3 {lut:#x}", (a, b, c))


@pytest.mark.parametrize("lut", [0x80, 0xFE, 0x96, 0x0F])
def test_plop3_is_the_same_truth_table_on_predicates(lut):
    rng = np.random.default_rng(lut + 1)
    a, b, c = (rng.random(1024) < 0.5 for _ in range(3))
    got_p, got_q = run_sass(f"PLOP3.LUT P0, P1, P2, P3, P4, {lut:#x}, {0xFF ^ lut:#x}", {},
                            ["P0", "P1"], predicates={2: a, 3: b, 4: c})
    words = [x.astype(np.uint32) for x in (a, b, c)]
    want = run_ptx("lop3.b32", *words, np.full(1024, lut, dtype=np.uint32)) & np.uint32(1)
    assert_same_bits(got_p, want.astype(bool), f"PLOP3 {lut:#x}")
    assert_same_bits(got_q, ~want.astype(bool), f"PLOP3 second table {0xFF ^ lut:#x}")


@pytest.mark.parametrize("sass, ptx", [("SHF.L.U32.HI", "shf.l.clamp.b32"), ("SHF.L.W.U32.HI", "shf.l.wrap.b32"),
                                       ("SHF.R.U32", "shf.r.clamp.b32"), ("SHF.R.W.U32", "shf.r.wrap.b32")])
def test_funnel_shift_agrees_with_ptx(sass, ptx):
    rng = np.random.default_rng(len(sass) + len(ptx))
    low, high = edge_bits(rng), edge_bits(rng)
    amount = rng.integers(0, 80, size=len(low)).astype(np.uint32)
    amount[:8] = [0, 1, 31, 32, 33, 63, 64, 0xFFFFFFFF]
    (got,) = run_sass(f"{sass} R0, R1, R2, R3", {1: low, 2: amount, 3: high}, ["R0"])
    want = run_ptx(ptx, low, high, amount)
    assert_same_bits(got, want, sass, (low, high, amount))


def test_prmt_agrees_with_ptx():
    rng = np.random.default_rng(7)
    a, b = edge_bits(rng), edge_bits(rng)
    selector = rng.integers(0, 2 ** 16, size=len(a)).astype(np.uint32)
    (got,) = run_sass("PRMT R0, R1, R2, R3", {1: a, 2: selector, 3: b}, ["R0"])
    want = run_ptx("prmt.b32", a, b, selector)
    assert_same_bits(got, want, "PRMT", (a, b, selector))


def test_plop3_reads_register_signs_as_ptxas_saturates_add():
    """ptxas's add.sat.s32: wrap, PLOP3 over the signs (R.SIGN) of both operands and the sum
    (positive overflow 0x2, negative 0x40), then SEL the limits; `!R.SIGN` inverts a sign."""
    rng = np.random.default_rng(23)
    a, b = edge_bits(rng), edge_bits(rng)
    total = (a.astype(np.uint64) + b).astype(np.uint32)
    regs = {0: a, 9: b, 6: total}
    over, under = run_sass("PLOP3.LUT P0, P1, R0.reuse.SIGN, R9.SIGN, R6.SIGN, 0x2, 0x40", regs, ["P0", "P1"])
    (high,) = run_sass("SEL R6, R6, 0x7fffffff, !P0", regs, ["R6"], predicates={0: over})
    (got,) = run_sass("SEL R6, R6, 0x80000000, !P1", {6: high}, ["R6"], predicates={1: under})
    want = run_ptx("add.sat.s32", a.view(np.int32), b.view(np.int32))
    assert_same_bits(got, want.view(np.uint32), "add.sat.s32 as IADD, PLOP3 .SIGN, SEL", (a, b))
    (inverted,) = run_sass("PLOP3.LUT P0, PT, !R0.SIGN, PT, PT, 0x80, 0x0", regs, ["P0"])
    assert_same_bits(inverted, a < np.uint32(0x80000000), "PLOP3 !R0.SIGN", (a,))
