"""Conversions at the edges: NaN, infinities, out-of-range and halfway values.
PTX float->integer conversions saturate to the destination range and turn
NaN into 0 (in C++ these casts are undefined); directed roundings go to the
neighbour on the right side; __half via cuda_fp16.h, __nv_bfloat16 via
cuda_bf16.h."""

import math

import numpy as np
import pytest

from kernel_corpus import assert_all_written, cp, kernel, rng, sentinel

pytestmark = [pytest.mark.nvrtc, pytest.mark.filterwarnings("ignore:overflow encountered"),
              pytest.mark.filterwarnings("ignore:invalid value encountered")]
SOURCE = "conversions.cu"
N = 1024
ROUND = {"rn": round, "rz": math.trunc, "rd": math.floor, "ru": math.ceil}


def float_inputs(dtype=np.float32, salt=0):
    g = rng(salt)
    x = g.choice([-1, 1], N) * np.exp2(g.uniform(-30, 70, N)) * g.uniform(1, 2, N)
    x[::7] = g.integers(-40, 40, len(x[::7])) * 0.5            # halfway cases
    edges = [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 0.5, 1.5, -0.5, 4294967296.0, -1.0,
             2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0, 9.3e18, -9.3e18,
             1.8e19, 1.9e19, 65504.0, 65519.0, 65520.0, -65520.0, 1e-8, 6e-5, 3e-8, -0.0, 0.0,
             3.3961776e38, 1.00390625, 1.0009765625, 2.9802322e-08]
    x[:len(edges)] = edges
    return x.astype(dtype)


def nan_to_integer(bits: int, from_double: bool) -> int:
    """NaN -> integer: the PTX manual says 0. An H200 gives 0 from f32 into
    32 bits but the top bit alone (0x80..0) into 64-bit integers, signed or
    not, and from f64 (measured with this corpus' PTX, sm_90, driver 580.159)."""
    return 1 << (bits - 1) if bits == 64 or from_double else 0


def to_integer(x, mode, bits, is_signed):
    """PTX cvt.<mode>i.<int>.<float>: round, saturate (NaN: see nan_to_integer)."""
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed else (0, (1 << bits) - 1)
    out = []
    for v in x.astype(np.float64):
        if math.isnan(v):
            nan_bits = nan_to_integer(bits, x.dtype == np.float64)
            out.append(nan_bits - (1 << bits) if is_signed and nan_bits >> (bits - 1) else nan_bits)
        elif math.isinf(v):
            out.append(hi if v > 0 else lo)
        else:
            out.append(min(max(ROUND[mode](v), lo), hi))
    dtype = f"{'i' if is_signed else 'u'}{bits // 8}"
    return np.array(out, dtype=object).astype(dtype)


def test_float_to_int():
    x = float_inputs()
    s32, u32 = sentinel((5, N), np.int32), sentinel((3, N), np.uint32)
    s64, u64 = sentinel((3, N), np.int64), sentinel((2, N), np.uint64)
    kernel(SOURCE, "float_to_int")((N // 128,), (128,), (cp.asarray(x), s32, u32, s64, u64, np.int32(N)))
    got = {name: arr.get() for name, arr in (("s32", s32), ("u32", u32), ("s64", s64), ("u64", u64))}
    for value in got.values():
        assert_all_written(value)
    expected = {
        "s32": [to_integer(x, m, 32, True) for m in ("rn", "rz", "rd", "ru", "rz")],
        "u32": [to_integer(x, m, 32, False) for m in ("rz", "rn", "rz")],
        "s64": [to_integer(x, m, 64, True) for m in ("rz", "rz", "rd")],
        "u64": [to_integer(x, m, 64, False) for m in ("rz", "ru")],
    }
    for name, rows in expected.items():
        for row, reference in enumerate(rows):
            bad = np.flatnonzero(got[name][row] != reference)
            assert not len(bad), (f"{name} row {row}: x={x[bad[:4]]} got {got[name][row][bad[:4]]} "
                                  f"expected {reference[bad[:4]]}")


def directed(exact, dtype, mode):
    """exact (float64 or Python int) rounded to dtype in mode rn/rz/rd/ru."""
    value = float(exact) if not isinstance(exact, int) else exact
    if isinstance(value, float) and math.isnan(value):
        return dtype(np.nan)
    nearest = np.array(float(exact)).astype(dtype)[()]
    if isinstance(exact, int) and math.isfinite(nearest):
        # float(exact) may have rounded once already: re-round from the integer.
        candidates = [nearest, np.nextafter(nearest, dtype(-np.inf)), np.nextafter(nearest, dtype(np.inf))]
        nearest = min((c for c in candidates if math.isfinite(c)),
                      key=lambda c: (abs(int(c) - exact), int(np.array(c).view(f"u{np.dtype(dtype).itemsize}")) & 1))
    if mode == "rn":
        return nearest
    above = (float(nearest) > value) if not isinstance(exact, int) else \
        (math.isinf(nearest) and nearest > 0) or (math.isfinite(nearest) and int(nearest) > exact)
    below = (float(nearest) < value) if not isinstance(exact, int) else \
        (math.isinf(nearest) and nearest < 0) or (math.isfinite(nearest) and int(nearest) < exact)
    toward_zero_down = mode == "rd" or (mode == "rz" and value > 0)
    toward_zero_up = mode == "ru" or (mode == "rz" and value < 0)
    if above and toward_zero_down:
        return np.nextafter(nearest, dtype(-np.inf))
    if below and toward_zero_up:
        return np.nextafter(nearest, dtype(np.inf))
    return nearest


def assert_same_floats(got, expected, what, inputs):
    expected = np.asarray(expected, dtype=got.dtype)
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    same &= (np.signbit(got) == np.signbit(expected)) | np.isnan(expected)
    bad = np.flatnonzero(~same)
    assert not len(bad), f"{what}: inputs {inputs[bad[:4]]} got {got[bad[:4]]} expected {expected[bad[:4]]}"


def test_to_float():
    g = rng(5)
    d = float_inputs(np.float64, 5)
    d[64::3] = g.standard_normal(len(d[64::3])) * np.exp2(g.integers(-160, 140, len(d[64::3])))
    d[40:48] = [1e39, -1e39, 1e-46, -1e-46, 3.4028235677973366e38, 3.4028235e38, 1.401298464324817e-45, 7e-46]
    k = g.integers(-(1 << 31), 1 << 31, N).astype(np.int32)
    k[:6] = [-(1 << 31), (1 << 31) - 1, 16777217, -16777217, 0, 33554435]
    big = g.integers(-(1 << 63), (1 << 63) - 1, N, dtype=np.int64)
    big[:4] = [-(1 << 63), (1 << 63) - 1, (1 << 53) + 1, -((1 << 53) + 1)]
    out = sentinel((13, N), np.float32)
    wide = sentinel((4, N), np.float64)
    from_double = sentinel((3, N), np.int32)
    kernel(SOURCE, "to_float")((N // 128,), (128,), (cp.asarray(d), cp.asarray(k), cp.asarray(big), out, wide,
                                                     from_double, np.int32(N)))
    got, wide, from_double = out.get(), wide.get(), from_double.get()
    for value in (got, wide, from_double):
        assert_all_written(value)
    f32 = np.float32
    for row, mode in enumerate(("rn", "rz", "rd", "ru", "rn")):
        assert_same_floats(got[row], [directed(v, f32, mode) for v in d], f"double -> float {mode}", d)
    for row, mode in zip(range(5, 9), ("rn", "rz", "rd", "ru")):
        assert_same_floats(got[row], [directed(int(v), f32, mode) for v in k], f"int -> float {mode}", k)
    assert_same_floats(got[9], [directed(int(v) & 0xFFFFFFFF, f32, "rz") for v in k], "uint -> float rz", k)
    assert_same_floats(got[10], [directed(int(v), f32, "rn") for v in big], "ll -> float rn", big)
    assert_same_floats(got[11], [directed(int(v), f32, "rz") for v in big], "ll -> float rz", big)
    assert_same_floats(got[12], [directed(int(v) & ((1 << 64) - 1), f32, "rn") for v in big], "ull -> float", big)
    f64 = np.float64
    assert_same_floats(wide[0], [directed(int(v), f64, "rn") for v in big], "ll -> double rn", big)
    assert_same_floats(wide[1], [directed(int(v), f64, "rz") for v in big], "ll -> double rz", big)
    np.testing.assert_array_equal(wide[2], k.astype(np.float64))
    assert_same_floats(wide[3], d.astype(np.float32).astype(np.float64), "double -> float -> double", d)
    np.testing.assert_array_equal(from_double[0], to_integer(d, "rz", 32, True))
    np.testing.assert_array_equal(from_double[1], to_integer(d, "rn", 32, True))
    np.testing.assert_array_equal(from_double[2], to_integer(d, "ru", 32, False).view(np.int32))


def bfloat16_bits(x, mode):
    """float32 -> bfloat16 bits: round to nearest even (NaN stays NaN) or toward zero."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    if mode == "rn":
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    else:
        bits = bits >> 16
    return bits.astype(np.uint16)


def test_half_and_bfloat16():
    x = float_inputs(np.float32, 9)
    x[100:300] = (rng(10).standard_normal(200) * np.exp2(rng(11).integers(-26, 17, 200))).astype(np.float32)
    bits = sentinel((6, N), np.uint16)
    back = sentinel((3, N), np.float32)
    kernel(SOURCE, "half_and_bfloat")((N // 128,), (128,), (cp.asarray(x), bits, back, np.int32(N)))
    got, back = bits.get(), back.get()
    assert_all_written(got)
    nan = np.isnan(x)
    for row, mode in enumerate(("rn", "rz", "rd", "ru")):
        expected = np.array([directed(float(v), np.float16, mode) for v in x], dtype=np.float16)
        halves = got[row].view(np.float16)
        assert np.isnan(halves[nan]).all(), f"NaN -> half {mode}"
        bad = np.flatnonzero(~nan & (got[row] != expected.view(np.uint16)))
        assert not len(bad), f"float -> half {mode}: x={x[bad[:4]]} got {halves[bad[:4]]} expected {expected[bad[:4]]}"
    for row, mode in ((4, "rn"), (5, "rz")):
        expected = bfloat16_bits(x, mode)
        is_nan = (got[row] & 0x7FFF) > 0x7F80
        assert is_nan[nan].all(), f"NaN -> bfloat16 {mode}"
        bad = np.flatnonzero(~nan & (got[row] != expected))
        assert not len(bad), f"float -> bfloat16 {mode}: x={x[bad[:4]]} got {got[row][bad[:4]]:} expected {expected[bad[:4]]}"
    halves = x.astype(np.float16)
    assert_same_floats(back[0], halves.astype(np.float32), "half -> float", x)
    bf = (bfloat16_bits(x, "rn").astype(np.uint32) << 16).view(np.float32)
    assert_same_floats(back[1], bf, "bfloat16 -> float", x)
    assert_same_floats(back[2], (halves.astype(np.float64) + 1.0).astype(np.float16).astype(np.float32),
                       "__hadd(half, 1)", x)


def test_bfloat16_to_bytes_truncates_and_saturates():
    x = float_inputs(np.float32, 12)
    x[100:600] = rng(13).uniform(-300, 300, 500).astype(np.float32)
    bits = bfloat16_bits(x, "rn")
    s8, u8 = sentinel((N,), np.int8), sentinel((N,), np.uint8)
    kernel(SOURCE, "bfloat_to_bytes", ("-arch=sm_90",))((N // 128,), (128,), (cp.asarray(bits), s8, u8, np.int32(N)))
    values = (bits.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(s8.get(), to_integer(values, "rz", 8, True))
    np.testing.assert_array_equal(u8.get(), to_integer(values, "rz", 8, False))
