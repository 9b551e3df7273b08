"""HGMMA, WARPGROUP and STSM on the SASS executor: sm_90 warpgroup MMAs replayed beside their PTX run.

The replay compares the SASS run's heap with the PTX run's byte for byte, so a
profile at level 'sass' says the SASS run wrote exactly the PTX run's
accumulators (HGMMA's registers are PTX's {d0, d1, ...} renumbered). Two
sources: the hand-written wgmma probes of tests/machine/isa (every swizzle,
bf16, tf32, A in registers, an f16 accumulator, negated A without
accumulation), and Triton's tutorial fp16 matmul at sm_90 (A and B from
128-byte-swizzled descriptors, B transposed).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass import sass_for_ptx
from warpsim.sass.disasm import parse_instruction
from warpsim.sass.executor.table import Unsupported, build_step

pytestmark = [pytest.mark.sass]

ISA_TESTS = os.path.join(os.path.dirname(__file__), "..", "machine", "isa")
sys.path.insert(0, ISA_TESTS)

from hopper_ptx import accumulator_matrix  # noqa: E402
from wgmma_cases import CASES, build, fp8_bits, fp8_register_a_case  # noqa: E402


def probe(name):
    """Run one wgmma probe case under the profiler: (case, accumulator words, launch profile)."""
    case = build(name, seed=1)
    module = cp.RawModule(ptx=case["ptx"])
    out = cp.asarray(np.full((128, case["regs"]), 0x7FC00000 if case["dtype"] == "f32" else 0x7E007E00,
                             np.uint32))
    with cp.profile() as prof:
        module.get_function("wgmma_probe")(
            (1,), (128,), (cp.asarray(case["image"]), np.uint32(case["image"].size), np.uint64(case["a_desc"]),
                           np.uint64(case["b_desc"]), cp.asarray(case["c_in"]), out, cp.asarray(case["afrag"]),
                           np.uint32(case["accumulate"])), shared_mem=case["shared"])
    return case, out.get(), prof.launches[-1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_probe_runs_at_sass_level(name):
    case, words, launch = probe(name)
    assert launch.level == "sass", launch.level_note
    sass = sass_for_ptx(case["ptx"], "sm_90a").kernel("wgmma_probe")
    hgmma = [ins for ins in sass.instructions if ins.opcode == "HGMMA"]
    assert len(hgmma) == 1
    assert launch.sass_counts[hgmma[0].offset] == 4                 # one execution per warp of the warpgroup
    got = accumulator_matrix(words, case["n"], case["dtype"])
    np.testing.assert_array_equal(got.astype(np.float64), case["want"])


def test_hgmma_forms_decode_from_the_listing_text():
    for text in ("HGMMA.64x128x16.F32 R88, gdesc[UR20].tnspB, R88 ;",
                 "HGMMA.64x64x16.F32 R56, gdesc[UR32], RZ, !UPT ;",
                 "HGMMA.64x64x16.F32 R120, R152, gdesc[UR32].tnspB, R120, gsb0 ;",
                 "HGMMA.64x24x16.F32 R24, gdesc[UR8].negA.tnspA, R24, UP0, gsb0 ;",
                 "HGMMA.64x16x8.F32.TF32 R24, gdesc[UR8], R24, UP0, gsb0 ;",
                 "WARPGROUP.ARRIVE ;", "WARPGROUP.DEPBAR.LE gsb0, 0x1 ;"):
        build_step(parse_instruction(text))
    for text in ("HGMMA.64x64x32.F32 R24, gdesc[UR8], R24 ;",             # K 32 is not f16's
                 "HGMMA.64x64x16.F32 R24, gdesc[UR8].spA, R24 ;",          # an unknown suffix
                 "HGMMA.64x16x8.F32.TF32 R24, R8, gdesc[UR8], R24 ;"):     # tf32 A in registers
        with pytest.raises(Unsupported):
            build_step(parse_instruction(text))


@pytest.mark.triton
def test_triton_matmul_sm90_runs_at_sass_level():
    pytest.importorskip("triton")
    import triton
    from warpsim.api import triton as wt
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontends"))
    from triton_kernels import matmul_kernel
    rng = np.random.default_rng(3)
    m, n, k = 128, 64, 96
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = cp.zeros((m, n), np.float16)
    meta = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, num_warps=4, num_stages=3)
    grid = (triton.cdiv(m, 64) * triton.cdiv(n, 64),)
    with cp.settings(gpu="h200"), cp.profile() as prof:
        compiled = wt.launch(matmul_kernel, grid, cp.asarray(a), cp.asarray(b), c, m, n, k, k, 1, n, 1, n, 1,
                             arch=90, **meta)
    assert "wgmma.mma_async" in compiled.ptx
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    sass = sass_for_ptx(compiled.ptx, "sm_90a").kernel(compiled.name)
    hgmma = [ins.offset for ins in sass.instructions if ins.opcode == "HGMMA"]
    assert hgmma and all(launch.sass_counts.get(offset, 0) > 0 for offset in hgmma)
    np.testing.assert_allclose(c.get().astype(np.float64), a.astype(np.float64) @ b, rtol=4e-3, atol=2e-2)


@pytest.mark.triton
@pytest.mark.parametrize("blocks, shape, form", [((32, 32, 32), (64, 64, 64), "STSM.16.M88.4"),
                                                 ((64, 128, 32), (100, 200, 70), "STSM.16.MT88.4")])
def test_triton_stmatrix_epilogue_runs_at_sass_level(blocks, shape, form):
    """Triton's Hopper epilogue stores accumulator tiles with stmatrix (STSM), transposed for wide tiles."""
    pytest.importorskip("triton")
    import triton
    from warpsim.api import triton as wt
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontends"))
    from triton_kernels import matmul_kernel
    rng = np.random.default_rng(5)
    (bm, bn, bk), (m, n, k) = blocks, shape
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = cp.zeros((m, n), np.float16)
    with cp.profile() as prof:
        compiled = wt.launch(matmul_kernel, (triton.cdiv(m, bm) * triton.cdiv(n, bn),), cp.asarray(a), cp.asarray(b),
                             c, m, n, k, k, 1, n, 1, n, 1, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                             GROUP_SIZE_M=2, num_warps=4, num_stages=3, arch=90)
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    stsm = [ins.offset for ins in sass_for_ptx(compiled.ptx, "sm_90a").kernel(compiled.name).instructions
            if ins.full_opcode == form]
    assert stsm and all(launch.sass_counts.get(offset, 0) > 0 for offset in stsm)
    np.testing.assert_allclose(c.get().astype(np.float64), a.astype(np.float64) @ b, rtol=4e-3, atol=2e-2)


@pytest.mark.parametrize("atype, n, dtype, swizzles", [("e4m3", 32, "f32", ("128B", "64B")),
                                                       ("e5m2", 16, "f16", ("none", "32B"))])
def test_fp8_warpgroup_mma_runs_at_sass_level(atype, n, dtype, swizzles):
    """wgmma of fp8 inputs is QGMMA (.E4M3.E4M3 / .E5M2.E5M2, K = 32, K-major): its accumulators equal the
    PTX run's, and A @ B + C of small integers (exact in f32 and f16)."""
    from hopper_ptx import descriptor, place, wgmma_probe
    from wgmma_cases import _fragment_words, layout_strides
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (64, 32)).astype(np.float64)
    b = rng.integers(-4, 5, (32, n)).astype(np.float64)
    c = rng.integers(-20, 21, (64, n)).astype(np.float64)
    image = np.zeros(32 * 1024, np.uint8)
    a_lbo, a_sbo = layout_strides(64, 32, 1, "K", swizzles[0])
    place(image, 0, fp8_bits(a, atype), 1, "K", swizzles[0], a_lbo, a_sbo)
    b_lbo, b_sbo = layout_strides(n, 32, 1, "K", swizzles[1])
    place(image, 16 * 1024, fp8_bits(b.T, atype), 1, "K", swizzles[1], b_lbo, b_sbo)
    image = image[:(int(np.flatnonzero(image).max()) + 16) // 16 * 16].copy()
    ptx, regs = wgmma_probe(n, dtype, atype)
    sass = sass_for_ptx(ptx, "sm_90a").kernel("wgmma_probe")
    assert [ins.text.split()[0] for ins in sass.instructions if "GMMA" in ins.opcode] == \
        [f"QGMMA.64x{n}x32.{dtype.upper()}.{atype.upper()}.{atype.upper()}"]
    out = cp.asarray(np.full((128, regs), 0x7FC00000 if dtype == "f32" else 0x7E007E00, np.uint32))
    with cp.profile() as prof:
        cp.RawModule(ptx=ptx).get_function("wgmma_probe")(
            (1,), (128,), (cp.asarray(image.view(np.uint32)), np.uint32(image.size // 4),
                           np.uint64(descriptor(0, a_lbo, a_sbo, swizzles[0])),
                           np.uint64(descriptor(16 * 1024, b_lbo, b_sbo, swizzles[1])),
                           cp.asarray(_fragment_words(c, n, dtype)), out, cp.asarray(np.zeros((128, 4), np.uint32)),
                           np.uint32(1)), shared_mem=len(image))
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    got = accumulator_matrix(out.get(), n, dtype)
    np.testing.assert_array_equal(got.astype(np.float64), a @ b + c)


@pytest.mark.parametrize("atype, n, dtype", [("e4m3", 16, "f32"), ("e5m2", 8, "f16")])
def test_fp8_warpgroup_mma_with_a_in_registers(atype, n, dtype):
    """fp8 wgmma with A in registers (as fp8 attention feeds P @ V): four bytes a register, laid out as
    the PTX manual's m64nNk32 A fragment; QGMMA Rd, Ra, gdesc[URx] at SASS level writes the PTX run's
    accumulators, and both equal A @ B + C of small integers (exact)."""
    case = fp8_register_a_case(atype, n, dtype, seed=4)
    sass = sass_for_ptx(case["ptx"], "sm_90a").kernel("wgmma_probe")
    gmma = [ins.text for ins in sass.instructions if "GMMA" in ins.opcode]
    assert len(gmma) == 1 and gmma[0].startswith(f"QGMMA.64x{n}x32.{dtype.upper()}.{atype.upper()}"), gmma
    out = cp.asarray(np.full((128, case["regs"]), 0x7FC00000 if dtype == "f32" else 0x7E007E00, np.uint32))
    with cp.profile() as prof:
        cp.RawModule(ptx=case["ptx"]).get_function("wgmma_probe")(
            (1,), (128,), (cp.asarray(case["image"]), np.uint32(case["image"].size), np.uint64(case["a_desc"]),
                           np.uint64(case["b_desc"]), cp.asarray(case["c_in"]), out, cp.asarray(case["afrag"]),
                           np.uint32(case["accumulate"])), shared_mem=case["shared"])
    launch = prof.launches[-1]
    assert launch.level == "sass", launch.level_note
    got = accumulator_matrix(out.get(), n, dtype)
    np.testing.assert_array_equal(got.astype(np.float64), case["want"])


INT8_RANGE = {"s8": (-128, 128), "u8": (0, 256)}


@pytest.mark.parametrize("atype, btype, n, a_in_registers, satfinite", [
    ("s8", "s8", 32, False, False), ("s8", "u8", 16, True, False), ("u8", "s8", 8, False, True)])
def test_integer_warpgroup_mma_at_both_levels(atype, btype, n, a_in_registers, satfinite):
    """wgmma of 8-bit integers into s32 (IGMMA.64xNx32.S8.U8 at SASS level), A and B signed or not each,
    A from shared memory or registers: the PTX run and the SASS run both write A @ B + C, exact, the sum
    wrapping around 32 bits, or clamped to them with .satfinite (C near the limits makes both happen)."""
    from hopper_ptx import a_fragments_8bit, descriptor, place, wgmma_probe
    from wgmma_cases import _fragment_words, layout_strides
    rng = np.random.default_rng(7)
    a = rng.integers(*INT8_RANGE[atype], (64, 32))
    b = rng.integers(*INT8_RANGE[btype], (32, n))
    c = rng.integers(-(1 << 31), 1 << 31, (64, n))
    c[::3] = np.where(c[::3] < 0, -(1 << 31), (1 << 31) - 1)               # rows at the limits: they overflow
    exact = a @ b + c
    want = np.clip(exact, -(1 << 31), (1 << 31) - 1) if satfinite else (exact + (1 << 31)) % (1 << 32) - (1 << 31)
    assert (want != exact).any() and (want == exact).any()
    image = np.zeros(32 * 1024, np.uint8)
    a_lbo, a_sbo = layout_strides(64, 32, 1, "K", "128B")
    if not a_in_registers:
        place(image, 0, a.astype(np.uint8), 1, "K", "128B", a_lbo, a_sbo)
    b_lbo, b_sbo = layout_strides(n, 32, 1, "K", "64B")
    place(image, 16 * 1024, b.T.astype(np.uint8), 1, "K", "64B", b_lbo, b_sbo)
    image = image[:(int(np.flatnonzero(image).max()) + 16) // 16 * 16].copy()
    ptx, regs = wgmma_probe(n, "s32", atype, a_in_registers=a_in_registers, btype=btype, satfinite=satfinite)
    sass = sass_for_ptx(ptx, "sm_90a").kernel("wgmma_probe")
    assert [ins.text.split()[0] for ins in sass.instructions if "GMMA" in ins.opcode] == \
        [f"IGMMA.64x{n}x32.{atype.upper()}.{btype.upper()}" + (".SAT" if satfinite else "")]
    function = cp.RawModule(ptx=ptx).get_function("wgmma_probe")
    for level in ("ptx", "sass"):
        out = cp.asarray(np.full((128, regs), 0x7FC00000, np.uint32))
        with cp.profile(level=level) as prof:
            function((1,), (128,), (cp.asarray(image.view(np.uint32)), np.uint32(image.size // 4),
                                    np.uint64(descriptor(0, a_lbo, a_sbo, "128B")),
                                    np.uint64(descriptor(16 * 1024, b_lbo, b_sbo, "64B")),
                                    cp.asarray(_fragment_words(c, n, "s32")), out,
                                    cp.asarray(a_fragments_8bit(a.astype(np.uint8))), np.uint32(1)),
                     shared_mem=len(image))
        assert prof.launches[-1].level == level, prof.launches[-1].level_note
        np.testing.assert_array_equal(accumulator_matrix(out.get(), n, "s32"), want, err_msg=level)
