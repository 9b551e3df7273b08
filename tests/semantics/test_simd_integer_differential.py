"""VIMNMX.U16x2/.S16x2, VABSDIFF and VABSDIFF4 against their PTX twins and NumPy.

ptxas gives min/max.u16x2/.s16x2 (CUDA's __vminu2, __vmaxs2, ...) as VIMNMX with
a lane-type modifier, sad (__sad, __usad) as VABSDIFF with the addend as its
fourth operand, and vabsdiff4 (__vabsdiffu4; .add: a sum of absolute differences)
as VABSDIFF4[.U8][.ACC]. Both executors call semantics.integer for these; the
NumPy references below are written independently, lane by lane.
"""

from __future__ import annotations

import numpy as np
import pytest

from sass_steps import LANES, assert_same_bits, edge_bits, run_ptx, run_sass

RNG_SEED = 2024


def rng(tag: str):
    return np.random.default_rng([RNG_SEED, sum(map(ord, tag))])


def lanes_of(words, width: int, signed: bool) -> np.ndarray:
    """(n, 32 // width) lane values by shifts and masks (independent of the package's views)."""
    words = np.asarray(words, dtype=np.uint32).astype(np.int64)
    out = np.stack([(words >> (width * k)) & ((1 << width) - 1) for k in range(32 // width)], axis=1)
    return np.where(out >= (1 << (width - 1)), out - (1 << width), out) if signed else out


def packed(values: np.ndarray, width: int) -> np.ndarray:
    words = sum((values[:, k] & ((1 << width) - 1)) << (width * k) for k in range(values.shape[1]))
    return np.asarray(words, dtype=np.int64).astype(np.uint32)


def lane_edges(r, width: int) -> np.ndarray:
    """Words whose lanes are random or the lane extremes (0, 1, the sign bit, all ones)."""
    edges = np.array([0, 1, 1 << (width - 1), (1 << (width - 1)) - 1, (1 << width) - 1], dtype=np.int64)
    values = r.integers(0, 1 << width, size=(LANES, 32 // width), dtype=np.int64)
    picks = r.random(values.shape) < 0.3
    values[picks] = edges[r.integers(0, len(edges), size=int(picks.sum()))]
    return packed(values, width)


@pytest.mark.parametrize("lane_type", ["u16x2", "s16x2"])
@pytest.mark.parametrize("opcode, choose", [("min", "PT"), ("max", "!PT")])
def test_vimnmx_16x2_agrees_with_ptx_and_numpy(lane_type, opcode, choose):
    r = rng(lane_type + opcode)
    a, b = lane_edges(r, 16), lane_edges(r, 16)
    (got,) = run_sass(f"VIMNMX.{lane_type.upper()[0]}16x2 R0, R1, R2, {choose}", {1: a, 2: b}, ["R0"])
    assert_same_bits(got, run_ptx(f"{opcode}.{lane_type}", a, b), f"VIMNMX vs {opcode}.{lane_type}", (a, b))
    signed = lane_type == "s16x2"
    x, y = lanes_of(a, 16, signed), lanes_of(b, 16, signed)
    want = packed(np.minimum(x, y) if opcode == "min" else np.maximum(x, y), 16)
    assert_same_bits(got, want, f"VIMNMX.{lane_type} vs NumPy", (a, b))


def test_vimnmx_16x2_predicate_chooses_per_lane():
    r = rng("per-lane")
    a, b = lane_edges(r, 16), lane_edges(r, 16)
    choose_min = r.random(LANES) < 0.5
    (got,) = run_sass("VIMNMX.S16x2 R0, R1, R2, P0", {1: a, 2: b}, ["R0"], predicates={0: choose_min})
    want = np.where(choose_min, run_ptx("min.s16x2", a, b), run_ptx("max.s16x2", a, b))
    assert_same_bits(got, want, "VIMNMX.S16x2 P0", (a, b))


@pytest.mark.parametrize("mods, ptx_type", [("", "s32"), (".U32", "u32")])
def test_vabsdiff_agrees_with_sad(mods, ptx_type):
    r = rng("sad" + ptx_type)
    a, b, c = edge_bits(r), edge_bits(r), edge_bits(r)
    (got,) = run_sass(f"VABSDIFF{mods} R0, R1, R2, R3", {1: a, 2: b, 3: c}, ["R0"])
    dtype = np.int32 if ptx_type == "s32" else np.uint32
    ptx = run_ptx(f"sad.{ptx_type}", a.view(dtype), b.view(dtype), c.view(dtype))
    assert_same_bits(got, np.asarray(ptx).view(np.uint32), f"VABSDIFF{mods} vs sad.{ptx_type}", (a, b, c))
    x, y = a.view(dtype).astype(np.int64), b.view(dtype).astype(np.int64)
    want = ((np.abs(x - y) + c.astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32)
    assert_same_bits(got, want, f"VABSDIFF{mods} vs NumPy", (a, b, c))


def test_vabsdiff_takes_an_immediate_addend():
    """`VABSDIFF R17, R0, R5, 0x7`: __sad(x, y, 7) as ptxas writes it."""
    r = rng("sad-imm")
    a, b = edge_bits(r), edge_bits(r)
    (got,) = run_sass("VABSDIFF R0, R1, R2, 0x7", {1: a, 2: b}, ["R0"])
    want = run_ptx("sad.s32", a.view(np.int32), b.view(np.int32), np.full(LANES, 7, np.int32))
    assert_same_bits(got, np.asarray(want).view(np.uint32), "VABSDIFF imm vs sad.s32", (a, b))


@pytest.mark.parametrize("lane_mod, ptx_types", [(".U8", "u32.u32.u32"), ("", "u32.s32.s32")])
@pytest.mark.parametrize("accumulate", [False, True])
def test_vabsdiff4_agrees_with_ptx_and_numpy(lane_mod, ptx_types, accumulate):
    r = rng(lane_mod + ptx_types + str(accumulate))
    a, b, c = lane_edges(r, 8), lane_edges(r, 8), edge_bits(r)
    acc = ".ACC" if accumulate else ""
    (got,) = run_sass(f"VABSDIFF4{lane_mod}{acc} R0, R1, R2, R3", {1: a, 2: b, 3: c}, ["R0"])
    ptx = run_ptx(f"vabsdiff4.{ptx_types}{'.add' if accumulate else ''}", a, b, c)
    assert_same_bits(got, ptx, f"VABSDIFF4{lane_mod}{acc} vs vabsdiff4", (a, b, c))
    signed = lane_mod == ""
    differences = np.abs(lanes_of(a, 8, signed) - lanes_of(b, 8, signed))
    want = (((differences.sum(axis=1) + c.astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32) if accumulate
            else packed(differences, 8))
    assert_same_bits(got, want, f"VABSDIFF4{lane_mod}{acc} vs NumPy", (a, b, c))
