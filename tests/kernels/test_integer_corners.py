"""Integer corner cases against per-element Python references written from
the PTX ISA's definitions: INT_MIN / -1 and x / 0 (undefined in C++: the
kernel must run; the values are recorded), shifts past the register width,
high multiplies, popc/clz/brev/ffs, byte permutes, funnel shifts, bfe/bfi."""

import numpy as np
import pytest

from kernel_corpus import assert_all_written, cp, kernel, rng, sentinel

pytestmark = pytest.mark.nvrtc
SOURCE = "integer_corners.cu"
N = 1024
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def signed(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def bit(value, k):
    return (value >> k) & 1


def c_div(a, b):
    if b == 0:
        return 0                                      # undefined; never compared
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def brev(value, bits):
    return int(format(value & ((1 << bits) - 1), f"0{bits}b")[::-1], 2)


def bfe(a, pos, length, is_signed, bits=32):
    msb = bits - 1
    if length == 0:
        return 0
    sign = bit(a, min(pos + length - 1, msb)) if is_signed else 0
    out = 0
    for k in range(bits):
        out |= (bit(a, pos + k) if k < length and pos + k <= msb else sign) << k
    return out


def bfi(a, b, pos, length, bits=32):
    out = b & ((1 << bits) - 1)
    k = 0
    while k < length and pos + k <= bits - 1:
        out = (out & ~(1 << (pos + k))) | (bit(a, k) << (pos + k))
        k += 1
    return out


def prmt(a, b, selector):
    source = (a & M32) | ((b & M32) << 32)
    out = 0
    for k in range(4):
        nibble = (selector >> (4 * k)) & 0xF
        byte = (source >> (8 * (nibble & 7))) & 0xFF
        if nibble & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * k)
    return out


def funnel(lo, hi, shift, left):
    wide = (lo & M32) | ((hi & M32) << 32)
    return ((wide << shift) >> 32) & M32 if left else (wide >> shift) & M32


def ffs(value, bits):
    value &= (1 << bits) - 1
    return (value & -value).bit_length()


def int32_reference(a, b, s):
    ua, ub = a & M32, b & M32
    pos, length, shift = s & 0x3F, (s >> 8) & 0x3F, s % 48
    return [
        c_div(a, b), a - c_div(a, b) * b, ua // max(ub, 1), ua % max(ub, 1),
        (a * b) >> 32, (ua * ub) >> 32, bin(ua).count("1"), 32 - ua.bit_length(), brev(ua, 32),
        prmt(ua, ub, s & 0x7777), funnel(ua, ub, s & 31, True), funnel(ua, ub, s & 31, False),
        funnel(ua, ub, min(s, 32), True), funnel(ua, ub, min(s, 32), False),
        (ua << shift) & M32 if shift < 32 else 0, ua >> shift if shift < 32 else 0, a >> min(shift, 31),
        bfe(ua, pos, length, False), bfe(a & M32, pos, length, True), bfi(ua, ub, pos, length),
        prmt(ua, ub, s), ffs(a, 32), (a + b) >> 1, (a + b + 1) >> 1, (ua + ub) >> 1,
        abs(a), -a, abs(a - b) + s,
    ]


def int32_inputs():
    g = rng(32)
    a = g.integers(-(1 << 31), 1 << 31, N)
    b = g.integers(-(1 << 31), 1 << 31, N)
    b[::5] = g.integers(-300, 300, len(b[::5]))        # small divisors: real quotients
    special = [(-(1 << 31), -1), (-(1 << 31), 1), ((1 << 31) - 1, -1), (7, 0), (-7, 0), (0, 0),
               (-(1 << 31), 0), (0, 5), (-1, -1), (1, (1 << 31) - 1), (-(1 << 31), -(1 << 31))]
    for k, (x, y) in enumerate(special):
        a[k], b[k] = x, y
    s = g.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    s[:64] = np.arange(64) | (np.arange(64) << 8)     # every shift and position near the width
    return a.astype(np.int32), b.astype(np.int32), s


def undefined(a, b):
    """Lanes whose C++ division is undefined: by zero, or INT_MIN / -1."""
    return (b == 0) | ((a == np.iinfo(a.dtype).min) & (b == -1))


def test_int32_corners(record_property):
    a, b, s = int32_inputs()
    rows = 28
    out = sentinel((rows, N), np.int32)
    kernel(SOURCE, "int32_corners")((N // 128,), (128,), (cp.asarray(a), cp.asarray(b), cp.asarray(s), out, np.int32(N)))
    got = out.get().view(np.uint32)
    assert_all_written(got)
    bad = undefined(a, b)
    unsigned_by_zero = b == 0
    for i in range(N):
        expected = int32_reference(int(a[i]), int(b[i]), int(s[i]))
        for row, value in enumerate(expected):
            if row in (0, 1) and bad[i] or row in (2, 3) and unsigned_by_zero[i]:
                continue
            assert got[row, i] == value & M32, f"row {row} element {i}: a={a[i]} b={b[i]} s={s[i]:#x}"
    # Undefined in C++, defined by the machine: record what it gave.
    corners = {f"{a[i]} / {b[i]}": [hex(v) for v in got[:4, i]] for i in np.flatnonzero(bad)[:8]}
    record_property("int32_division_corners", corners)


def int64_reference(a, b, shift):
    ua, ub = a & M64, b & M64
    return [
        (a * b) >> 64, (ua * ub) >> 64, bin(ua).count("1"), 64 - ua.bit_length(), brev(ua, 64),
        c_div(a, b), a - c_div(a, b) * b, ua // max(ub, 1),
        (ua << shift) & M64 if shift < 64 else 0, a >> min(shift, 63), ffs(a, 64), a * b,
    ]


def test_int64_corners(record_property):
    g = rng(64)
    a = g.integers(-(1 << 63), (1 << 63) - 1, N, dtype=np.int64)
    b = g.integers(-(1 << 63), (1 << 63) - 1, N, dtype=np.int64)
    b[::4] = g.integers(-(1 << 33), 1 << 33, len(b[::4]))
    a[:6] = [-(1 << 63), 5, 0, -(1 << 63), (1 << 63) - 1, 0]
    b[:6] = [-1, 0, 0, 1, -1, 17]
    s = g.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    s[6:102] = np.arange(96)
    out = sentinel((12, N), np.int64)
    kernel(SOURCE, "int64_corners")((N // 128,), (128,), (cp.asarray(a), cp.asarray(b), cp.asarray(s), out, np.int32(N)))
    got = out.get().view(np.uint64)
    assert_all_written(got)
    bad = undefined(a, b)
    for i in range(N):
        expected = int64_reference(int(a[i]), int(b[i]), int(s[i]) % 96)
        for row, value in enumerate(expected):
            if row in (5, 6) and bad[i] or row == 7 and b[i] == 0:
                continue
            assert got[row, i] == value & M64, f"row {row} element {i}: a={a[i]} b={b[i]} s={s[i]}"
    record_property("int64_division_corners",
                    {f"{a[i]} / {b[i]}": [hex(v) for v in got[5:8, i]] for i in np.flatnonzero(bad)[:6]})
