"""Math library functions in double and single precision, default flags and
-use_fast_math, against correctly rounded references (Python's math on
doubles; exact rational arithmetic for fma), within the error bounds of the
CUDA C++ Programming Guide's tables of maximum ULP errors."""

import math

import numpy as np
import pytest

from kernel_corpus import assert_all_written, cp, exact_fma, kernel, rng, sentinel, ulp_distance

pytestmark = [pytest.mark.nvrtc, pytest.mark.filterwarnings("ignore:overflow encountered")]
SOURCE = "math_functions.cu"
N = 2048


def inputs(dtype, salt):
    g = rng(salt)
    x = g.uniform(-300, 300, N)
    x[:32] = g.uniform(-3.2, 3.2, 32)               # __sinf's accurate range
    x[32:40] = [1e5, -7e4, 12345.678, 1e-3, 0.5, 2.0, 1.0, -1.0]
    y = g.uniform(-30, 30, N)
    y[y == 0] = 1
    z = g.standard_normal(N) * 100
    return x.astype(dtype), y.astype(dtype), z.astype(dtype)


def run(name, dtype, rows, options=(), salt=0):
    x, y, z = inputs(dtype, salt)
    out = sentinel((rows, N), dtype)
    kernel(SOURCE, name, options)((N // 256,), (256,),
                                  (cp.asarray(x), cp.asarray(y), cp.asarray(z), out, np.int32(N)))
    got = out.get()
    assert_all_written(got)
    return got, x.astype(np.float64), y.astype(np.float64), z.astype(np.float64)


def elementwise(fn, *args):
    def one(*values):
        try:
            return fn(*values)
        except OverflowError:
            return math.inf
    return np.array([one(*values) for values in zip(*args)])


def assert_ulps(got, expected, bound, what):
    distance = ulp_distance(got, np.asarray(expected).astype(got.dtype))
    worst = int(np.argmax(distance))
    assert distance[worst] <= bound, (f"{what}: {distance[worst]:.0f} ulp at element {worst}: "
                                      f"got {got[worst]!r}, expected {expected[worst]!r}")


def test_f64_math():
    got, a, b, c = run("math_f64", np.float64, 10)
    # Correctly rounded in IEEE: bit-exact.
    np.testing.assert_array_equal(got[0], np.sqrt(np.abs(a)))
    np.testing.assert_array_equal(got[1], a / b)
    np.testing.assert_array_equal(got[2], exact_fma(a, b, c, np.float64))
    np.testing.assert_array_equal(got[8], (a + c) * (b * 3.0))
    # libdevice bounds (+1 for the reference's own rounding).
    assert_ulps(got[3], elementwise(math.exp, a * 0.01), 1 + 1, "exp")
    assert_ulps(got[4], elementwise(math.log, np.abs(a)), 1 + 1, "log")
    assert_ulps(got[5], elementwise(math.sin, a), 2 + 1, "sin")
    assert_ulps(got[6], elementwise(math.cos, b), 2 + 1, "cos")
    base = exact_fma(np.abs(a), np.full(N, 0.01), np.full(N, 0.5), np.float64)  # contracted by NVRTC
    assert_ulps(got[7], elementwise(math.pow, base, b * 0.1), 2 + 1, "pow")
    assert_ulps(got[9], 1 / np.sqrt(np.abs(a) + 1), 1 + 1, "rsqrt")
    np.testing.assert_allclose(got[3:8], np.stack([np.exp(a * 0.01), np.log(np.abs(a)), np.sin(a), np.cos(b),
                                                   base ** (b * 0.1)]), rtol=1e-14)


def f32_references(a, b, c):
    """Correctly rounded single-precision results, computed in double."""
    f = np.float32
    a32, b32, c32 = (v.astype(f) for v in (a, b, c))
    scaled = (a32 * f(0.01)).astype(np.float64)     # the kernel multiplies in f32 first
    base = exact_fma(np.abs(a32), np.full(N, f(0.01)), np.full(N, f(0.5)), f).astype(np.float64)
    return {
        "sqrtf": np.sqrt(np.abs(a)), "div": a / b, "fmaf": exact_fma(a, b, c, np.float64),
        "expf": np.exp(scaled), "logf": np.log(np.abs(a)), "sinf": np.sin(a), "cosf": np.cos(b),
        "powf": base ** (b32 * f(0.1)).astype(np.float64),
        "rn": (a32 + c32).astype(np.float64) * (b32 * f(3)).astype(np.float64),
        "rsqrtf": 1 / np.sqrt(np.abs(a32) + f(1)).astype(np.float64),
        "__expf": np.exp(scaled), "__logf": np.log(np.abs(a)), "__sinf": np.sin(b), "__fdividef": a / b,
    }


ROWS = ["sqrtf", "div", "fmaf", "expf", "logf", "sinf", "cosf", "powf", "rn", "rsqrtf",
        "__expf", "__logf", "__sinf", "__fdividef"]


def test_f32_math_default_flags():
    got, a, b, c = run("math_f32", np.float32, 14, salt=1)
    ref = f32_references(a, b, c)
    for row in ("sqrtf", "div", "fmaf"):
        np.testing.assert_array_equal(got[ROWS.index(row)], ref[row].astype(np.float32), err_msg=row)
    np.testing.assert_array_equal(got[ROWS.index("rn")], ref["rn"].astype(np.float32))
    for row, bound in (("expf", 2), ("logf", 1), ("sinf", 2), ("cosf", 2), ("powf", 4), ("rsqrtf", 2)):
        assert_ulps(got[ROWS.index(row)], ref[row], bound + 1, row)
    check_intrinsics(got, a, b, ref)


def check_intrinsics(got, a, b, ref):
    """The __ intrinsics (the same with or without -use_fast_math)."""
    scaled = (a.astype(np.float32) * np.float32(0.01)).astype(np.float64)
    expf_bound = 2 + np.floor(np.abs(1.173 * scaled))
    distance = ulp_distance(got[ROWS.index("__expf")], ref["__expf"].astype(np.float32))
    assert (distance <= expf_bound + 1).all(), "__expf"
    logf = got[ROWS.index("__logf")].astype(np.float64)
    near_one = (np.abs(a) >= 0.5) & (np.abs(a) <= 2)
    assert (np.abs(logf - ref["__logf"])[near_one] <= 2 ** -21.41).all(), "__logf in [0.5, 2]"
    assert_ulps(got[ROWS.index("__logf")][~near_one], ref["__logf"][~near_one], 3 + 1, "__logf")
    in_pi = np.abs(b) <= np.pi
    sinf = got[ROWS.index("__sinf")].astype(np.float64)
    assert (np.abs(sinf - ref["__sinf"])[in_pi] <= 2 ** -21.41).all(), "__sinf in [-pi, pi]"
    assert (np.abs(sinf - ref["__sinf"]) <= 1e-3).all(), "__sinf outside [-pi, pi]"
    assert_ulps(got[ROWS.index("__fdividef")], ref["__fdividef"], 2 + 1, "__fdividef")


def test_f32_math_fast_math():
    got, a, b, c = run("math_f32", np.float32, 14, options=("-use_fast_math",), salt=1)
    ref = f32_references(a, b, c)
    # fmaf and the explicit _rn operations keep their IEEE rounding under fast math.
    np.testing.assert_array_equal(got[ROWS.index("fmaf")], ref["fmaf"].astype(np.float32))
    np.testing.assert_array_equal(got[ROWS.index("rn")], ref["rn"].astype(np.float32))
    assert_ulps(got[ROWS.index("sqrtf")], ref["sqrtf"], 1 + 1, "sqrtf (approximate)")
    assert_ulps(got[ROWS.index("div")], ref["div"], 2 + 1, "x / y (approximate)")
    assert_ulps(got[ROWS.index("rsqrtf")], ref["rsqrtf"], 2 + 1, "rsqrtf")
    # Math calls become the intrinsics: expf -> __expf, logf -> __logf, sinf -> __sinf.
    scaled = (a.astype(np.float32) * np.float32(0.01)).astype(np.float64)
    distance = ulp_distance(got[ROWS.index("expf")], ref["expf"].astype(np.float32))
    assert (distance <= 2 + np.floor(np.abs(1.173 * scaled)) + 1).all(), "expf as __expf"
    logf = got[ROWS.index("logf")].astype(np.float64)
    near_one = (np.abs(a) >= 0.5) & (np.abs(a) <= 2)
    assert (np.abs(logf - ref["logf"])[near_one] <= 2 ** -21.41).all()
    assert_ulps(got[ROWS.index("logf")][~near_one], ref["logf"][~near_one], 3 + 1, "logf as __logf")
    in_pi = np.abs(a) <= np.pi
    assert (np.abs(got[ROWS.index("sinf")].astype(np.float64) - ref["sinf"])[in_pi] <= 2 ** -21.41).all()
    check_intrinsics(got, a, b, ref)
