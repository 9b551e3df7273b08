"""FADD/FMUL/FFMA, FMNMX (.NAN), MUFU and DADD/DMUL/DFMA against their PTX twins on random and edge bits.

NaNs of every kind, infinities, signed zeros, subnormals (with and without
.FTZ) and the largest finite values go through both executors, which share
semantics/floatbits.py and semantics/floating.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import as_f32, as_f64, assert_same_bits, edge_bits, run_ptx, run_sass, split64

F32_PAIRS = [("FADD", "add.rn.f32", 2), ("FADD.FTZ", "add.rn.ftz.f32", 2), ("FADD.RZ", "add.rz.f32", 2),
             ("FMUL", "mul.rn.f32", 2), ("FMUL.FTZ", "mul.rn.ftz.f32", 2), ("FMUL.RM", "mul.rm.f32", 2),
             ("FMUL.SAT", "mul.rn.sat.f32", 2),
             ("FFMA", "fma.rn.f32", 3), ("FFMA.FTZ", "fma.rn.ftz.f32", 3), ("FFMA.RP", "fma.rp.f32", 3)]


@pytest.mark.parametrize("sass, ptx, arity", F32_PAIRS)
def test_f32_arithmetic_agrees_with_ptx(sass, ptx, arity):
    rng = np.random.default_rng(len(sass) * 31 + len(ptx))
    values = [edge_bits(rng) for _ in range(arity)]
    regs = ", ".join(f"R{k + 1}" for k in range(arity))
    (got,) = run_sass(f"{sass} R0, {regs}", {k + 1: v for k, v in enumerate(values)}, ["R0"])
    want = run_ptx(ptx, *(as_f32(v) for v in values))
    assert_same_bits(got, want, sass, values)


@pytest.mark.parametrize("ftz", [False, True])
@pytest.mark.parametrize("which", ["min", "max"])
def test_fmnmx_agrees_with_min_max(which, ftz):
    rng = np.random.default_rng(3 + ftz + 2 * (which == "max"))
    a, b = edge_bits(rng), edge_bits(rng)
    pick = "PT" if which == "min" else "!PT"
    (got,) = run_sass(f"FMNMX{'.FTZ' if ftz else ''} R0, R1, R2, {pick}", {1: a, 2: b}, ["R0"])
    want = run_ptx(f"{which}{'.ftz' if ftz else ''}.f32", as_f32(a), as_f32(b))
    assert_same_bits(got, want, f"FMNMX {which}", (a, b))


# MUFU alone is what ptxas emits for these (sqrt.approx.ftz.f32 as well, through MUFU.RSQ and FMUL)
@pytest.mark.parametrize("sass, ptx", [("RCP", "rcp.approx.ftz.f32"), ("EX2", "ex2.approx.ftz.f32"),
                                       ("LG2", "lg2.approx.ftz.f32"), ("RSQ", "rsqrt.approx.ftz.f32"),
                                       ("TANH", "tanh.approx.f32")])
def test_mufu_agrees_with_the_approx_function(sass, ptx):
    a = edge_bits(np.random.default_rng(5 + len(ptx)))
    (got,) = run_sass(f"MUFU.{sass} R0, R1", {1: a}, ["R0"])
    assert_same_bits(got, run_ptx(ptx, as_f32(a)), f"MUFU.{sass}", (a,))


@pytest.mark.parametrize("which", ["SIN", "COS"])
def test_fmul_rz_then_mufu_sin_cos_agree_with_sin_cos_approx_ftz(which):
    """sin/cos.approx.ftz.f32 as ptxas emits them: FMUL.RZ by f32(1/(2 pi)), then MUFU.SIN/COS."""
    a = edge_bits(np.random.default_rng(7 + len(which)))
    (turns,) = run_sass("FMUL.RZ.FTZ R2, R1, 0.15915493667125701904", {1: a}, ["R2"])
    (got,) = run_sass(f"MUFU.{which} R0, R2", {2: turns}, ["R0"])
    assert_same_bits(got, run_ptx(f"{which.lower()}.approx.ftz.f32", as_f32(a)), f"MUFU.{which}", (a,))


@pytest.mark.parametrize("sass, ptx, arity", [("DADD", "add.rn.f64", 2), ("DMUL", "mul.rn.f64", 2),
                                              ("DFMA", "fma.rn.f64", 3), ("DADD.RZ", "add.rz.f64", 2),
                                              ("DFMA.RM", "fma.rm.f64", 3)])
def test_f64_arithmetic_agrees_with_ptx(sass, ptx, arity):
    rng = np.random.default_rng(len(sass) * 17 + arity)
    values = [edge_bits(rng, 64) for _ in range(arity)]
    registers = {}
    for k, v in enumerate(values):
        registers[2 + 2 * k], registers[3 + 2 * k] = split64(v)
    regs = ", ".join(f"R{2 + 2 * k}" for k in range(arity))
    (got,) = run_sass(f"{sass} R8, {regs}", registers, ["R8.64"])
    want = run_ptx(ptx, *(as_f64(v) for v in values))
    assert_same_bits(got, want, sass, values)


@pytest.mark.parametrize("sass, ptx", [("DADD R8, R2, -R4", "sub.rn.f64"), ("DADD R8, -RZ, |R2|", "abs.f64"),
                                       ("DADD R8, -RZ, -R2", "neg.f64"), ("DADD.RM R8, R2, -R4", "sub.rm.f64")])
def test_dadd_with_operand_modifiers_agrees_with_sub_abs_neg(sass, ptx):
    """ptxas's sub/abs/neg.f64: a NaN operand comes out with its own sign, not the modifier's."""
    rng = np.random.default_rng(len(sass) + 23)
    a, b = edge_bits(rng, 64), edge_bits(rng, 64)
    registers = {2: split64(a)[0], 3: split64(a)[1], 4: split64(b)[0], 5: split64(b)[1]}
    (got,) = run_sass(sass, registers, ["R8.64"])
    sources = (as_f64(a), as_f64(b)) if ptx.startswith("sub") else (as_f64(a),)
    assert_same_bits(got, run_ptx(ptx, *sources), sass, (a, b))


@pytest.mark.parametrize("which", ["min", "max"])
def test_fmnmx_nan_agrees_with_min_max_nan(which):
    rng = np.random.default_rng(29 + (which == "max"))
    a, b = edge_bits(rng), edge_bits(rng)
    (got,) = run_sass(f"FMNMX.NAN R0, R1, R2, {'PT' if which == 'min' else '!PT'}", {1: a, 2: b}, ["R0"])
    assert_same_bits(got, run_ptx(f"{which}.NaN.f32", as_f32(a), as_f32(b)), f"FMNMX.NAN {which}", (a, b))
