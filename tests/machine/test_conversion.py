"""cvt against exact references: Python ints and fractions.Fraction, with a
rounding reference that brackets each value between neighbouring bit patterns
(independent of warpsim's own rounding code)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from warpsim.errors import UnsupportedInstruction
from warpsim.machine.isa.evaluate import evaluate, parse_mnemonic
from warpsim.machine.isa.table import lookup

from float_reference import BITS, bits_to_float, inf_key, ref_round

# Inputs and references deliberately overflow and make NaNs.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

MODES = ("rn", "rz", "rm", "rp")
INT_TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]
DTYPE = {t: np.dtype(("u" if t[0] == "u" else "") + "int" + t[1:]) for t in INT_TYPES}
FLOAT_DTYPE = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


# --------------------------------------------------------- reference rounding

def as_float64(result, t: str) -> np.ndarray:
    result = np.asarray(result)
    if t == "bf16":
        return (result.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return result.astype(np.float64)


def assert_floats(got, want, t, context):
    got = as_float64(got, t)
    want = np.asarray(want, dtype=np.float64)
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, f"{context}: {bad.size} bad lanes, e.g. {bad[0]}: got {got[bad[0]]!r} " \
                          f"want {want[bad[0]]!r}"


def random_ints(rng, t: str, n: int) -> np.ndarray:
    info = np.iinfo(DTYPE[t])
    values = rng.integers(info.min, info.max, n, dtype=DTYPE[t], endpoint=True)
    # values with few significant bits at every magnitude, and rounding ties
    shifts = rng.integers(0, info.bits - 1, n)
    small = [(int(m) << int(s)) & ((1 << (info.bits - 1)) - 1) for m, s in
             zip(rng.integers(1, 1 << 14, n), shifts)]
    values = np.where(rng.random(n) < 0.5, np.array(small, dtype=np.uint64).astype(DTYPE[t]), values)
    values[:4] = [info.min, info.max, 0, 1]
    return values


def random_floats(rng, t: str, n: int) -> np.ndarray:
    """Values of type t as float64: every exponent, plus specials."""
    nbits = BITS[t]
    if nbits == 64:
        raw = rng.integers(0, 1 << 63, n, dtype=np.int64).astype(np.uint64) << np.uint64(1)
        raw |= rng.integers(0, 2, n, dtype=np.int64).astype(np.uint64)
    else:
        raw = rng.integers(0, 1 << nbits, n, dtype=np.int64).astype(np.uint64)
    values = np.array([bits_to_float(int(b), t) for b in raw])
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, 1.5, 2.5, -2.5, 1e-40,
                bits_to_float(1, t), bits_to_float(inf_key(t) - 1, t)]
    values[: len(specials)] = as_float64(typed(specials, t), t)
    return values


def typed(values, t):
    values = np.asarray(values, dtype=np.float64)
    if t == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return values.astype(FLOAT_DTYPE[t])


# ------------------------------------------------------------- int -> float

@pytest.mark.parametrize("src", ["s64", "u64", "s32", "u32", "s16", "u8"])
def test_int_to_float_rounds_exactly_in_every_mode(src):
    rng = np.random.default_rng(1)
    values = random_ints(rng, src, 300)
    for dst in ("f64", "f32", "f16", "bf16"):      # bf16 <-> 8-bit integers: sm_90 (cuda_bf16.hpp's __uchar2bfloat16_rn)
        for mode in MODES:
            if BITS[dst] >= 32 and np.iinfo(DTYPE[src]).bits <= 16 and mode != "rn":
                continue                                         # exact anyway
            got = evaluate(f"cvt.{mode}.{dst}.{src}", values)
            want = [ref_round(Fraction(int(v)), dst, mode) for v in values]
            assert_floats(got, want, dst, f"cvt.{mode}.{dst}.{src}")


def test_int64_to_f32_does_not_round_twice():
    # 2**62 + 2**38 + 1: through float64 it becomes the f32 tie 2**62 + 2**38 and
    # rounds to even (down); the exact value is above the tie, so f32 rounds up.
    value = np.int64([2 ** 62 + 2 ** 38 + 1, -(2 ** 62 + 2 ** 38 + 1), 2 ** 64 - 1 - 2 ** 63])
    got = evaluate("cvt.rn.f32.s64", value)
    assert list(got.astype(np.float64)) == [2.0 ** 62 + 2.0 ** 39, -(2.0 ** 62 + 2.0 ** 39), 2.0 ** 63]
    got = evaluate("cvt.rn.f32.u64", np.uint64([2 ** 64 - 1, 2 ** 63 + 2 ** 39 + 1]))
    assert list(got.astype(np.float64)) == [2.0 ** 64, 2.0 ** 63 + 2.0 ** 40]


# ------------------------------------------------------------- float -> int

@pytest.mark.parametrize("src", ["f32", "f64", "f16", "bf16"])
def test_float_to_int_rounds_and_saturates(src):
    rng = np.random.default_rng(2)
    values = random_floats(rng, src, 400)
    values[20:200] = np.round(values[20:200] * 0) + rng.uniform(-1e5, 1e5, 180).round(1)
    values = as_float64(typed(values, src), src)
    rounders = {"rni": lambda f: round(f), "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}
    for dst in INT_TYPES:
        info = np.iinfo(DTYPE[dst])
        # NaN -> 0, except from f64 or into 64-bit integers: the top bit alone (H200)
        nan = (1 << (info.bits - 1)) if src == "f64" or info.bits == 64 else 0
        nan = nan - (1 << info.bits) if nan and info.min < 0 else nan
        for rounding, fn in rounders.items():
            got = evaluate(f"cvt.{rounding}.{dst}.{src}", typed(values, src))
            assert got.dtype == DTYPE[dst]
            want = [nan if math.isnan(v) else info.max if v == math.inf else info.min if v == -math.inf
                    else min(max(fn(Fraction(v)), info.min), info.max) for v in values]
            assert [int(g) for g in got] == want, f"cvt.{rounding}.{dst}.{src}"


def test_float_to_int_ties_and_ftz():
    x = np.float32([0.5, 1.5, 2.5, -0.5, -2.5, 1e-40, -1e-40])
    assert list(evaluate("cvt.rni.s32.f32", x)) == [0, 2, 2, 0, -2, 0, 0]
    assert list(evaluate("cvt.rpi.s32.f32", x)) == [1, 2, 3, 0, -2, 1, 0]
    assert list(evaluate("cvt.rpi.ftz.s32.f32", x)) == [1, 2, 3, 0, -2, 0, 0]
    assert list(evaluate("cvt.rmi.ftz.s32.f32", x)) == [0, 1, 2, -1, -3, 0, 0]
    assert list(evaluate("cvt.rmi.s32.f32", x)) == [0, 1, 2, -1, -3, 0, -1]
    assert list(evaluate("cvt.rzi.u32.f32", np.float32([-5.0, 5e9, np.nan]))) == [0, 2 ** 32 - 1, 0]
    big = np.float64([2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 2.0 ** 63 - 1024])
    assert [int(v) for v in evaluate("cvt.rzi.s64.f64", big)] == \
        [2 ** 63 - 1, -(2 ** 63), 2 ** 63 - 1, 2 ** 63 - 1024]
    assert [int(v) for v in evaluate("cvt.rzi.u64.f64", big)] == \
        [2 ** 63, 0, 2 ** 64 - 1, 2 ** 63 - 1024]


# --------------------------------------------------------------- int -> int

def test_int_to_int_wraps_or_saturates():
    rng = np.random.default_rng(3)
    for src in INT_TYPES:
        values = random_ints(rng, src, 60)
        for dst in INT_TYPES:
            dinfo = np.iinfo(DTYPE[dst])
            got = evaluate(f"cvt.{dst}.{src}", values)
            assert got.dtype == DTYPE[dst]
            mod = 1 << dinfo.bits
            want = [((int(v) - dinfo.min) % mod) + dinfo.min for v in values]
            assert [int(g) for g in got] == want, f"cvt.{dst}.{src}"
            got = evaluate(f"cvt.sat.{dst}.{src}", values)
            want = [min(max(int(v), dinfo.min), dinfo.max) for v in values]
            assert [int(g) for g in got] == want, f"cvt.sat.{dst}.{src}"


# ------------------------------------------------------------ float -> float

@pytest.mark.parametrize("src,dst", [("f64", "f32"), ("f64", "f16"), ("f64", "bf16"),
                                     ("f32", "f16"), ("f32", "bf16"), ("f16", "bf16")])
def test_narrowing_rounds_exactly(src, dst):
    rng = np.random.default_rng(4)
    values = random_floats(rng, src, 500)
    # values near the destination's range and its rounding midpoints
    near = rng.uniform(-1, 1, 250) * np.exp2(rng.integers(-30, 30, 250))
    values[250:] = as_float64(typed(near, src), src)
    for mode in MODES:
        got = evaluate(f"cvt.{mode}.{dst}.{src}", typed(values, src))
        want = [v if not np.isfinite(v) else math.copysign(0.0, v) if v == 0
                else ref_round(Fraction(v), dst, mode) for v in values]
        assert_floats(got, want, dst, f"cvt.{mode}.{dst}.{src}")


@pytest.mark.parametrize("src,dst", [("f16", "f32"), ("bf16", "f32"), ("f32", "f64"),
                                     ("f16", "f64"), ("bf16", "f64")])
def test_widening_is_exact(src, dst):
    rng = np.random.default_rng(5)
    values = random_floats(rng, src, 300)
    got = evaluate(f"cvt.{dst}.{src}", typed(values, src))
    assert_floats(got, values, dst, f"cvt.{dst}.{src}")


def test_nan_encodings_follow_the_gpu():
    """Canonical NaNs from f32/f16 sources; f64 sources keep sign and the top of
    the payload (quieted); widening to f64 keeps the payload; bf16 -> f32 is a
    plain shift (as seen on an H200)."""
    payload = np.uint64([0xFFF5BCBEDBD6D288, 0x7FF0000000000001]).view(np.float64)
    assert list(evaluate("cvt.rn.f32.f64", payload).view(np.uint32)) == [0xFFEDE5F6, 0x7FC00000]
    assert list(evaluate("cvt.rn.bf16.f64", payload)) == [0xFFED, 0x7FC0]
    assert list(evaluate("cvt.rn.f16.f64", payload).view(np.uint16)) == [0xFF6F, 0x7E00]
    assert evaluate("cvt.rn.f16.f32", np.float32([math.nan])).view(np.uint16)[0] == 0x7FFF
    assert evaluate("cvt.rn.bf16.f32", np.float32([-math.nan]))[0] == 0x7FFF
    assert evaluate("cvt.f32.f16", np.uint16([0xFC07]).view(np.float16)).view(np.uint32)[0] == 0x7FFFFFFF
    assert evaluate("cvt.f32.bf16", np.uint16([0x7F81])).view(np.uint32)[0] == 0x7F810000
    assert evaluate("cvt.f64.f16", np.uint16([0x7C01]).view(np.float16)).view(np.uint64)[0] == \
        0x7FF8040000000000
    f32_nan = np.uint32([0xFF800007]).view(np.float32)
    assert evaluate("cvt.f64.f32", f32_nan).view(np.uint64)[0] == 0xFFF80000E0000000
    assert evaluate("cvt.ftz.f64.f32", f32_nan).view(np.uint64)[0] == 0x7FFFFFFFE0000000


def test_integer_rounding_to_float():
    x = np.float32([0.5, 1.5, 2.5, -2.5, 1e30, -0.3, math.inf])
    big = float(np.float32(1e30))
    assert_floats(evaluate("cvt.rni.f32.f32", x), [0, 2, 2, -2, big, -0.0, math.inf], "f32", "rni")
    assert_floats(evaluate("cvt.rzi.f32.f32", x), [0, 1, 2, -2, big, -0.0, math.inf], "f32", "rzi")
    assert_floats(evaluate("cvt.rmi.f64.f64", x.astype(np.float64)), [0, 1, 2, -3, big, -1, math.inf],
                  "f64", "rmi")
    assert_floats(evaluate("cvt.rpi.f16.f16", np.float16([0.25, -0.25])), [1, -0.0], "f16", "rpi")


def test_sat_ftz_relu_satfinite():
    x = np.float32([-0.5, 0.25, 7.0, math.nan, 1e-40])
    assert_floats(evaluate("cvt.sat.f32.f32", x), [0, 0.25, 1, 0, float(x[4])], "f32", "sat")
    assert_floats(evaluate("cvt.ftz.sat.f32.f32", x), [0, 0.25, 1, 0, 0], "f32", "ftz.sat")
    assert_floats(evaluate("cvt.ftz.f64.f32", x), [-0.5, 0.25, 7, math.nan, 0], "f64", "ftz")
    assert_floats(evaluate("cvt.rn.ftz.f32.f64", np.float64([1e-40, -1e-300])), [0, -0.0], "f32", "ftz")
    y = np.float32([1e6, -1e6, -3.0, math.nan, math.inf])
    inf, nan = math.inf, math.nan
    assert_floats(evaluate("cvt.rn.f16.f32", y), [inf, -inf, -3, nan, inf], "f16", "rn")
    assert_floats(evaluate("cvt.rn.satfinite.f16.f32", y), [65504, -65504, -3, math.nan, 65504],
                  "f16", "satfinite")
    assert_floats(evaluate("cvt.rn.relu.f16.f32", y), [inf, 0, 0, nan, inf], "f16", "relu")
    assert evaluate("cvt.rn.relu.f16.f32", y).view(np.uint16)[3] == 0x7FFF
    # an H200 ignores .ftz converting to f16, but not to bf16
    subnormal = np.float32([1e-45])
    assert evaluate("cvt.rp.ftz.f16.f32", subnormal).view(np.uint16)[0] == 0x0001
    assert evaluate("cvt.rp.ftz.bf16.f32", subnormal)[0] == 0
    assert evaluate("cvt.rp.bf16.f32", subnormal)[0] == 0x0001


# ------------------------------------------------------------------ packing

def test_f16x2_and_bf16x2_packing_puts_a_high():
    a, b = np.float32([1.0, -2.0]), np.float32([2.0, 0.5])
    got = evaluate("cvt.rn.f16x2.f32", a, b)
    assert list(got) == [0x3C004000, 0xC0003800]
    assert list(evaluate("cvt.rn.bf16x2.f32", a, b)) == [0x3F804000, 0xC0003F00]
    assert list(evaluate("cvt.rz.bf16x2.f32", np.float32([1 + 2 ** -9]), np.float32([-(1 + 2 ** -9)]))) \
        == [0x3F80BF80]


def test_tf32():
    x = np.float32([1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -12, math.nan, -(1 + 2 ** -11)])
    got = evaluate("cvt.rna.tf32.f32", x)
    assert got.dtype == np.uint32
    assert list(got) == [0x3F802000, 0x3F804000, 0x3F800000, 0x7FC00000, 0xBF802000]
    assert list(evaluate("cvt.rn.tf32.f32", x[:4])) == [0x3F800000, 0x3F804000, 0x3F800000, 0x7FFFE000]
    # rna is integer rounding of the bits, NaNs truncated; satfinite steps inf/NaN down an ulp
    bits = np.uint32([0xFFF97583, 0x7F800001, 0x7F7FF000, 0x7F800000, 0x7FC00000])
    assert list(evaluate("cvt.rna.tf32.f32", bits.view(np.float32))) == \
        [0xFFF96000, 0x7F800000, 0x7F800000, 0x7F800000, 0x7FC00000]
    assert list(evaluate("cvt.rna.satfinite.tf32.f32", bits.view(np.float32))) == \
        [0xFFF94000, 0x7F7FE000, 0x7F7FE000, 0x7F7FE000, 0x7FBFE000]


def test_fp8_round_trips_every_code():
    codes = np.arange(256, dtype=np.uint16)
    e5m2_specials = set(range(0x7C, 0x80)) | set(range(0xFC, 0x100))   # inf -> max under satfinite
    for fp8, nan_codes in (("e4m3x2", {0x7F, 0xFF}), ("e5m2x2", e5m2_specials)):
        words = codes | (codes[::-1] << np.uint16(8))
        halves = evaluate(f"cvt.rn.f16x2.{fp8}", words)
        back = evaluate(f"cvt.rn.satfinite.{fp8}.f16x2", halves)
        low, high = back & np.uint16(0xFF), back >> np.uint16(8)
        keep = np.array([c not in nan_codes for c in range(256)])
        assert np.array_equal(low[keep], codes[keep]), fp8
        assert np.array_equal(high[keep[::-1]], codes[::-1][keep[::-1]]), fp8
    assert evaluate("cvt.rn.satfinite.e5m2x2.f16x2", np.uint32(0xFC007C00)) == 0xFB7B
    values = (evaluate("cvt.rn.f16x2.e4m3x2", np.uint16([0x0001, 0x007E, 0x0038]))
              & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16)
    assert list(values) == [2.0 ** -9, 448.0, 1.0]


def test_fp8_from_f32_rounds_and_saturates():
    a = np.float32([1000.0, 1.0625, 1.1875, math.nan])
    b = np.float32([-1e9, 0.0009, -0.0, 1.0])
    got = evaluate("cvt.rn.satfinite.e4m3x2.f32", a, b)
    # 448 | -448; 1.0625 is a tie -> 1.0 (even), 0.0009 < 2**-10 -> 0; 1.1875 -> 1.25;
    # NaN -> 0x7f; infinities are not NaN codes but satfinite turns them into +-max
    assert [hex(int(v)) for v in got] == ["0x7efe", "0x3800", "0x3a80", "0x7f38"]
    got = evaluate("cvt.rn.satfinite.e5m2x2.f32", np.float32([1e9]), np.float32([-1e9]))
    assert hex(int(got[0])) == "0x7bfb"


# ------------------------------------------------------------------ checks

@pytest.mark.parametrize("mnemonic,n", [
    ("cvt.s32.f32", 1), ("cvt.f16.f32", 1), ("cvt.f32.f64", 1), ("cvt.rni.f32.s32", 1),
    ("cvt.rn.s32.f32", 1), ("cvt.ftz.f64.s32", 1), ("cvt.rn.e4m3x2.f32", 2),
    ("cvt.rn.f16x2.f32", 1), ("cvt.rn.rz.f32.f64", 1), ("cvt.rna.f16.f32", 1),
    ("cvt.rn.f32.f16", 1), ("cvt.rni.f32.f64", 1), ("cvt.rn.ftz.tf32.f32", 1),
])
def test_bad_cvt_forms_are_rejected(mnemonic, n):
    with pytest.raises(UnsupportedInstruction):
        lookup(parse_mnemonic(mnemonic, 1, n))


def test_cvt_pipes():
    assert lookup(parse_mnemonic("cvt.rn.f32.f64", 1, 1)).pipe == "fp64"
    assert lookup(parse_mnemonic("cvt.rn.f64.s32", 1, 1)).pipe == "fp64"
    assert lookup(parse_mnemonic("cvt.rn.f32.s32", 1, 1)).family == "conversion"
