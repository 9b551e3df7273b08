"""F2I, FRND, F2F, F2FP, I2F and I2IP against the cvt forms they come from, on random and edge bits.

NaNs (0, or the top bit alone from f64 and into 64-bit integers; payloads
kept or canonical as an H200 writes them between float types), infinities,
values just past every integer range, subnormals under .FTZ, and integers
that need rounding to f32.
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


# the forms ptxas emits for cvt alone (cvt.ftz.f64.f32 is FMUL.FTZ, then F2F.F64.F32)
F2F_PAIRS = [("F2F.F16.F32", "cvt.rn.f16.f32", 32, 16), ("F2F.F16.F32.RZ", "cvt.rz.f16.f32", 32, 16),
             ("F2F.F16.F32.RM", "cvt.rm.f16.f32", 32, 16), ("F2F.F32.F64", "cvt.rn.f32.f64", 64, 32),
             ("F2F.F32.F64.RP", "cvt.rp.f32.f64", 64, 32), ("F2F.F64.F32", "cvt.f64.f32", 32, 64),
             ("F2F.F16.F64", "cvt.rn.f16.f64", 64, 16), ("F2F.F64.F16", "cvt.f64.f16", 16, 64),
             ("F2F.F32.F16", "cvt.f32.f16", 16, 32), ("F2F.BF16.F32.RZ", "cvt.rz.bf16.f32", 32, 16),
             ("F2F.BF16.F64", "cvt.rn.bf16.f64", 64, 16), ("F2F.BF16.F64.RM", "cvt.rm.bf16.f64", 64, 16),
             ("F2F.F64.BF16", "cvt.f64.bf16", "bf16", 64), ("F2F.F16.BF16", "cvt.rn.f16.bf16", "bf16", 16),
             ("F2F.BF16.F16", "cvt.rn.bf16.f16", 16, 16)]


def _typed(bits, width):
    """Raw source bits as the PTX machine's typed register values (bf16: its u16 bits)."""
    if width == "bf16":
        return (bits & np.uint32(0xFFFF)).astype(np.uint16)
    if width == 16:
        return (bits & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16)
    return as_f32(bits) if width == 32 else as_f64(bits)


@pytest.mark.parametrize("sass, ptx, src, dst", F2F_PAIRS)
def test_f2f_agrees_with_cvt(sass, ptx, src, dst):
    rng = np.random.default_rng(len(sass) * 3 + len(ptx) + dst)
    a = edge_bits(rng, 64 if src == 64 else 32)
    if src in (16, "bf16"):                              # 16-bit edge values in the low half
        a = (a & np.uint32(0xFFFF)) | (a >> np.uint32(16) << np.uint32(16))
    registers = dict(zip((2, 3), split64(a))) if src == 64 else {2: a}
    (got,) = run_sass(f"{sass} R4, R2", registers, ["R4.64" if dst == 64 else "R4"])
    want = np.asarray(run_ptx(ptx, _typed(a, src)))
    want = want.view({16: np.uint16, 32: np.uint32, 64: np.uint64}[dst])
    assert_same_bits(got, want.astype(np.uint64 if dst == 64 else np.uint32), sass, (a,))


@pytest.mark.parametrize("kind, mods", [("F16", ""), ("F16", ".RZ"), ("BF16", ""), ("BF16", ".RP"),
                                        ("BF16", ".RELU")])
def test_f2fp_packs_two_conversions_as_cvt(kind, mods):
    rng = np.random.default_rng(len(kind) + 3 * len(mods))
    a, b = edge_bits(rng), edge_bits(rng)
    (got,) = run_sass(f"F2FP.{kind}.F32.PACK_AB{mods} R0, R1, R2", {1: a, 2: b}, ["R0"])
    rounding = mods.lower().lstrip(".") if mods in (".RZ", ".RP") else "rn"
    relu = ".relu" if mods == ".RELU" else ""
    want = run_ptx(f"cvt.{rounding}{relu}.{kind.lower()}x2.f32", as_f32(a), as_f32(b))
    assert_same_bits(got, want, f"F2FP.{kind}{mods}", (a, b))


@pytest.mark.parametrize("sass, ptx, wide", [("I2F", "cvt.rn.f32.s32", False), ("I2F.U32.RZ", "cvt.rz.f32.u32", False),
                                             ("I2F.F64.S64", "cvt.rn.f64.s64", True),
                                             ("I2F.S64.RM", "cvt.rm.f32.s64", True)])
def test_i2f_agrees_with_cvt(sass, ptx, wide):
    rng = np.random.default_rng(len(sass) + 60)
    a = edge_bits(rng, 64 if wide else 32)
    registers = dict(zip((2, 3), split64(a))) if wide else {2: a}
    to_f64 = ".F64" in sass
    (got,) = run_sass(f"{sass} R4, R2", registers, ["R4.64" if to_f64 else "R4"])
    source = ptx.rsplit(".", 1)[1]
    typed = a.view(np.int64) if source == "s64" else a.view(np.int32) if source == "s32" else a
    assert_same_bits(got, run_ptx(ptx, typed), sass, (a,))


@pytest.mark.parametrize("target", ["U16", "S16", "U8", "S8", "U4", "S4", "U2", "S2"])
def test_i2ip_agrees_with_cvt_pack_sat(target):
    rng = np.random.default_rng(len(target) * 9 + ord(target[0]))
    a, b, c = edge_bits(rng), edge_bits(rng), edge_bits(rng)
    bits = 2 * int(target[1:])
    if bits == 32:
        (got,) = run_sass(f"I2IP.{target}.S32.SAT R0, R1, R2, RZ", {1: a, 2: b}, ["R0"])
        want = run_ptx(f"cvt.pack.sat.{target.lower()}.s32", a.view(np.int32), b.view(np.int32))
    else:
        suffix = "" if bits == 16 else f".{32 - bits}"
        (got,) = run_sass(f"I2IP.{target}.S32.SAT R0, R1, R2, R3{suffix}", {1: a, 2: b, 3: c}, ["R0"])
        types = f"{target.lower()}.s32.b32" if target in ("U8", "S8") else f"{target.lower()}.s32.b32"
        want = run_ptx(f"cvt.pack.sat.{types}", a.view(np.int32), b.view(np.int32), c)
    assert_same_bits(got, want, f"I2IP.{target}", (a, b, c))


@pytest.mark.parametrize("kind", ["F16", "BF16"])
def test_f2fp_merge_c_converts_one_value_as_cvt_relu(kind):
    a = edge_bits(np.random.default_rng(len(kind) + 70))
    (got,) = run_sass(f"F2FP.RELU.{kind}.F32.MERGE_C R0, R1, RZ", {1: a}, ["R0"])
    want = np.asarray(run_ptx(f"cvt.rn.relu.{kind.lower()}.f32", as_f32(a))).view(np.uint16)
    assert_same_bits(got, want.astype(np.uint32), f"F2FP.{kind}.MERGE_C", (a,))


@pytest.mark.parametrize("sass, ptx", [("F2I.BF16.NTZ", "cvt.rni.s32.bf16"),
                                       ("F2I.U32.BF16.TRUNC.NTZ", "cvt.rzi.u32.bf16"),
                                       ("F2I.S64.BF16.FLOOR", "cvt.rmi.s64.bf16"),
                                       ("F2I.S16.BF16.CEIL", "cvt.rpi.s16.bf16")])
def test_f2i_from_bf16_agrees_with_cvt(sass, ptx):
    a = edge_bits(np.random.default_rng(len(sass) + 80))
    a = (a & np.uint32(0xFFFF)) | (a >> np.uint32(16) << np.uint32(16))
    wide = "64" in sass
    (got,) = run_sass(f"{sass} R4, R2", {2: a}, ["R4.64" if wide else "R4"])
    want = np.asarray(run_ptx(ptx, (a & np.uint32(0xFFFF)).astype(np.uint16)))
    if want.itemsize == 2:                               # s16: sign-extended into the register, as F2I writes it
        want = want.astype(np.int32)
    assert_same_bits(got, want.view(np.uint64 if wide else np.uint32), sass, (a,))


@pytest.mark.parametrize("mode", ["", ".RZ", ".RM", ".RP"])
def test_i2f_to_bf16_agrees_with_cvt(mode):
    a = edge_bits(np.random.default_rng(len(mode) + 90))
    (got,) = run_sass(f"I2F.BF16{mode} R4, R2", {2: a}, ["R4"])
    want = np.asarray(run_ptx(f"cvt.{mode.lstrip('.').lower() or 'rn'}.bf16.s32", a.view(np.int32)))
    assert_same_bits(got, want.astype(np.uint32), f"I2F.BF16{mode}", (a,))


@pytest.mark.parametrize("dst", ["S16", "U16", "S8", "U8"])
@pytest.mark.parametrize("sat", [".SAT", ""])
def test_i2i_agrees_with_cvt_between_integers(dst, sat):
    a = edge_bits(np.random.default_rng(len(dst) * 7 + len(sat)))
    (got,) = run_sass(f"I2I.{dst}.S32{sat} R4, R2", {2: a}, ["R4"])
    want = np.asarray(run_ptx(f"cvt{sat.lower()}.{dst.lower()}.s32", a.view(np.int32)))
    assert_same_bits(got, want.astype(np.int32).view(np.uint32), f"I2I.{dst}.S32{sat}", (a,))


@pytest.mark.parametrize("kind", ["e4m3", "e5m2"])
def test_f2fp_fp8_pair_merges_c_above_cvt_satfinite(kind):
    """F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C d, a, b, c: cvt.rn.satfinite.e4m3x2.f32's pair of a and b
    in the low half (a above b), c's low half above it (fp8 values packed four to a register)."""
    rng = np.random.default_rng(31 + len(kind))
    a, b, c = edge_bits(rng), edge_bits(rng), edge_bits(rng)
    small = rng.random(len(a)) < 0.5                          # many values in fp8's range too
    a[small] = (rng.standard_normal(int(small.sum())) * 100).astype(np.float32).view(np.uint32)
    (got,) = run_sass(f"F2FP.SATFINITE.{kind.upper()}.F32.PACK_AB_MERGE_C R0, R1, R2, R3", {1: a, 2: b, 3: c},
                      ["R0"])
    pair = np.asarray(run_ptx(f"cvt.rn.satfinite.{kind}x2.f32", as_f32(a), as_f32(b))).astype(np.uint32)
    want = ((c & np.uint32(0xFFFF)) << np.uint32(16)) | pair
    assert_same_bits(got, want, f"F2FP {kind} pair", (a, b, c))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("dst", ["f32", "f64"])
def test_wide_integers_to_float_nearest_round_once(dtype, dst):
    """cvt.rn.f32.s64 and kin take NumPy's cast through float64 for values within 2^53 (exact
    there) and the exact rule past it: both must give the exact rule's bits, and f64 Python's."""
    from warpsim.semantics.conversion import convert_to_float
    from warpsim.semantics.floatbits import FORMATS, round_integers
    rng = np.random.default_rng(7 + len(dst))
    info = np.iinfo(dtype)
    edges = [0, 1, 2**24 + 1, 2**53 - 1, 2**53, 2**53 + 1, 2**53 + 3, 2**54 + 2, int(info.max), int(info.min)]
    if dtype is np.int64:
        edges += [-2**53, -2**53 - 1, -2**53 + 1, -(2**24 + 1)]
    values = np.concatenate([rng.integers(info.min, info.max, 5000, dtype=dtype, endpoint=True),
                             rng.integers(-2**54, 2**54, 5000).astype(dtype),
                             rng.integers(-5000, 5000, 500).astype(dtype), np.array(edges, dtype=dtype)])
    got = convert_to_float(values, dst, "int", {"rn"})
    exact = round_integers(values, FORMATS[dst], "rn").astype(np.float32 if dst == "f32" else np.float64)
    assert got.dtype == exact.dtype
    assert (got.view(np.uint8) == exact.view(np.uint8)).all()
    if dst == "f64":
        assert (got == np.array([float(int(v)) for v in values])).all()
