"""setp, set, selp, slct against references written with Python ints and floats.

Float operands are drawn from a pool with NaN, infinities, signed zeros and
subnormals, so equal pairs and unordered pairs both occur often.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from warpsim.errors import UnsupportedInstruction
from warpsim.machine.isa.evaluate import evaluate, parse_mnemonic
from warpsim.machine.isa.table import lookup
from warpsim.ptx.types import TYPES

N = 400
INT_TYPES = ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"]
INT_OPS = {"b": ["eq", "ne"],                       # what ptxas accepts per type kind
           "s": ["eq", "ne", "lt", "le", "gt", "ge"],
           "u": ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]}
FLOAT_OPS = ["eq", "ne", "lt", "le", "gt", "ge",
             "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def run(mnemonic, *sources, n_dsts=1):
    with np.errstate(all="ignore"):
        return evaluate(mnemonic, *sources, n_dsts=n_dsts)


@pytest.fixture
def rng():
    return np.random.default_rng(99)


# ------------------------------------------------------------------ references

def int_reference(op: str, x: int, y: int, bits: int) -> bool:
    if op in ("lo", "ls", "hi", "hs"):
        x, y = x & ((1 << bits) - 1), y & ((1 << bits) - 1)
        op = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[op]
    return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]


def float_reference(op: str, x: float, y: float) -> bool:
    """PTX's rules, spelled out: ordered ops false on NaN, unordered ones true."""
    unordered = math.isnan(x) or math.isnan(y)
    if op == "num":
        return not unordered
    if op == "nan":
        return unordered
    base = op[:-1] if op.endswith("u") else op
    ordered_result = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y,
                      "gt": x > y, "ge": x >= y}[base]
    if op.endswith("u"):
        return unordered or ordered_result
    return not unordered and ordered_result


def flushed(x: float, smallest_normal: float) -> float:
    return math.copysign(0.0, x) if abs(x) < smallest_normal else x


def bf16_value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]


def f16_value(bits: int) -> float:
    return float(np.array(bits, dtype=np.uint16).view(np.float16))


# ------------------------------------------------------------------ operands

def int_operand(rng, t):
    """Few distinct values, so equal pairs are common; the extremes included."""
    info = TYPES[t]
    pool = np.array([0, 1, 2, 2**(info.bits - 1) - 1, 2**(info.bits - 1), 2**info.bits - 1,
                     2**info.bits - 2, 12345], dtype=np.uint64)
    return rng.choice(pool, N).astype(info.storage).view(info.dtype)


def float_operand(rng, dtype):
    info = np.finfo(dtype)
    pool = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, math.inf, -math.inf, math.nan,
            float(info.tiny), -float(info.tiny), float(info.tiny) / 4, -float(info.tiny) / 4,
            float(info.max), -float(info.max)]
    return rng.choice(np.array(pool, dtype=dtype), N)


# ------------------------------------------------------------------ setp: integers

@pytest.mark.parametrize("t", INT_TYPES)
def test_setp_integer_ops(rng, t):
    a, b = int_operand(rng, t), int_operand(rng, t)
    bits = TYPES[t].bits
    for op in INT_OPS[TYPES[t].kind]:
        p, q = run(f"setp.{op}.{t}", a, b, n_dsts=2)
        want = np.array([int_reference(op, int(x), int(y), bits) for x, y in zip(a, b)])
        assert p.dtype == np.bool_
        np.testing.assert_array_equal(p, want, err_msg=op)
        np.testing.assert_array_equal(q, ~want, err_msg=op)


def test_setp_signed_versus_unsigned():
    minus_one, one = np.int32(-1), np.int32(1)
    assert run("setp.lt.s32", minus_one, one)
    assert not run("setp.lo.u32", minus_one.view(np.uint32), one.view(np.uint32))
    assert not run("setp.lt.u32", np.uint32(2**32 - 1), np.uint32(1))


# ------------------------------------------------------------------ setp: floats

@pytest.mark.parametrize("t", ["f32", "f64"])
def test_setp_float_ops(rng, t):
    dtype = TYPES[t].dtype
    a, b = float_operand(rng, dtype), float_operand(rng, dtype)
    for op in FLOAT_OPS:
        p, q = run(f"setp.{op}.{t}", a, b, n_dsts=2)
        want = np.array([float_reference(op, float(x), float(y)) for x, y in zip(a, b)])
        np.testing.assert_array_equal(p, want, err_msg=op)
        np.testing.assert_array_equal(q, ~want, err_msg=op)


def test_setp_ftz_flushes_subnormal_inputs(rng):
    a, b = float_operand(rng, np.float32), float_operand(rng, np.float32)
    tiny = float(np.finfo(np.float32).tiny)
    for op in FLOAT_OPS:
        got = run(f"setp.{op}.ftz.f32", a, b)
        want = np.array([float_reference(op, flushed(float(x), tiny), flushed(float(y), tiny))
                         for x, y in zip(a, b)])
        np.testing.assert_array_equal(got, want, err_msg=op)
    subnormal = np.float32(1e-40)
    assert not run("setp.eq.f32", subnormal, np.float32(0))
    assert run("setp.eq.ftz.f32", subnormal, np.float32(0))
    assert not run("setp.lt.ftz.f32", -subnormal, np.float32(0))


def test_setp_nan_by_hand():
    nan, one = np.float32(np.nan), np.float32(1)
    assert not run("setp.ne.f32", nan, one)      # NumPy's != would say True
    assert run("setp.neu.f32", nan, one)
    assert not run("setp.eq.f32", nan, nan)
    assert run("setp.nan.f32", one, nan) and not run("setp.num.f32", one, nan)
    assert run("setp.eq.f32", np.float32(-0.0), np.float32(0.0))


@pytest.mark.parametrize("bool_op", ["and", "or", "xor"])
def test_setp_combines_with_a_predicate(rng, bool_op):
    a, b = int_operand(rng, "s32"), int_operand(rng, "s32")
    c = rng.random(N) < 0.5
    p, q = run(f"setp.lt.{bool_op}.s32", a, b, c, n_dsts=2)
    combine = {"and": lambda t, u: t and u, "or": lambda t, u: t or u, "xor": lambda t, u: t != u}
    t = [int(x) < int(y) for x, y in zip(a, b)]
    np.testing.assert_array_equal(p, [combine[bool_op](v, u) for v, u in zip(t, c)])
    np.testing.assert_array_equal(q, [combine[bool_op](not v, u) for v, u in zip(t, c)])
    single = run(f"setp.lt.{bool_op}.s32", a, b, c)
    np.testing.assert_array_equal(single, p)


# ------------------------------------------------------------------ setp: half precision

def f16_bits(rng):
    return float_operand(rng, np.float16).view(np.uint16)


def bf16_bits(rng):
    """bf16 operands: the upper halves of f32 specials and randoms."""
    return (float_operand(rng, np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)


def test_setp_f16(rng):
    a, b = float_operand(rng, np.float16), float_operand(rng, np.float16)
    tiny = float(np.finfo(np.float16).tiny)
    for op in FLOAT_OPS:
        want = [float_reference(op, float(x), float(y)) for x, y in zip(a, b)]
        np.testing.assert_array_equal(run(f"setp.{op}.f16", a, b), want, err_msg=op)
        want = [float_reference(op, flushed(float(x), tiny), flushed(float(y), tiny))
                for x, y in zip(a, b)]
        np.testing.assert_array_equal(run(f"setp.{op}.ftz.f16", a, b), want, err_msg=op)


def test_setp_bf16_reads_raw_bits(rng):
    a, b = bf16_bits(rng), bf16_bits(rng)
    for op in FLOAT_OPS:
        want = [float_reference(op, bf16_value(int(x)), bf16_value(int(y))) for x, y in zip(a, b)]
        np.testing.assert_array_equal(run(f"setp.{op}.bf16", a, b), want, err_msg=op)
    assert run("setp.lt.bf16", np.uint16(0x3F80), np.uint16(0x4000))     # 1.0 < 2.0


@pytest.mark.parametrize("t", ["f16x2", "bf16x2"])
def test_setp_packed_halves_give_p_low_q_high(rng, t):
    halves = f16_bits if t == "f16x2" else bf16_bits
    value = f16_value if t == "f16x2" else bf16_value
    a = halves(rng).astype(np.uint32) | (halves(rng).astype(np.uint32) << np.uint32(16))
    b = halves(rng).astype(np.uint32) | (halves(rng).astype(np.uint32) << np.uint32(16))
    c = rng.random(N) < 0.5
    for op in FLOAT_OPS:
        p, q = run(f"setp.{op}.and.{t}", a, b, c, n_dsts=2)
        low = [float_reference(op, value(int(x) & 0xFFFF), value(int(y) & 0xFFFF))
               for x, y in zip(a, b)]
        high = [float_reference(op, value(int(x) >> 16), value(int(y) >> 16))
                for x, y in zip(a, b)]
        np.testing.assert_array_equal(p, np.array(low) & c, err_msg=op)
        np.testing.assert_array_equal(q, np.array(high) & c, err_msg=op)


# ------------------------------------------------------------------ set

@pytest.mark.parametrize("dest,true_bits", [
    ("u32", 0xFFFFFFFF), ("s32", 0xFFFFFFFF), ("f32", 0x3F800000),
    ("u16", 0xFFFF), ("s16", 0xFFFF), ("f16", 0x3C00), ("bf16", 0x3F80),
])
def test_set_writes_one_or_all_ones(dest, true_bits):
    a = np.array([1, 3, 2], dtype=np.int32)
    b = np.array([2, 1, 2], dtype=np.int32)
    result = run(f"set.lt.{dest}.s32", a, b)
    info = TYPES[dest]
    assert result.dtype == info.dtype
    bits = np.asarray(result).view(info.storage)
    assert [int(x) for x in bits] == [true_bits, 0, 0]


def test_set_float_source_and_combine():
    a = np.array([1.0, np.nan, 3.0, 1.0], dtype=np.float32)
    b = np.array([2.0, 1.0, 1.0, 2.0], dtype=np.float32)
    c = np.array([True, True, True, False])
    assert run("set.ltu.f32.f32", a, b).tolist() == [1.0, 1.0, 0.0, 1.0]
    assert run("set.lt.and.u32.f32", a, b, c).tolist() == [0xFFFFFFFF, 0, 0, 0]


@pytest.mark.parametrize("dest,half_one", [("u32", 0xFFFF), ("s32", 0xFFFF), ("f16x2", 0x3C00)])
def test_set_packed_halves(dest, half_one):
    one, two = 0x3C00, 0x4000                     # f16 1.0 and 2.0
    a = np.array([one | two << 16, two | one << 16], dtype=np.uint32)
    b = np.array([two | two << 16, two | two << 16], dtype=np.uint32)
    result = run(f"set.lt.{dest}.f16x2", a, b)
    assert result.dtype == TYPES[dest].dtype
    assert [int(x) for x in np.asarray(result).view(np.uint32)] == [half_one, half_one << 16]
    bf_result = run("set.lt.bf16x2.bf16x2", np.uint32(0x3F80_4000), np.uint32(0x4000_4000))
    assert int(bf_result) == 0x3F80_0000


# ------------------------------------------------------------------ selp, slct

@pytest.mark.parametrize("t", ["u16", "s32", "b64", "f32", "f64"])
def test_selp(rng, t):
    dtype = TYPES[t].dtype
    a = np.arange(N).astype(dtype)
    b = (-np.arange(N)).astype(dtype)
    c = rng.random(N) < 0.5
    result = run(f"selp.{t}", a, b, c)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, np.where(c, a, b))


def test_selp_keeps_nan_payload():
    payload = np.array([0x7FC01234], dtype=np.uint32).view(np.float32)
    result = run("selp.f32", payload, np.float32(0), np.bool_(True))
    assert int(np.asarray(result).view(np.uint32)[0]) == 0x7FC01234


def test_slct():
    a = np.array([1, 2, 3, 4, 5, 6], dtype=np.uint32)
    b = np.array([10, 20, 30, 40, 50, 60], dtype=np.uint32)
    ints = np.array([0, -1, 5, -2**31, 2**31 - 1, 1], dtype=np.int32)
    assert run("slct.u32.s32", a, b, ints).tolist() == [1, 20, 3, 40, 5, 6]
    floats = np.array([0.0, -0.0, np.nan, -1e-40, 1e-40, -np.inf], dtype=np.float32)
    assert run("slct.u32.f32", a, b, floats).tolist() == [1, 2, 30, 40, 5, 60]
    assert run("slct.ftz.u32.f32", a, b, floats).tolist() == [1, 2, 30, 4, 5, 60]
    assert run("slct.f64.s32", np.float64(1.5), np.float64(2.5), ints).dtype == np.float64


# ------------------------------------------------------------------ rejections

@pytest.mark.parametrize("mnemonic,n_dsts,n_srcs", [
    ("setp.s32", 1, 2), ("setp.lt.gt.s32", 1, 2), ("setp.ltu.s32", 1, 2),
    ("setp.num.u32", 1, 2), ("setp.lo.f32", 1, 2), ("setp.lt.ftz.f64", 1, 2),
    ("setp.lt.ftz.s32", 1, 2), ("setp.lt.and.or.s32", 1, 3), ("setp.lt.s32.u32", 1, 2),
    ("setp.lt.bf16.sat", 1, 2), ("set.lt.s32", 1, 2), ("set.lt.f64.s32", 1, 2),
    ("set.lt.f32.f16x2", 1, 2), ("slct.u32.u32", 1, 3), ("slct.ftz.u32.s32", 1, 3),
    ("selp.u32.u32", 1, 3), ("setp.lo.s32", 1, 2), ("setp.lt.b32", 1, 2), ("setp.eq.pred", 1, 2),
])
def test_rejected_at_load(mnemonic, n_dsts, n_srcs):
    with pytest.raises(UnsupportedInstruction):
        lookup(parse_mnemonic(mnemonic, n_dsts, n_srcs))
