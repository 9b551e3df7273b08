"""Float instruction semantics against exact references.

Every exactly-rounded result is compared bit for bit with a reference built
from fractions.Fraction, bracketing each value between neighbouring bit patterns
(independent of warpsim's own rounding code); .approx results are checked
against PTX's documented error bounds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from warpsim.errors import UnsupportedInstruction
from warpsim.machine.isa.evaluate import evaluate, parse_mnemonic
from warpsim.machine.isa.table import lookup

from float_reference import BITS, UINT, bits_to_float, key_value, ref_round

# Inputs and references deliberately overflow and make NaNs.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

MODES = ("rn", "rz", "rm", "rp")
CANONICAL = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF}


def fr(x) -> Fraction:
    return Fraction(float(x))


# ------------------------------------------------------------------ inputs

def special_values(t: str) -> list:
    info = {"f16": (0x0001, 0x03FF, 0x0400, 0x7BFF), "bf16": (0x0001, 0x007F, 0x0080, 0x7F7F),
            "f32": (0x1, 0x7FFFFF, 0x800000, 0x7F7FFFFF),
            "f64": (0x1, 0xFFFFFFFFFFFFF, 0x10000000000000, 0x7FEFFFFFFFFFFFFF)}[t]
    values = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 0.5, 3.0]
    for bits in info:
        values += [bits_to_float(bits, t), -bits_to_float(bits, t)]
    return values


def random_values(rng, t: str, n: int, *, narrow: bool = False) -> np.ndarray:
    """float64 holding values of type t: random bit patterns (every exponent),
    values of moderate exponent (so operations interact), and specials."""
    nbits = BITS[t]
    raw = rng.integers(0, 1 << 62, n, dtype=np.int64).astype(np.uint64) if nbits == 64 else \
        rng.integers(0, 1 << nbits, n, dtype=np.int64).astype(np.uint64)
    if nbits == 64:
        raw = (raw << np.uint64(2)) | rng.integers(0, 4, n, dtype=np.int64).astype(np.uint64)
    values = np.array([bits_to_float(int(b), t) for b in raw])
    moderate = rng.uniform(-4, 4, n) * np.exp2(rng.integers(-8, 8, n))
    values = np.where(rng.random(n) < (0.7 if narrow else 0.4), moderate, values)
    values = np.array([ref_round(fr(v), t, "rn") if np.isfinite(v) and v != 0 else v
                       for v in values])
    specials = special_values(t)
    values[: len(specials)] = specials
    return values


def typed(values, t):
    """float64 values -> the dtype the engine hands to compute() for type t."""
    values = np.asarray(values, dtype=np.float64)
    if t == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return values.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[t])


def untyped(result, t) -> np.ndarray:
    """Result values as float64, and the raw bits."""
    result = np.asarray(result)
    if t == "bf16":
        return (result.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return result.astype(np.float64)


def raw_bits(result, t) -> np.ndarray:
    result = np.asarray(result)
    return result if t == "bf16" else result.view(UINT[BITS[t]])


def assert_same(got, want, t, context):
    """Bitwise equality of floats (NaN == NaN, -0 != +0)."""
    got = untyped(got, t)
    want = np.asarray(want, dtype=np.float64)
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, f"{context}: {bad.size} mismatches, e.g. lane {bad[0]}: " \
                          f"got {got[bad[0]]!r} want {want[bad[0]]!r}"


def exact_reference(fn, t, mode, *operands, zero=None):
    """Round fn(*Fractions) per lane; non-finite operands go through `zero`/IEEE numpy."""
    out = []
    for lane in zip(*operands):
        if not all(np.isfinite(lane)):
            out.append(None)
            continue
        value = fn(*(fr(x) for x in lane))
        if value is None:
            out.append(None)
        else:
            out.append(ref_round(value, t, mode) if value != 0 else zero(*lane))
    return out


def fill_ieee(reference, ieee):
    """Lanes the exact reference skipped (inf/NaN operands) take NumPy's IEEE value."""
    return np.array([ieee[i] if r is None else r for i, r in enumerate(reference)])


def zero_sum(mode):
    """IEEE sign of an exact zero x + y."""
    def sign(x, y):
        nx, ny = math.copysign(1, x) < 0, math.copysign(1, y) < 0
        return -0.0 if (nx and ny) or (mode == "rm" and nx != ny) else 0.0
    return sign


# ---------------------------------------------------------- add, sub, mul, div

@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("mode", MODES)
def test_add_sub_mul_directed_rounding_is_exact(t, mode):
    rng = np.random.default_rng(11)
    n = 700
    a, b = random_values(rng, t, n), random_values(rng, t, n)
    for opcode, fn, sign in [("add", lambda x, y: x + y, 1), ("sub", lambda x, y: x - y, -1)]:
        got = evaluate(f"{opcode}.{mode}.{t}", typed(a, t), typed(b, t))
        want = exact_reference(fn, t, mode, a, b, zero=lambda x, y: zero_sum(mode)(x, sign * y))
        with np.errstate(all="ignore"):
            assert_same(got, fill_ieee(want, a + sign * b), t, f"{opcode}.{mode}.{t}")
    got = evaluate(f"mul.{mode}.{t}", typed(a, t), typed(b, t))
    want = exact_reference(lambda x, y: x * y, t, mode, a, b,
                           zero=lambda x, y: math.copysign(0.0, x) * math.copysign(1.0, y))
    with np.errstate(all="ignore"):
        assert_same(got, fill_ieee(want, a * b), t, f"mul.{mode}.{t}")


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("mode", MODES)
def test_div_rcp_sqrt_rounding_is_exact(t, mode):
    rng = np.random.default_rng(12)
    n = 500
    a, b = random_values(rng, t, n), random_values(rng, t, n)
    with np.errstate(all="ignore"):
        got = evaluate(f"div.{mode}.{t}", typed(a, t), typed(b, t))
        want = exact_reference(lambda x, y: x / y if y else None, t, mode, a, b)
        ieee = a / b
        want = [ieee[i] if w is None or b[i] == 0 or a[i] == 0 else w for i, w in enumerate(want)]
        assert_same(got, want, t, f"div.{mode}.{t}")
        got = evaluate(f"rcp.{mode}.{t}", typed(b, t))
        want = [1 / x if not np.isfinite(x) or x == 0 else ref_round(1 / fr(x), t, mode)
                for x in b] if t == "f64" else None
        if want is None:
            want = [np.float32(1) / np.float32(x) if not np.isfinite(x) or x == 0
                    else ref_round(1 / fr(x), t, mode) for x in b]
        assert_same(got, np.array(want, dtype=np.float64), t, f"rcp.{mode}.{t}")
        got = untyped(evaluate(f"sqrt.{mode}.{t}", typed(np.abs(a), t)), t)
    for x, r in zip(np.abs(a), got):
        if not np.isfinite(x) or x == 0:
            assert r == x or (np.isnan(r) and np.isnan(x))
            continue
        assert sqrt_rounded_ok(fr(x), r, t, mode), (t, mode, x, r)


def sqrt_rounded_ok(x: Fraction, r: float, t: str, mode: str) -> bool:
    """r is sqrt(x) rounded by mode: bracket by squares of neighbours."""
    key = int(np.array(r, dtype={"f32": np.float32, "f64": np.float64}[t]).view(UINT[BITS[t]]))
    below, above = Fraction(key_value(key - 1, t)), Fraction(key_value(key + 1, t))
    r = Fraction(r)
    if mode in ("rz", "rm"):
        return r * r <= x < above * above
    if mode == "rp":
        return below * below < x <= r * r
    return ((below + r) / 2) ** 2 <= x <= ((r + above) / 2) ** 2


def test_plain_f32_arithmetic_matches_fraction_reference():
    rng = np.random.default_rng(13)
    a, b = random_values(rng, "f32", 800), random_values(rng, "f32", 800)
    with np.errstate(all="ignore"):
        for mnemonic, fn, ieee in [("add.f32", lambda x, y: x + y, a + b),
                                   ("mul.rn.f32", lambda x, y: x * y, a * b),
                                   ("div.rn.f32", lambda x, y: x / y, a / b)]:
            got = evaluate(mnemonic, typed(a, "f32"), typed(b, "f32"))
            want = [ieee[i] if not (np.isfinite(x) and np.isfinite(y)) or y == 0 or x * y == 0
                    else ref_round(fn(fr(x), fr(y)), "f32", "rn") for i, (x, y) in enumerate(zip(a, b))]
            want = np.array(want, dtype=np.float32).astype(np.float64)
            assert_same(got, want, "f32", mnemonic)


def test_f32_nan_results_are_canonical():
    payload = np.uint32(0xFFC00001).view(np.float32)
    a = np.array([math.inf, math.nan, 1.0, payload], dtype=np.float32)
    b = np.array([-math.inf, 1.0, payload, 2.0], dtype=np.float32)
    for mnemonic, second in (("add.f32", b), ("add.rz.f32", b), ("sub.f32", -b),
                             ("mul.f32", b * 0), ("mul.rp.ftz.f32", b * 0),
                             ("fma.rn.f32", b * 0), ("div.rn.f32", b), ("div.rz.f32", b)):
        srcs = (a, second, np.float32(1)) if mnemonic.startswith("fma") else (a, second)
        got = evaluate(mnemonic, *srcs)
        assert np.all(got.view(np.uint32) == CANONICAL["f32"]), (mnemonic, got.view(np.uint32))


def test_ftz_flushes_inputs_and_results():
    tiny = np.float32(1e-40)                     # subnormal
    assert evaluate("add.ftz.f32", np.float32([tiny]), np.float32([0.0]))[0] == 0
    assert np.signbit(evaluate("add.ftz.f32", np.float32([-tiny]), np.float32([-0.0]))[0])
    assert evaluate("add.f32", np.float32([tiny]), np.float32([0.0]))[0] == tiny
    # the result is subnormal: flushed only with .ftz
    half_min = np.float32(2.0 ** -127)
    assert evaluate("mul.rn.f32", np.float32([2.0 ** -63]), np.float32([2.0 ** -64]))[0] == half_min
    assert evaluate("mul.rn.ftz.f32", np.float32([2.0 ** -63]), np.float32([2.0 ** -64]))[0] == 0
    assert evaluate("fma.rn.ftz.f32", np.float32([1.0]), np.float32([tiny]), np.float32([1.0]))[0] == 1


def test_sat_clamps_to_unit_interval_and_nan_to_zero():
    a = np.float32([0.5, 2.0, -3.0, math.nan, -0.0])
    got = evaluate("add.sat.f32", a, np.float32([0.25, 0, 0, 0, 0]))
    assert list(got) == [0.75, 1.0, 0.0, 0.0, 0.0]
    assert not np.signbit(got).any()
    got = evaluate("fma.rn.sat.f32", a, np.float32(2), np.float32(0))
    assert list(got) == [1.0, 1.0, 0.0, 0.0, 0.0]


# ---------------------------------------------------------------------- fma

def hard_fma_cases(rng, t: str, n: int):
    """a*b exactly on (or next to) a rounding midpoint of t, c a tiny nudge:
    rounding a*b+c in a wider format first lands on the midpoint and breaks
    the tie the wrong way about half the time."""
    # f32: i*j odd puts a*b's last bit at 2**-24, an f32 midpoint (exact in f64).
    # f64: i*j = 2 mod 4 puts it at 2**-53, so a*b = ph + pl with pl exactly
    # half an ulp of ph -- the tie Boldo-Melquiond's round-to-odd step breaks.
    half = {"f32": 12, "f64": 27}[t]
    i = rng.integers(1, 1 << (half - 3), n) * 2 + 1
    j = rng.integers(1, 1 << (half - 3), n) * 2 + 1
    if t == "f64":
        j = j * 2
    a = 1 + i * 2.0 ** -half
    b = 1 + j * 2.0 ** -half
    scale = np.exp2(rng.integers(-20, 20, n))
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    nudge = np.exp2(rng.integers(-110, -70, n)) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    if t == "f64":
        nudge = np.exp2(rng.integers(-160, -110, n)) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return a * sign * scale, b, nudge * scale


def test_fma_f32_rounds_once_on_hard_cases():
    rng = np.random.default_rng(21)
    a, b, c = hard_fma_cases(rng, "f32", 400)
    a32, b32, c32 = typed(a, "f32"), typed(b, "f32"), typed(c, "f32")
    assert np.all(a32 == a) and np.all(b32 == b) and np.all(c32 == c)
    got = evaluate("fma.rn.f32", a32, b32, c32)
    want = [ref_round(fr(x) * fr(y) + fr(z), "f32", "rn") for x, y, z in zip(a, b, c)]
    assert_same(got, want, "f32", "fma.rn.f32")
    naive = (a * b + c).astype(np.float32)
    assert np.count_nonzero(naive != np.array(want, dtype=np.float32)) > 50   # the cases are hard


@pytest.mark.parametrize("mode", MODES)
def test_fma_f32_random_all_modes(mode):
    rng = np.random.default_rng(22)
    n = 700
    a, b, c = (random_values(rng, "f32", n) for _ in range(3))
    c[n // 2:] = -(a * b)[n // 2:] * (1 + rng.integers(-2, 3, n - n // 2) * 2.0 ** -24)  # cancellation
    c = typed(c, "f32").astype(np.float64)
    got = evaluate(f"fma.{mode}.f32", typed(a, "f32"), typed(b, "f32"), typed(c, "f32"))
    want = exact_reference(lambda x, y, z: x * y + z, "f32", mode, a, b, c,
                           zero=lambda x, y, z: zero_sum(mode)(x * y, z))
    with np.errstate(all="ignore"):
        assert_same(got, fill_ieee(want, (a * b + c).astype(np.float32)), "f32", f"fma.{mode}.f32")


def test_mad_f32_is_fused():
    rng = np.random.default_rng(23)
    a, b, c = hard_fma_cases(rng, "f32", 100)
    args = [typed(v, "f32") for v in (a, b, c)]
    assert np.array_equal(evaluate("mad.f32", *args), evaluate("fma.rn.f32", *args))
    assert np.array_equal(evaluate("mad.rn.f32", *args), evaluate("fma.rn.f32", *args))


@pytest.mark.parametrize("mode", MODES)
def test_fma_f64_exact(mode):
    rng = np.random.default_rng(24)
    n = 600
    a, b, c = (random_values(rng, "f64", n) for _ in range(3))
    ha, hb, hc = hard_fma_cases(rng, "f64", 200)
    a[:200], b[:200], c[:200] = ha, hb, hc
    with np.errstate(all="ignore"):
        c[300:450] = -(a * b)[300:450]                                   # exact cancellation
        c[450:] = -(a * b)[450:] * (1 + rng.integers(-2, 3, n - 450) * 2.0 ** -52)
        c = np.where(np.isnan(c), 1.0, c)
    got = evaluate(f"fma.{mode}.f64", a, b, c)
    def zero(x, y, z):
        product = x * y if x * y else math.copysign(0, x) * math.copysign(1, y)
        return zero_sum(mode)(product, z)
    want = exact_reference(lambda x, y, z: x * y + z, "f64", mode, a, b, c, zero=zero)
    with np.errstate(all="ignore"):
        # an infinite c beats a finite product that overflows in a*b + c
        ieee = np.where(np.isfinite(a) & np.isfinite(b) & np.isinf(c), c, a * b + c)
        assert_same(got, fill_ieee(want, ieee), "f64", f"fma.{mode}.f64")


def test_fma_f64_extreme_exponents():
    """Overflow, underflow and subnormal results take the exact fallback."""
    rng = np.random.default_rng(25)
    n = 300
    a = np.ldexp(rng.uniform(1, 2, n), rng.integers(-1074, 1023, n))
    b = np.ldexp(rng.uniform(1, 2, n), rng.integers(-1074, 1023, n))
    c = np.ldexp(rng.uniform(-2, 2, n), rng.integers(-1074, 1023, n))
    a[:100] = np.ldexp(rng.uniform(1, 2, 100), rng.integers(-600, -500, 100))
    b[:100] = np.ldexp(rng.uniform(1, 2, 100), rng.integers(-560, -480, 100))
    c[:100] = np.ldexp(rng.uniform(-2, 2, 100), -1074 + rng.integers(0, 60, 100))
    for mode in MODES:
        got = evaluate(f"fma.{mode}.f64", a, b, c)
        want = exact_reference(lambda x, y, z: x * y + z, "f64", mode, a, b, c,
                               zero=lambda x, y, z: zero_sum(mode)(x * y, z))
        assert_same(got, want, "f64", f"fma.{mode}.f64 extreme")


def test_fma_special_values():
    inf, nan = math.inf, math.nan
    a = np.array([inf, 0.0, 1.0, inf, -0.0, 0.0, 1.0])
    b = np.array([0.0, 5.0, 1.0, 1.0, 5.0, 5.0, -1.0])
    c = np.array([1.0, -0.0, nan, -inf, -0.0, 0.0, 1.0])
    got = evaluate("fma.rn.f64", a, b, c)
    want = [nan, 0.0, nan, nan, -0.0, 0.0, 0.0]
    assert_same(got, want, "f64", "fma specials")
    got = evaluate("fma.rm.f64", a, b, c)
    assert_same(got, [nan, -0.0, nan, nan, -0.0, 0.0, -0.0], "f64", "fma.rm specials")
    got = evaluate("fma.rm.f32", *(typed(v, "f32") for v in (a, b, c)))
    assert_same(got, [nan, -0.0, nan, nan, -0.0, 0.0, -0.0], "f32", "fma.rm.f32 specials")


# ------------------------------------------------------------- half types

@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_add_mul_fma_exact(t):
    rng = np.random.default_rng(31)
    n = 600
    a, b, c = (random_values(rng, t, n, narrow=True) for _ in range(3))
    with np.errstate(all="ignore"):
        for mnemonic, fn, ieee in [(f"add.rn.{t}", lambda x, y: x + y, a + b),
                                   (f"sub.rn.{t}", lambda x, y: x - y, a - b),
                                   (f"mul.rn.{t}", lambda x, y: x * y, a * b)]:
            got = evaluate(mnemonic, typed(a, t), typed(b, t))
            want = exact_reference(fn, t, "rn", a, b,
                                   zero=lambda x, y: float(fn(np.float64(x), np.float64(y))))
            assert_same(got, fill_ieee(want, ieee), t, mnemonic)
        got = evaluate(f"fma.rn.{t}", typed(a, t), typed(b, t), typed(c, t))
        want = exact_reference(lambda x, y, z: x * y + z, t, "rn", a, b, c,
                               zero=lambda x, y, z: zero_sum("rn")(x * y, z))
        assert_same(got, fill_ieee(want, a * b + c), t, f"fma.rn.{t}")
    nan_lanes = np.isnan(untyped(got, t))
    assert np.all(raw_bits(got, t)[nan_lanes] == CANONICAL[t])


@pytest.mark.parametrize("t", ["f16x2", "bf16x2"])
def test_packed_halves_compute_per_element(t):
    elem = t[:-2]
    rng = np.random.default_rng(32)
    n = 200
    a0, a1, b0, b1 = (random_values(rng, elem, n, narrow=True) for _ in range(4))

    def pack(lo, hi):
        lo, hi = raw_bits(typed(lo, elem), elem), raw_bits(typed(hi, elem), elem)
        return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))
    for op in ("add.rn", "mul.rn", "min", "max", "neg", "abs", "fma.rn"):
        n_src = {"neg": 1, "abs": 1, "fma.rn": 3}.get(op, 2)
        srcs = [pack(a0, a1), pack(b0, b1), pack(b1, a0)][:n_src]
        got = evaluate(f"{op}.{t}", *srcs)
        lo = evaluate(f"{op}.{elem}", *[typed(v, elem) for v in (a0, b0, b1)[:n_src]])
        hi = evaluate(f"{op}.{elem}", *[typed(v, elem) for v in (a1, b1, a0)[:n_src]])
        want = raw_bits(lo, elem).astype(np.uint32) | \
            (raw_bits(hi, elem).astype(np.uint32) << np.uint32(16))
        assert np.array_equal(got, want), op


def test_f16_sat_and_relu():
    got = evaluate("fma.rn.relu.f16", np.float16([-2, 2, np.nan]), np.float16(1), np.float16(0))
    assert list(got[:2]) == [0, 2] and got[2:].view(np.uint16)[0] == 0x7FFF
    got = evaluate("add.rn.sat.f16", np.float16([0.75, np.nan, -1]), np.float16(0.5))
    assert list(got) == [1, 0, 0]


# ------------------------------------------------------------------ min, max

@pytest.mark.parametrize("t", ["f32", "f64", "f16", "bf16"])
def test_min_max_nan_and_signed_zero(t):
    nan = math.nan
    a = [nan, 1.0, nan, -0.0, 0.0, -2.0, 3.0]
    b = [2.0, nan, nan, 0.0, -0.0, 1.0, -math.inf]
    mn = evaluate(f"min.{t}", typed(a, t), typed(b, t))
    mx = evaluate(f"max.{t}", typed(a, t), typed(b, t))
    assert_same(mn, [2.0, 1.0, nan, -0.0, -0.0, -2.0, -math.inf], t, "min")
    assert_same(mx, [2.0, 1.0, nan, 0.0, 0.0, 1.0, 3.0], t, "max")
    if t != "f64":
        assert raw_bits(mn, t)[2] == CANONICAL[t]
        got = evaluate(f"min.NaN.{t}", typed(a, t), typed(b, t))
        assert_same(got, [nan, nan, nan, -0.0, -0.0, -2.0, -math.inf], t, "min.NaN")
        assert np.all(raw_bits(got, t)[:3] == CANONICAL[t])


def test_min_max_xorsign_abs_and_ftz():
    a = np.float16([-3.0, 2.0, -1.0])
    b = np.float16([1.0, -5.0, -4.0])
    assert list(evaluate("min.xorsign.abs.f16", a, b)) == [-1.0, -2.0, 1.0]
    assert list(evaluate("max.xorsign.abs.f16", a, b)) == [-3.0, -5.0, 4.0]
    tiny = np.float32(-1e-40)
    assert evaluate("min.ftz.f32", np.float32([tiny]), np.float32([0.0]))[0] == 0
    assert evaluate("min.f32", np.float32([tiny]), np.float32([0.0]))[0] == tiny
    got = evaluate("min.f32", np.float32([3, 1]), np.float32([2, 5]), np.float32([4, 0]))
    assert list(got) == [2, 0]


# ------------------------------------------------------ abs, neg, copysign, testp

def test_abs_neg_copysign_are_sign_bit_operations():
    a = np.float32([1.5, -0.0, -math.inf, 2.0])
    assert_same(evaluate("abs.f32", a), [1.5, 0.0, math.inf, 2.0], "f32", "abs")
    assert_same(evaluate("neg.f32", a), [-1.5, 0.0, math.inf, -2.0], "f32", "neg")
    assert_same(evaluate("neg.f64", a.astype(np.float64)), [-1.5, 0.0, math.inf, -2.0], "f64", "neg")
    assert evaluate("neg.ftz.f32", np.float32([1e-40]))[0] == 0
    assert np.signbit(evaluate("neg.ftz.f32", np.float32([1e-40]))[0])
    got = evaluate("copysign.f32", np.float32([-1.0, 1.0, -0.0]), np.float32([2.0, -3.0, 4.0]))
    assert_same(got, [-2.0, 3.0, -4.0], "f32", "copysign")
    assert evaluate("neg.bf16", np.uint16([0x3F80]))[0] == 0xBF80
    assert evaluate("abs.bf16", np.uint16([0xBF80]))[0] == 0x3F80


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_testp(t):
    values = typed([0.0, -0.0, 1.0, math.inf, -math.inf, math.nan,
                    {"f32": 1e-40, "f64": 1e-310}[t]], t)
    expect = {
        "finite": [1, 1, 1, 0, 0, 0, 1], "infinite": [0, 0, 0, 1, 1, 0, 0],
        "number": [1, 1, 1, 1, 1, 0, 1], "notanumber": [0, 0, 0, 0, 0, 1, 0],
        "normal": [1, 1, 1, 0, 0, 0, 0], "subnormal": [0, 0, 0, 0, 0, 0, 1],   # zero: normal on GPU
    }
    for test, want in expect.items():
        got = evaluate(f"testp.{test}.{t}", values)
        assert got.dtype == bool and list(got) == [bool(w) for w in want], test


# ------------------------------------------------------------ .approx functions

def ulp32(x):
    x = np.abs(np.asarray(x, dtype=np.float32))
    return np.nextafter(x, np.float32(np.inf)).astype(np.float64) - x.astype(np.float64)


def test_approx_functions_within_ptx_bounds():
    rng = np.random.default_rng(41)
    x = rng.uniform(-100, 100, 2000).astype(np.float32)
    xd = x.astype(np.float64)
    got = evaluate("ex2.approx.f32", x).astype(np.float64)
    assert np.all(np.abs(got - np.exp2(xd)) <= 2 * ulp32(np.exp2(xd)))
    pos = np.abs(x) + np.float32(1e-3)
    got = evaluate("lg2.approx.f32", pos).astype(np.float64)
    error = np.abs(got - np.log2(pos.astype(np.float64)))
    assert np.all(error <= 2.0 ** -22.6 * np.maximum(1, np.abs(got)))
    small = (x / np.float32(100 / math.pi)).astype(np.float32)
    for name, fn in (("sin", np.sin), ("cos", np.cos)):
        got = evaluate(f"{name}.approx.f32", small).astype(np.float64)
        assert np.all(np.abs(got - fn(small.astype(np.float64))) <= 2.0 ** -20.9)
    got = evaluate("tanh.approx.f32", x / np.float32(20)).astype(np.float64)
    want = np.tanh((x / np.float32(20)).astype(np.float64))
    assert np.all(np.abs(got - want) <= 2.0 ** -10.987 * np.abs(want) + 1e-30)
    for mnemonic, fn in (("rcp.approx.f32", lambda v: 1 / v), ("sqrt.approx.f32", np.sqrt),
                         ("rsqrt.approx.f32", lambda v: 1 / np.sqrt(v))):
        got = evaluate(mnemonic, pos).astype(np.float64)
        want = fn(pos.astype(np.float64))
        assert np.all(np.abs(got - want) <= ulp32(want)), mnemonic
    for mnemonic in ("div.approx.f32", "div.full.f32", "div.full.ftz.f32"):
        got = evaluate(mnemonic, x, pos).astype(np.float64)
        want = xd / pos.astype(np.float64)
        assert np.all(np.abs(got - want) <= 2 * ulp32(want)), mnemonic
    # .full covers the whole range: |b| > 2**126 and subnormal b are scaled first
    got = evaluate("div.full.f32", np.float32([3.0, 1e-45]), np.float32([2.0 ** 127, 1e-45]))
    assert np.allclose(got, [3 * 2.0 ** -127, 1.0], rtol=2 ** -22, atol=0)


def test_approx_special_values():
    inf, nan = math.inf, math.nan
    got = evaluate("rsqrt.approx.f32", np.float32([0.0, -0.0, inf, -1.0]))
    assert_same(got, [inf, -inf, 0.0, nan], "f32", "rsqrt")
    got = evaluate("lg2.approx.f32", np.float32([0.0, -1.0, inf, 1.0]))
    assert_same(got, [-inf, nan, inf, 0.0], "f32", "lg2")
    got = evaluate("ex2.approx.ftz.f32", np.float32([-inf, -140.0, inf, 0.0]))
    assert_same(got, [0.0, 0.0, inf, 1.0], "f32", "ex2.ftz")
    assert evaluate("ex2.approx.f32", np.float32([-140.0]))[0] == np.float32(2.0 ** -140)
    got = evaluate("sin.approx.f32", np.float32([inf, -0.0]))
    assert_same(got, [nan, -0.0], "f32", "sin")
    assert np.isnan(got[0]) and got.view(np.uint32)[0] == CANONICAL["f32"]
    # |b| > 2**126: the reciprocal is flushed, so the quotient is 0 (NaN for inf/b)
    got = evaluate("div.approx.f32", np.float32([1.0, inf]), np.float32([2.0 ** 127, 2.0 ** 127]))
    assert_same(got, [0.0, nan], "f32", "div.approx")
    got = evaluate("rcp.approx.ftz.f64", np.array([0.0, 4.0, 1e-310]))
    assert_same(got, [inf, 0.25, inf], "f64", "rcp.approx.ftz.f64")


def test_half_ex2_tanh():
    x = np.float16([0.0, 1.0, -1.0, 3.5])
    assert list(evaluate("ex2.approx.f16", x)) == [1.0, 2.0, 0.5, np.float16(2 ** 3.5)]
    got = evaluate("tanh.approx.bf16", typed([0.5, -2.0], "bf16"))
    assert np.all(np.abs(untyped(got, "bf16") - np.tanh([0.5, -2.0])) <= 2.0 ** -7)
    word = np.uint32(0x3C000000)                   # f16x2 {0.0 low, 1.0 high}
    assert evaluate("ex2.approx.f16x2", word) == np.uint32(0x40003C00)


# ------------------------------------------------------------------ checks

@pytest.mark.parametrize("mnemonic,n", [
    ("add.rz.bf16", 2), ("fma.f32", 3), ("fma.rn.sat.f64", 3), ("min.xorsign.f32", 2),
    ("sin.approx.f64", 1), ("div.approx.f64", 2), ("add.sat.f64", 2), ("testp.f32", 1),
    ("sqrt.rn.f16", 1), ("fma.rn.oob.f16", 3), ("abs.ftz.bf16", 1), ("add.rn.rz.f32", 2),
])
def test_unsupported_modifiers_are_rejected_at_load(mnemonic, n):
    with pytest.raises(UnsupportedInstruction):
        lookup(parse_mnemonic(mnemonic, 1, n))


def test_pipes():
    assert lookup(parse_mnemonic("fma.rn.f32", 1, 3)).pipe == "fma"
    assert lookup(parse_mnemonic("fma.rn.f64", 1, 3)).pipe == "fp64"
    assert lookup(parse_mnemonic("ex2.approx.f32", 1, 1)).pipe == "sfu"
    assert lookup(parse_mnemonic("add.s32", 1, 2)).family == "integer"
    assert lookup(parse_mnemonic("add.f16x2", 1, 2)).family == "floating"


# -------------------------------------------------- behaviour seen on an H200
# Bit patterns below were read off an H200 (sm_90) running each instruction.

def f64_bits(*values):
    return np.array(values, dtype=np.uint64).view(np.float64)


def test_f64_nan_operand_order():
    a = f64_bits(0x7FF1000000000001, 0x7FF8000000000002, 0x3FF0000000000000)
    b = f64_bits(0xFFF2000000000003, 0x3FF0000000000000, 0x7FF0000000000004)
    c = f64_bits(0x7FF4000000000005, 0x7FF4000000000005, 0x7FF4000000000005)
    for mnemonic in ("add.rn.f64", "sub.rz.f64", "mul.rn.f64"):
        got = evaluate(mnemonic, a, b).view(np.uint64)   # the second NaN wins, quieted
        assert list(got) == [0xFFFA000000000003, 0x7FF8000000000002, 0x7FF8000000000004], mnemonic
    for mnemonic in ("min.f64", "max.f64"):                # one NaN: the number
        got = evaluate(mnemonic, a, b).view(np.uint64)
        assert list(got) == [0xFFFA000000000003, 0x3FF0000000000000, 0x3FF0000000000000], mnemonic
    got = evaluate("div.rn.f64", a, b).view(np.uint64)   # division: the first one (as x86)
    assert list(got) == [0x7FF9000000000001, 0x7FF8000000000002, 0x7FF8000000000004]
    got = evaluate("fma.rn.f64", a, b, c).view(np.uint64)   # b, then c, then a
    assert list(got) == [0xFFFA000000000003, 0x7FFC000000000005, 0x7FF8000000000004]
    inf = f64_bits(0x7FF0000000000000)
    assert evaluate("sub.rn.f64", inf, inf).view(np.uint64)[0] == 0xFFF8000000000000


def test_abs_neg_nans():
    nan32 = np.uint32([0xFFC00001]).view(np.float32)
    assert evaluate("abs.f32", nan32).view(np.uint32)[0] == 0x7FFFFFFF
    assert evaluate("neg.f32", nan32).view(np.uint32)[0] == 0x7FFFFFFF
    assert evaluate("neg.bf16", np.uint16([0x7FC5]))[0] == 0x7FFF
    nan64 = f64_bits(0xFFF0000000000007)
    assert evaluate("abs.f64", nan64).view(np.uint64)[0] == 0xFFF8000000000007
    assert evaluate("neg.f64", nan64).view(np.uint64)[0] == 0xFFF8000000000007


def test_f64_sfu_approximations():
    x = f64_bits(0x3FF0000000000000, 0x3FE0000000000000, 0x3FF8000000000000, 0x3FE8000000000000,
                 0x3F3E243558000A30, 0x328A8F6168D358D8, 0xBF6F74AE5FA34AF0)
    got = evaluate("rsqrt.approx.f64", x).view(np.uint64)
    assert list(got) == [0x3FF0000000000000, 0x3FF6A09E667F3BCD, 0x3FEA20BD700C2C3E, 0x3FF279A74590331C,
                         0x40475089A915606A, 0x46A18FEFF386E3E9, 0xFFF8000000000000]
    # MUFU.RCP64H: high word only
    x = f64_bits(0x3FF8000000000000, 0xC004000000000000, 0x4061D18DE7302820, 0x7FF8000000000000, 0x0)
    got = evaluate("rcp.approx.ftz.f64", x).view(np.uint64)
    assert list(got) == [0x3FE5555500000000, 0xBFD9999900000000, 0x3F7CBBED00000000,
                         0x7FFFFFFF00000000, 0x7FF0000000000000]


def test_sin_cos_take_revolutions_in_fixed_point():
    x = np.float32([2.4773585e-27, -6.43e-14, 3.4028235e38, 1e-45, 2.4e-7])
    got = evaluate("sin.approx.f32", x).astype(np.float64)
    assert_same(got[:4], [0.0, -0.0, 0.0, 0.0], "f32", "sin of tiny and huge x")
    assert got[4] == pytest.approx(math.sin(2 * math.pi * 2.0 ** -25), rel=1e-6)
    assert evaluate("cos.approx.f32", np.float32([3.4028235e38]))[0] == 1.0
    big = np.float32(12345.678)                    # argument reduction in f32 revolutions
    assert abs(float(evaluate("sin.approx.f32", np.float32([big]))[0]) - math.sin(float(big))) < 1e-3


def test_division_and_reciprocal_ranges():
    tiny = np.float32(1e-45)
    assert evaluate("div.approx.f32", np.float32([tiny]), np.float32([tiny]))[0] == 1.0
    subnormal = np.uint32([0x400000]).view(np.float32)
    assert evaluate("rcp.approx.f32", subnormal)[0] == np.float32(2.0 ** 127)
    assert evaluate("rcp.approx.ftz.f32", subnormal)[0] == np.inf
    assert evaluate("ex2.approx.ftz.bf16", np.uint16([0xC304]))[0] == 0        # 2**-132 flushed
