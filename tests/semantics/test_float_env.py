"""FloatEnv (one instruction's float rules) and the packed-half helpers, against NumPy references."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from warpsim.semantics.floatbits import F32
from warpsim.semantics.floating import PLAIN, FloatEnv, arithmetic, min_max
from warpsim.semantics.packed import pack, pack_truths, unpack


def _random_f32(rng, n=4096):
    """float32 values over every exponent, subnormals, zeros, infinities and NaNs among them."""
    bits = rng.integers(0, 2 ** 32, size=n, dtype=np.uint64).astype(np.uint32)
    bits[: n // 8] &= np.uint32(0x807FFFFF)                  # subnormals and zeros of both signs
    bits[n // 8: n // 8 + 8] = [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0, 0x80000000, 1, 0x3F800000]
    return bits.view(np.float32)


def test_float_env_is_frozen_and_checks_its_nan_rule():
    env = FloatEnv.flushing(True, sat=True)
    assert env.ftz_in and env.ftz_out and env.sat and not env.relu
    with pytest.raises(dataclasses.FrozenInstanceError):
        env.sat = False
    with pytest.raises(ValueError, match="canonical"):
        FloatEnv(nan="first")
    assert FloatEnv() == PLAIN and hash(FloatEnv()) == hash(PLAIN)


def test_outputs_flush_saturate_and_relu_as_numpy_would():
    x = _random_f32(np.random.default_rng(1))
    tiny = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
    with np.errstate(invalid="ignore"):
        flushed = FloatEnv(ftz_out=True).outputs(x.copy(), F32)
        saturated = FloatEnv(sat=True).outputs(x.copy(), F32)
        relu = FloatEnv(relu=True).outputs(x.copy(), F32)
    assert (flushed[tiny] == 0).all() and (np.signbit(flushed[tiny]) == np.signbit(x[tiny])).all()
    assert np.array_equal(flushed[~tiny], x[~tiny], equal_nan=True)
    want = np.where(np.isnan(x), 0, np.clip(x, 0, 1))
    assert np.array_equal(saturated, want) and not np.signbit(saturated).any()
    assert np.array_equal(relu, np.where(x < 0, 0, x), equal_nan=True) and not np.signbit(relu[relu == 0]).any()


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_arithmetic_rounds_to_nearest_as_numpy_float32(op):
    rng = np.random.default_rng(len(op))
    a, b = _random_f32(rng), _random_f32(rng)
    with np.errstate(all="ignore"):
        got = arithmetic(op, "f32", a, b)
        want = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, b)
    assert np.array_equal(got.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert (got.view(np.uint32)[np.isnan(want)] == 0x7FFFFFFF).all()       # the canonical NaN


def test_arithmetic_rounds_f16_halves_once_into_f32():
    rng = np.random.default_rng(7)
    a, b = (rng.integers(0, 1 << 16, size=4096, dtype=np.uint32).astype(np.uint16).view(np.float16) for _ in range(2))
    with np.errstate(all="ignore"):
        got = arithmetic("add", "f16", a, b, out="f32")
        want = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32)
    same = np.isnan(want) & np.isnan(got) | (got.view(np.uint32) == want.view(np.uint32))
    assert same.all()


def test_min_max_flushes_operands_and_lets_nan_win_when_told():
    x = np.array([np.nan, 1.0, 1e-40, -0.0], dtype=np.float32)
    y = np.array([2.0, np.nan, -1e-40, 0.0], dtype=np.float32)
    assert np.array_equal(min_max("f32", (x, y), True), np.array([2.0, 1.0, -1e-40, -0.0], np.float32))
    flushed = min_max("f32", (x, y), False, FloatEnv(ftz_in=True))
    assert flushed[2] == 0 and not np.signbit(flushed[2])                  # max(+0, -0) after flushing
    nan_wins = min_max("f32", (x, y), True, FloatEnv(nan_wins=True)).view(np.uint32)
    assert (nan_wins[:2] == 0x7FFFFFFF).all()


def test_unpack_pack_and_selects_round_trip():
    words = np.random.default_rng(3).integers(0, 2 ** 32, size=1024, dtype=np.uint64).astype(np.uint32)
    for elem in ("f16", "bf16"):
        low, high = unpack(words, elem)
        assert np.array_equal(pack(low, high), words)
        both_high = pack(*unpack(words, elem, (1, 1)))
        assert np.array_equal(both_high, (words >> np.uint32(16)) * np.uint32(0x10001))
    with pytest.raises(KeyError):
        unpack(words, "f32")
    truths = pack_truths(np.array([True, False]), np.array([True, True]), 0x3C00)
    assert list(truths) == [0x3C003C00, 0x3C000000]


@pytest.mark.parametrize("scale", [-3, -2, -1, 1, 2, 3])
def test_a_scaled_product_is_rounded_once(scale):
    """SASS's FMUL.D2 ... .M8: the exact product times 2^scale rounded once, to nearest as NumPy's
    cast of the exact f64 value; rounding the product first would differ in the subnormal range
    and where the product overflows."""
    rng = np.random.default_rng(10 + scale)
    a, b = _random_f32(rng), _random_f32(rng)
    with np.errstate(all="ignore"):
        got = arithmetic("mul", "f32", a, b, scale=scale)
        want = (a.astype(np.float64) * b * 2.0 ** scale).astype(np.float32)
        twice = (a * b * np.float32(2.0 ** scale)).astype(np.float32)
    number = ~np.isnan(want)
    assert np.array_equal(got.view(np.uint32)[number], want.view(np.uint32)[number])
    assert (got.view(np.uint32)[~number] == 0x7FFFFFFF).all()
    assert (got[number] != twice[number]).any()
    assert arithmetic("mul", "f32", np.float32(2.0 ** 64), np.float32(2.0 ** 64), scale=-1) == np.float32(2.0 ** 127)


def test_a_scale_applies_to_narrow_products_only():
    with pytest.raises(ValueError, match="scale"):
        arithmetic("add", "f32", np.float32(1), np.float32(2), scale=1)
    with pytest.raises(ValueError, match="scale"):
        arithmetic("mul", "f64", np.float64(1), np.float64(2), scale=1)
