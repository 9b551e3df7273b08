"""Logic and shift family against Python-int references and the manual's examples."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.errors import UnsupportedInstruction
from warpsim.machine.isa.evaluate import evaluate, parse_mnemonic
from warpsim.machine.isa.table import lookup
from warpsim.ptx.types import TYPES

N = 300
BITS = ["b16", "b32", "b64"]


def run(mnemonic, *sources, n_dsts=1):
    with np.errstate(all="ignore"):
        return evaluate(mnemonic, *sources, n_dsts=n_dsts)


def operand(rng, type_name, n=N):
    t = TYPES[type_name]
    raw = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    raw[:4] = [0, 1, 2**63, 2**64 - 1]
    return raw.astype(t.storage).view(t.dtype)


def ints(values):
    return [int(v) for v in values]


def expect(result, expected, type_name):
    t = TYPES[type_name]
    result = np.asarray(result)
    assert result.dtype == t.dtype, f"dtype {result.dtype}, want {t.dtype}"
    mask = (1 << t.bits) - 1
    want = np.array([int(e) & mask for e in expected], dtype=t.storage).view(t.dtype)
    np.testing.assert_array_equal(result, want)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


# ------------------------------------------------------------------ and, or, xor, not, cnot

@pytest.mark.parametrize("t", BITS)
def test_bitwise_ops(rng, t):
    a, b = operand(rng, t), operand(rng, t)
    x, y = ints(a), ints(b)
    expect(run(f"and.{t}", a, b), [p & q for p, q in zip(x, y)], t)
    expect(run(f"or.{t}", a, b), [p | q for p, q in zip(x, y)], t)
    expect(run(f"xor.{t}", a, b), [p ^ q for p, q in zip(x, y)], t)
    expect(run(f"not.{t}", a), [~p for p in x], t)
    expect(run(f"cnot.{t}", a), [int(p == 0) for p in x], t)


def test_predicate_logic():
    p = np.array([False, False, True, True])
    q = np.array([False, True, False, True])
    assert run("and.pred", p, q).tolist() == [False, False, False, True]
    assert run("or.pred", p, q).tolist() == [False, True, True, True]
    assert run("xor.pred", p, q).tolist() == [False, True, True, False]
    assert run("not.pred", p).tolist() == [True, True, False, False]
    assert run("not.pred", p).dtype == np.bool_


# ------------------------------------------------------------------ shl, shr

AMOUNTS = [0, 1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 2**31, 2**32 - 1]


@pytest.mark.parametrize("t", BITS + ["u16", "u32", "u64", "s16", "s32", "s64"])
def test_shifts_past_the_width(rng, t):
    bits = TYPES[t].bits
    a = operand(rng, t, len(AMOUNTS) * 4)
    amount = np.array(AMOUNTS * 4, dtype=np.uint32)
    x = ints(a)
    n = ints(amount)
    if t.startswith("b"):
        expect(run(f"shl.{t}", a, amount), [p << k if k < bits else 0 for p, k in zip(x, n)], t)
    if t.startswith("s"):   # Python's >> on negative ints is arithmetic, any amount
        want = [p >> min(k, bits) for p, k in zip(x, n)]
    else:
        want = [p >> k if k < bits else 0 for p, k in zip(x, n)]
    expect(run(f"shr.{t}", a, amount), want, t)


def test_shift_by_hand():
    assert int(run("shl.b32", np.uint32(1), np.uint32(31))) == 2**31
    assert int(run("shl.b32", np.uint32(1), np.uint32(32))) == 0
    assert int(run("shr.s32", np.int32(-8), np.uint32(33))) == -1
    assert int(run("shr.s32", np.int32(8), np.uint32(255))) == 0
    assert int(run("shr.u32", np.uint32(2**32 - 1), np.uint32(32))) == 0
    assert int(run("shr.s16", np.int16(-2**15), np.uint32(3))) == -(2**12)


# ------------------------------------------------------------------ shf

@pytest.mark.parametrize("direction", ["l", "r"])
@pytest.mark.parametrize("mode", ["clamp", "wrap"])
def test_funnel_shift(rng, direction, mode):
    a, b = operand(rng, "b32"), operand(rng, "b32")
    c = np.array((AMOUNTS * 20)[:N], dtype=np.uint32)
    want = []
    for x, y, k in zip(ints(a), ints(b), ints(c)):
        n = min(k, 32) if mode == "clamp" else k & 31
        pair = (y << 32) | x
        want.append(((pair << n) >> 32) if direction == "l" else (pair >> n))
    expect(run(f"shf.{direction}.{mode}.b32", a, b, c), want, "b32")


def test_funnel_shift_by_hand():
    a, b = np.uint32(0x89ABCDEF), np.uint32(0x01234567)
    assert int(run("shf.l.wrap.b32", a, b, np.uint32(8))) == 0x23456789
    assert int(run("shf.r.wrap.b32", a, b, np.uint32(8))) == 0x6789ABCD
    assert int(run("shf.l.clamp.b32", a, b, np.uint32(40))) == 0x89ABCDEF
    assert int(run("shf.r.clamp.b32", a, b, np.uint32(40))) == 0x01234567
    assert int(run("shf.l.wrap.b32", a, b, np.uint32(40))) == 0x23456789


# ------------------------------------------------------------------ lop3

def lop3_reference(lut: int, a: int, b: int, c: int) -> int:
    """Bit by bit: result bit = LUT bit at index (a_bit<<2 | b_bit<<1 | c_bit)."""
    d = 0
    for i in range(32):
        index = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1)
        d |= ((lut >> index) & 1) << i
    return d


def test_lop3_every_lut(rng):
    a, b, c = (operand(rng, "b32", 16) for _ in range(3))
    for lut in range(256):
        want = [lop3_reference(lut, x, y, z) for x, y, z in zip(ints(a), ints(b), ints(c))]
        expect(run("lop3.b32", a, b, c, np.uint32(lut)), want, "b32")


def test_lop3_manual_examples(rng):
    a, b, c = (operand(rng, "b32") for _ in range(3))
    x, y, z = ints(a), ints(b), ints(c)
    examples = {0x80: lambda p, q, r: p & q & r, 0xFE: lambda p, q, r: p | q | r,
                0x40: lambda p, q, r: p & q & ~r, 0x1A: lambda p, q, r: (p & q | r) ^ p}
    for lut, function in examples.items():
        want = [function(p, q, r) for p, q, r in zip(x, y, z)]
        expect(run("lop3.b32", a, b, c, np.uint32(lut)), want, "b32")


def test_lop3_with_predicate_output():
    a = np.array([0, 1, 0, 1], dtype=np.uint32)
    zero = np.zeros(4, dtype=np.uint32)
    q = np.array([False, False, True, True])
    d, p = run("lop3.or.b32", a, zero, zero, np.uint32(0xF0), q, n_dsts=2)   # F = a
    assert ints(d) == [0, 1, 0, 1] and p.tolist() == [False, True, True, True]
    d, p = run("lop3.and.b32", a, zero, zero, np.uint32(0xF0), q, n_dsts=2)
    assert p.tolist() == [False, False, False, True] and p.dtype == np.bool_


# ------------------------------------------------------------------ prmt

def mode_byte_index(mode: str, selector: int, position: int) -> int:
    """Which source byte result byte `position` takes, from the modes' descriptions."""
    s = selector & 3
    return {
        "f4e": (s + position) & 7,          # window sliding forward over {b, a}
        "b4e": (s - position) & 7,          # ... and backward
        "rc8": s,                           # one byte replicated
        "ecl": max(position, s),            # edge clamp left
        "ecr": min(position, s),            # edge clamp right
        "rc16": 2 * (s & 1) + (position & 1),   # one halfword replicated
    }[mode]


def prmt_reference(a: int, b: int, c: int, mode: str | None) -> int:
    source = (b << 32) | a
    d = 0
    for position in range(4):
        if mode is None:
            nibble = (c >> (4 * position)) & 0xF
            byte = (source >> (8 * (nibble & 7))) & 0xFF
            if nibble & 8:
                byte = 0xFF if byte & 0x80 else 0
        else:
            byte = (source >> (8 * mode_byte_index(mode, c, position))) & 0xFF
        d |= byte << (8 * position)
    return d


@pytest.mark.parametrize("mode", [None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"])
def test_prmt(rng, mode):
    a, b, c = (operand(rng, "b32") for _ in range(3))
    mnemonic = "prmt.b32" + (f".{mode}" if mode else "")
    want = [prmt_reference(x, y, z, mode) for x, y, z in zip(ints(a), ints(b), ints(c))]
    expect(run(mnemonic, a, b, c), want, "b32")


def test_prmt_by_hand():
    a, b = np.uint32(0x03020100), np.uint32(0x07060504)     # byte i holds i
    assert int(run("prmt.b32", a, b, np.uint32(0x3210))) == 0x03020100   # identity
    assert int(run("prmt.b32", a, b, np.uint32(0x0123))) == 0x00010203   # byte reverse
    assert int(run("prmt.b32", a, b, np.uint32(0x7654))) == 0x07060504   # all of b
    assert int(run("prmt.b32", np.uint32(0x80), b, np.uint32(0x0008))) == 0x808080FF  # sign fill
    assert int(run("prmt.b32.f4e", a, b, np.uint32(1))) == 0x04030201
    assert int(run("prmt.b32.b4e", a, b, np.uint32(0))) == 0x05060700
    assert int(run("prmt.b32.rc16", a, b, np.uint32(1))) == 0x03020302


# ------------------------------------------------------------------ rejections

@pytest.mark.parametrize("mnemonic,n_dsts,n_srcs", [
    ("shf.l.b32", 1, 3), ("shf.l.r.wrap.b32", 1, 3), ("shf.l.wrap.b64", 1, 3),
    ("prmt.b32.f4e.rc8", 1, 3), ("lop3.xor.b32", 2, 5), ("lop3.b64", 1, 4),
    ("shl.u32", 1, 2), ("and.s32", 1, 2), ("and.b32.b32", 1, 2), ("not.ftz.b32", 1, 1),
    ("cnot.pred", 1, 1),
])
def test_rejected_at_load(mnemonic, n_dsts, n_srcs):
    with pytest.raises(UnsupportedInstruction):
        lookup(parse_mnemonic(mnemonic, n_dsts, n_srcs))
