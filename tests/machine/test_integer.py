"""Integer family against references computed with Python's unbounded ints.

Random operands (fixed seed) always include the corner values of each type;
hand-picked cases pin down what PTX defines and NumPy does not (truncating
division, INT_MIN/-1, division by zero, high products, bit fields).
"""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.errors import UnsupportedInstruction
from warpsim.machine.isa import integer
from warpsim.machine.isa.evaluate import evaluate, parse_mnemonic
from warpsim.machine.isa.table import lookup
from warpsim.ptx.types import TYPES

ARITH = ["u16", "u32", "u64", "s16", "s32", "s64"]
CARRY = ["u32", "u64", "s32", "s64"]
N = 300


# ------------------------------------------------------------------ helpers

def wrap(value: int, type_name: str) -> int:
    """A Python int reduced to `type_name`'s range, two's complement."""
    t = TYPES[type_name]
    value &= (1 << t.bits) - 1
    if t.kind == "s" and value >> (t.bits - 1):
        value -= 1 << t.bits
    return value


def corners(type_name: str) -> list[int]:
    bits = TYPES[type_name].bits
    top = 1 << (bits - 1)
    return [0, 1, 2, 3, top - 1, top, top + 1, (1 << bits) - 1, (1 << bits) - 2, 0xFF, 0x7FFF]


def operand(rng, type_name: str, n: int = N, small: bool = False) -> np.ndarray:
    """Random values of a type: corners first, then full-range (or small) bits."""
    t = TYPES[type_name]
    if small:
        raw = rng.integers(0, 64, size=n, dtype=np.uint64) - np.uint64(32)
    else:
        raw = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    raw[:len(corners(type_name))] = np.array(
        [c & 0xFFFFFFFFFFFFFFFF for c in corners(type_name)], dtype=np.uint64)
    return raw.astype(t.storage).view(t.dtype)


def run(mnemonic, *sources, n_dsts=1):
    with np.errstate(all="ignore"):
        return evaluate(mnemonic, *sources, n_dsts=n_dsts)


def expect(result, expected, type_name):
    """Result has the destination dtype and equals the (wrapped) Python values."""
    t = TYPES[type_name]
    result = np.asarray(result)
    assert result.dtype == t.dtype, f"dtype {result.dtype}, want {t.dtype}"
    want = np.array([wrap(int(e), type_name) & ((1 << t.bits) - 1) for e in expected],
                    dtype=t.storage).view(t.dtype)
    np.testing.assert_array_equal(result, want)


def ints(values):
    return [int(v) for v in values]


def rejects(mnemonic, n_dsts=1, n_srcs=2):
    with pytest.raises(UnsupportedInstruction):
        lookup(parse_mnemonic(mnemonic, n_dsts, n_srcs))


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


# ------------------------------------------------------------------ add, sub, carry

@pytest.mark.parametrize("t", ARITH)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_sub_wrap(rng, op, t):
    a, b = operand(rng, t), operand(rng, t)
    result = run(f"{op}.{t}", a, b)
    sign = 1 if op == "add" else -1
    expect(result, [x + sign * y for x, y in zip(ints(a), ints(b))], t)


@pytest.mark.parametrize("op", ["add", "sub"])
def test_sat_s32_clamps(rng, op):
    a, b = operand(rng, "s32"), operand(rng, "s32")
    sign = 1 if op == "add" else -1
    want = [min(max(x + sign * y, -2**31), 2**31 - 1) for x, y in zip(ints(a), ints(b))]
    expect(run(f"{op}.sat.s32", a, b), want, "s32")
    assert run("add.sat.s32", np.int32(2**31 - 1), np.int32(1)) == 2**31 - 1
    assert run("sub.sat.s32", np.int32(-2**31), np.int32(1)) == -2**31


@pytest.mark.parametrize("t", CARRY)
def test_carry_chain_adds_wide_numbers(rng, t):
    """add.cc, addc.cc, addc.cc, addc: a 4-limb addition, as compilers emit it."""
    bits = TYPES[t].bits
    limbs_a = [operand(rng, t) for _ in range(4)]
    limbs_b = [operand(rng, t) for _ in range(4)]
    low, cc = run(f"add.cc.{t}", limbs_a[0], limbs_b[0], n_dsts=1)
    out = [low]
    for i in (1, 2):
        limb, cc = run(f"addc.cc.{t}", limbs_a[i], limbs_b[i], cc)
        out.append(limb)
    out.append(run(f"addc.{t}", limbs_a[3], limbs_b[3], cc))
    assert cc.dtype == np.uint32

    def whole(limbs, lane):
        return sum((int(limbs[i][lane]) & ((1 << bits) - 1)) << (bits * i) for i in range(4))
    for lane in range(N):
        total = (whole(limbs_a, lane) + whole(limbs_b, lane)) & ((1 << (4 * bits)) - 1)
        assert whole(out, lane) == total, lane


@pytest.mark.parametrize("t", CARRY)
def test_borrow_chain_subtracts_wide_numbers(rng, t):
    bits = TYPES[t].bits
    limbs_a = [operand(rng, t) for _ in range(3)]
    limbs_b = [operand(rng, t) for _ in range(3)]
    low, cc = run(f"sub.cc.{t}", limbs_a[0], limbs_b[0])
    middle, cc = run(f"subc.cc.{t}", limbs_a[1], limbs_b[1], cc)
    high = run(f"subc.{t}", limbs_a[2], limbs_b[2], cc)

    def whole(limbs, lane):
        return sum((int(limbs[i][lane]) & ((1 << bits) - 1)) << (bits * i) for i in range(3))
    for lane in range(N):
        difference = (whole(limbs_a, lane) - whole(limbs_b, lane)) & ((1 << (3 * bits)) - 1)
        assert whole([low, middle, high], lane) == difference, lane


def test_carry_flags_by_hand():
    assert ints(run("add.cc.u32", np.uint32(0xFFFFFFFF), np.uint32(1))) == [0, 1]
    assert ints(run("add.cc.s32", np.int32(-1), np.int32(1))) == [0, 1]      # carry of the bits
    assert ints(run("addc.cc.u32", np.uint32(0xFFFFFFFF), np.uint32(0), np.uint32(1))) == [0, 1]
    # After a subtraction CF is the adder's carry of a + ~b + 1: 1 means no borrow.
    assert ints(run("sub.cc.u32", np.uint32(0), np.uint32(1))) == [0xFFFFFFFF, 0]
    assert ints(run("sub.cc.u32", np.uint32(5), np.uint32(5))) == [0, 1]
    assert ints(run("subc.cc.u64", np.uint64(0), np.uint64(0), np.uint32(1))) == [0, 1]
    assert ints(run("subc.cc.u64", np.uint64(0), np.uint64(0), np.uint32(0))) == [2**64 - 1, 0]


def test_mixed_carry_chains_match_the_h200():
    """sub.cc then addc reads CF as a carry, and add.cc then subc as a not-borrow."""
    _, cc = run("sub.cc.u32", np.uint32(0), np.uint32(0))
    assert int(run("addc.u32", np.uint32(0), np.uint32(0), cc)) == 1
    _, cc = run("add.cc.u32", np.uint32(0), np.uint32(0))
    assert int(run("subc.u32", np.uint32(0), np.uint32(0), cc)) == 0xFFFFFFFF


# ------------------------------------------------------------------ mul, mad

@pytest.mark.parametrize("t", ARITH)
@pytest.mark.parametrize("mode", ["lo", "hi", "wide"])
def test_mul(rng, t, mode):
    if mode == "wide" and t.endswith("64"):
        pytest.skip("no mul.wide for 64-bit types")
    bits = TYPES[t].bits
    a, b = operand(rng, t), operand(rng, t)
    products = [x * y for x, y in zip(ints(a), ints(b))]
    result = run(f"mul.{mode}.{t}", a, b)
    if mode == "lo":
        expect(result, products, t)
    elif mode == "hi":
        expect(result, [p >> bits for p in products], t)
    else:
        expect(result, products, integer.WIDE_TYPE[t])


def test_mul_hi_of_extremes():
    top = np.uint64(2**64 - 1)
    assert int(run("mul.hi.u64", top, top)) == 2**64 - 2
    assert int(run("mul.hi.s64", np.int64(-2**63), np.int64(-2**63))) == 2**62
    assert int(run("mul.hi.s64", np.int64(-2**63), np.int64(2**63 - 1))) == -(2**62)
    assert int(run("mul.hi.s64", np.int64(-1), np.int64(1))) == -1
    assert int(run("mul.hi.u32", np.uint32(2**32 - 1), np.uint32(2**32 - 1))) == 2**32 - 2
    assert int(run("mul.hi.s32", np.int32(-2**31), np.int32(-2**31))) == 2**30


@pytest.mark.parametrize("t", ARITH)
@pytest.mark.parametrize("mode", ["lo", "hi", "wide"])
def test_mad(rng, t, mode):
    if mode == "wide" and t.endswith("64"):
        pytest.skip("no mad.wide for 64-bit types")
    bits = TYPES[t].bits
    c_type = integer.WIDE_TYPE[t] if mode == "wide" else t
    a, b, c = operand(rng, t), operand(rng, t), operand(rng, c_type)
    products = [x * y for x, y in zip(ints(a), ints(b))]
    if mode == "lo":
        parts = [wrap(p, t) for p in products]
    elif mode == "hi":
        parts = [wrap(p >> bits, t) for p in products]
    else:
        parts = products
    expect(run(f"mad.{mode}.{t}", a, b, c), [p + z for p, z in zip(parts, ints(c))], c_type)


def test_mad_hi_sat_s32(rng):
    a, b, c = operand(rng, "s32"), operand(rng, "s32"), operand(rng, "s32")
    want = [min(max(((x * y) >> 32) + z, -2**31), 2**31 - 1)
            for x, y, z in zip(ints(a), ints(b), ints(c))]
    expect(run("mad.hi.sat.s32", a, b, c), want, "s32")


def test_multiword_multiply_from_the_manual(rng):
    """[r3,r2,r1,r0] = [r5,r4] * [r7,r6], the manual's madc example, lane by lane."""
    r4, r5, r6, r7 = (operand(rng, "u32") for _ in range(4))
    r0 = run("mul.lo.u32", r4, r6)
    r1 = run("mul.hi.u32", r4, r6)
    r1, cc = run("mad.lo.cc.u32", r5, r6, r1, n_dsts=1)
    r2 = run("madc.hi.u32", r5, r6, np.uint32(0), cc)
    r1, cc = run("mad.lo.cc.u32", r4, r7, r1)
    r2, cc = run("madc.hi.cc.u32", r4, r7, r2, cc)
    r3 = run("addc.u32", np.uint32(0), np.uint32(0), cc)
    r2, cc = run("mad.lo.cc.u32", r5, r7, r2)
    r3 = run("madc.hi.u32", r5, r7, r3, cc)
    for lane in range(N):
        x = int(r4[lane]) | int(r5[lane]) << 32
        y = int(r6[lane]) | int(r7[lane]) << 32
        got = sum(int(r[lane]) << (32 * i) for i, r in enumerate((r0, r1, r2, r3)))
        assert got == x * y, lane


def test_mad_cc_64_carry():
    top = np.uint64(2**64 - 1)
    total, cc = run("mad.lo.cc.u64", top, np.uint64(1), np.uint64(1))
    assert (int(total), int(cc)) == (0, 1)
    total, cc = run("madc.lo.cc.s64", np.int64(1), np.int64(1), np.int64(-2), np.uint32(1))
    assert (int(total), int(cc)) == (0, 1)


@pytest.mark.parametrize("t", ["u32", "s32"])
def test_mul24_mad24(rng, t):
    a, b, c = operand(rng, t), operand(rng, t), operand(rng, t)

    def low24(x):
        x &= 0xFFFFFF
        return x - (1 << 24) if t == "s32" and x >> 23 else x
    products = [low24(x) * low24(y) for x, y in zip(ints(a), ints(b))]
    expect(run(f"mul24.lo.{t}", a, b), products, t)
    expect(run(f"mul24.hi.{t}", a, b), [p >> 16 for p in products], t)
    expect(run(f"mad24.lo.{t}", a, b, c), [p + z for p, z in zip(products, ints(c))], t)
    expect(run(f"mad24.hi.{t}", a, b, c),
           [wrap(p >> 16, t) + z for p, z in zip(products, ints(c))], t)
    if t == "s32":
        want = [min(max(wrap(p >> 16, t) + z, -2**31), 2**31 - 1)
                for p, z in zip(products, ints(c))]
        expect(run("mad24.hi.sat.s32", a, b, c), want, t)


def test_mul24_hi_takes_bits_47_to_16():
    assert int(run("mul24.hi.u32", np.uint32(0xFFFFFF), np.uint32(0xFFFFFF))) == 0xFFFFFE00
    assert int(run("mul24.lo.u32", np.uint32(0xFF000002), np.uint32(3))) == 6
    assert int(run("mul24.lo.s32", np.int32(0x00FFFFFF), np.int32(1))) == -1


# ------------------------------------------------------------------ div, rem

def truncating_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


@pytest.mark.parametrize("t", ARITH)
def test_div_rem_truncate_toward_zero(rng, t):
    a = operand(rng, t)
    b = np.concatenate([operand(rng, t, N // 2, small=True), operand(rng, t, N - N // 2)])
    b[b == 0] = 7
    quotients = [truncating_div(x, y) for x, y in zip(ints(a), ints(b))]
    expect(run(f"div.{t}", a, b), quotients, t)
    expect(run(f"rem.{t}", a, b), [x - q * y for x, q, y in zip(ints(a), quotients, ints(b))], t)


@pytest.mark.parametrize("t", ["s16", "s32", "s64"])
def test_int_min_divided_by_minus_one(t):
    dtype = TYPES[t].dtype
    int_min = dtype.type(-(1 << (TYPES[t].bits - 1)))
    assert run(f"div.{t}", np.array([int_min]), np.array([-1], dtype=dtype))[0] == int_min
    assert run(f"rem.{t}", np.array([int_min]), np.array([-1], dtype=dtype))[0] == 0


@pytest.mark.parametrize("t", ARITH)
def test_division_by_zero_gives_all_ones(rng, t):
    """As measured on an H200 for div and rem of every type (PTX leaves it undefined)."""
    a = operand(rng, t)
    zero = np.zeros_like(a)
    expect(run(f"div.{t}", a, zero), [-1] * N, t)
    expect(run(f"rem.{t}", a, zero), [-1] * N, t)


def test_division_by_zero_table_is_complete():
    assert set(integer.DIVIDE_BY_ZERO) == {(op, signed) for op in ("div", "rem")
                                           for signed in (False, True)}


# ------------------------------------------------------------------ min, max, abs, neg, sad

@pytest.mark.parametrize("t", ARITH)
def test_min_max_sad(rng, t):
    a, b, c = operand(rng, t), operand(rng, t), operand(rng, t)
    expect(run(f"min.{t}", a, b), [min(x, y) for x, y in zip(ints(a), ints(b))], t)
    expect(run(f"max.{t}", a, b), [max(x, y) for x, y in zip(ints(a), ints(b))], t)
    expect(run(f"sad.{t}", a, b, c),
           [abs(x - y) + z for x, y, z in zip(ints(a), ints(b), ints(c))], t)


def test_min_max_relu(rng):
    a, b = operand(rng, "s32"), operand(rng, "s32")
    expect(run("min.relu.s32", a, b), [max(min(x, y), 0) for x, y in zip(ints(a), ints(b))], "s32")
    expect(run("max.relu.s32", a, b), [max(x, y, 0) for x, y in zip(ints(a), ints(b))], "s32")


@pytest.mark.parametrize("t", ["s16", "s32", "s64"])
def test_abs_neg_wrap_at_int_min(rng, t):
    a = operand(rng, t)
    expect(run(f"abs.{t}", a), [abs(x) for x in ints(a)], t)
    expect(run(f"neg.{t}", a), [-x for x in ints(a)], t)
    int_min = -(1 << (TYPES[t].bits - 1))
    assert int(run(f"abs.{t}", TYPES[t].dtype.type(int_min))) == int_min


# ------------------------------------------------------------------ dp4a, dp2a

def lanes(word: int, width: int, signed: bool) -> list[int]:
    out = []
    for i in range(32 // width):
        v = (word >> (width * i)) & ((1 << width) - 1)
        out.append(v - (1 << width) if signed and v >> (width - 1) else v)
    return out


@pytest.mark.parametrize("a_type", ["u32", "s32"])
@pytest.mark.parametrize("b_type", ["u32", "s32"])
def test_dp4a_dp2a(rng, a_type, b_type):
    c_type = "u32" if a_type == b_type == "u32" else "s32"
    a, b, c = operand(rng, a_type), operand(rng, b_type), operand(rng, c_type)
    a_bits = [x & 0xFFFFFFFF for x in ints(a)]
    b_bits = [x & 0xFFFFFFFF for x in ints(b)]
    a_signed, b_signed = a_type == "s32", b_type == "s32"
    want = [z + sum(p * q for p, q in zip(lanes(x, 8, a_signed), lanes(y, 8, b_signed)))
            for x, y, z in zip(a_bits, b_bits, ints(c))]
    expect(run(f"dp4a.{a_type}.{b_type}", a, b, c), want, c_type)
    for mode, first in (("lo", 0), ("hi", 2)):
        want = [z + sum(p * q for p, q in zip(lanes(x, 16, a_type == "s32"),
                                              lanes(y, 8, b_type == "s32")[first:first + 2]))
                for x, y, z in zip(a_bits, b_bits, ints(c))]
        expect(run(f"dp2a.{mode}.{a_type}.{b_type}", a, b, c), want, c_type)


# ------------------------------------------------------------------ popc, clz, bfind, brev

@pytest.mark.parametrize("t", ["b32", "b64"])
def test_bit_counts(rng, t):
    bits = TYPES[t].bits
    a = operand(rng, t)
    unsigned = ints(a)
    expect(run(f"popc.{t}", a), [bin(x).count("1") for x in unsigned], "u32")
    expect(run(f"clz.{t}", a), [bits - x.bit_length() for x in unsigned], "u32")
    expect(run(f"brev.{t}", a), [int(f"{x:0{bits}b}"[::-1], 2) for x in unsigned], t)


@pytest.mark.parametrize("t", ["u32", "u64", "s32", "s64"])
def test_bfind(rng, t):
    bits = TYPES[t].bits
    a = operand(rng, t)
    found = [(~x if x < 0 else x).bit_length() - 1 for x in ints(a)]
    expect(run(f"bfind.{t}", a), [f & 0xFFFFFFFF for f in found], "u32")
    expect(run(f"bfind.shiftamt.{t}", a),
           [0xFFFFFFFF if f < 0 else bits - 1 - f for f in found], "u32")


def test_bfind_by_hand():
    assert int(run("bfind.u32", np.uint32(0))) == 0xFFFFFFFF
    assert int(run("bfind.s32", np.int32(-1))) == 0xFFFFFFFF
    assert int(run("bfind.s32", np.int32(-2**31))) == 30
    assert int(run("bfind.shiftamt.u64", np.uint64(1))) == 63


# ------------------------------------------------------------------ bfe, bfi

def field_mask(bits: int) -> int:
    """The manual restricts pos and len to 0..255; the H200's 64-bit forms use all 32 bits."""
    return 0xFF if bits == 32 else 0xFFFFFFFF


def bfe_reference(a: int, pos: int, length: int, bits: int, signed: bool) -> int:
    """The manual's bit loop, literally (but for the 64-bit operand mask)."""
    msb = bits - 1
    pos, length = pos & field_mask(bits), length & field_mask(bits)
    a &= (1 << bits) - 1
    sbit = 0 if (not signed or length == 0) else (a >> min(pos + length - 1, msb)) & 1
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if (i < length and pos + i <= msb) else sbit
        d |= bit << i
    return d


def bfi_reference(a: int, b: int, pos: int, length: int, bits: int) -> int:
    pos, length = pos & field_mask(bits), length & field_mask(bits)
    f = b & ((1 << bits) - 1)
    i = 0
    while i < length and pos + i <= bits - 1:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def field_operands(rng, n=N):
    """Positions and lengths around the interesting edges, with junk in the high bits."""
    edges = np.array([0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 255], dtype=np.uint32)
    def pick():
        return np.where(rng.random(n) < 0.5, rng.choice(edges, n),
                        rng.integers(0, 80, n).astype(np.uint32))
    pos, length = pick(), pick()
    junk = rng.integers(0, 2**24, n, dtype=np.uint32) << np.uint32(8)     # only bits 0..7 count
    return pos | np.where(rng.random(n) < 0.2, junk, 0).astype(np.uint32), length


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfe(rng, t):
    bits = TYPES[t].bits
    a = operand(rng, t)
    pos, length = field_operands(rng)
    want = [bfe_reference(x, int(p), int(n), bits, t.startswith("s"))
            for x, p, n in zip(ints(a), pos, length)]
    expect(run(f"bfe.{t}", a, pos, length), want, t)


def test_bfe_by_hand():
    assert int(run("bfe.s32", np.int32(0x80), np.uint32(4), np.uint32(4))) == -8
    assert int(run("bfe.u32", np.uint32(0x80), np.uint32(4), np.uint32(4))) == 8
    assert int(run("bfe.s32", np.int32(-2**31), np.uint32(40), np.uint32(3))) == -1
    assert int(run("bfe.s32", np.int32(-1), np.uint32(3), np.uint32(0))) == 0
    assert int(run("bfe.u32", np.uint32(0xF0), np.uint32(0x104), np.uint32(0x204))) == 0xF
    assert int(run("bfe.u64", np.uint64(0xF0), np.uint32(0x104), np.uint32(0x204))) == 0
    assert int(run("bfe.s64", np.int64(-7), np.uint32(256), np.uint32(256))) == -1
    assert int(run("bfi.b64", np.uint64(0xF), np.uint64(0), np.uint32(0x104), np.uint32(4))) == 0
    assert int(run("bfi.b32", np.uint32(0xF), np.uint32(0), np.uint32(0x104), np.uint32(4))) == 0xF0


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_bfi(rng, t):
    bits = TYPES[t].bits
    a, b = operand(rng, t), operand(rng, t)
    pos, length = field_operands(rng)
    want = [bfi_reference(x, y, int(p), int(n), bits)
            for x, y, p, n in zip(ints(a), ints(b), pos, length)]
    expect(run(f"bfi.{t}", a, b, pos, length), want, t)


# ------------------------------------------------------------------ scalars and rejections

def test_immediates_broadcast():
    result = run("add.s32", np.array([1, 2, 3], dtype=np.int32), np.int32(-1))
    assert result.dtype == np.int32 and ints(result) == [0, 1, 2]
    assert int(run("mul.wide.s32", np.int32(-3), np.int32(4))) == -12
    assert run("mul.wide.s32", np.int32(-3), np.int32(4)).dtype == np.int64


@pytest.mark.parametrize("mnemonic,n_dsts,n_srcs", [
    ("mul.s32", 1, 2), ("mul.wide.u64", 1, 2), ("mul.lo.hi.u32", 1, 2),
    ("add.sat.u32", 1, 2), ("add.sat.cc.s32", 1, 2), ("add.cc.u16", 1, 2),
    ("mad.sat.lo.s32", 1, 3), ("mad.wide.cc.u32", 1, 3), ("madc.u32", 1, 3),
    ("mul24.s32", 1, 2), ("mad24.lo.sat.s32", 1, 3), ("min.relu.u32", 1, 2),
    ("dp2a.u32.u32", 1, 3), ("dp4a.u32", 1, 3), ("bfind.b32", 1, 1), ("div.rn.s32", 1, 2),
    ("bfe.b32", 1, 3), ("add.b32", 1, 2), ("popc.u32", 1, 1), ("min.relu.s16", 1, 2),
    ("add.sat.u16x2", 1, 2), ("min.relu.u16x2", 1, 2),
])
def test_rejected_at_load(mnemonic, n_dsts, n_srcs):
    rejects(mnemonic, n_dsts, n_srcs)


def _fns_reference(mask, base, offset):
    """The PTX manual's pseudo-code for fns, one value at a time."""
    if offset == 0:
        return base if (mask >> base) & 1 else 0xFFFFFFFF
    pos, count, step = base, abs(offset) - 1, (1 if offset > 0 else -1)
    while 0 <= pos < 32:
        if (mask >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += step
    return 0xFFFFFFFF


def test_fns_matches_the_manuals_pseudocode():
    rng = np.random.default_rng(3)
    mask = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    mask[::7], mask[::11] = 0, 0xFFFFFFFF
    base = rng.integers(0, 32, 3000).astype(np.uint32)
    offset = rng.integers(-33, 34, 3000).astype(np.int32)
    with np.errstate(all="ignore"):
        got = evaluate("fns.b32", mask, base, offset)
    expect = [_fns_reference(int(m), int(b), int(o)) for m, b, o in zip(mask, base, offset)]
    assert got.tolist() == expect
