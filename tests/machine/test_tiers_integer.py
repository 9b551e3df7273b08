"""Integer division and conversions in the compiled tier against the NumPy tier and NumPy.

div/rem truncate toward zero and give all ones for a zero divisor (isa/integer.py's
DIVIDE_BY_ZERO: the tiers agree there, C leaves it undefined); cvt between 32- and 64-bit integers extends by the source's type or
keeps the low bits. Random operands with zeros, -1 and the most negative values mixed in.
"""

from __future__ import annotations

import numpy as np

import warpsim as cp
from warpsim.machine.compiled import report

DIVISIONS = r"""
extern "C" __global__ void divisions(const int* a, const int* b, const long long* c,
                                     const long long* d, int* out32, long long* out64) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out32[4 * i] = a[i] / b[i];
    out32[4 * i + 1] = (int)((unsigned)a[i] / (unsigned)b[i]);
    out32[4 * i + 2] = a[i] % b[i];
    out32[4 * i + 3] = (int)((unsigned)a[i] % (unsigned)b[i]);
    out64[6 * i] = c[i] / d[i];
    out64[6 * i + 1] = (long long)((unsigned long long)c[i] / (unsigned long long)d[i]);
    out64[6 * i + 2] = c[i] % d[i];
    out64[6 * i + 3] = (long long)((unsigned long long)c[i] % (unsigned long long)d[i]);
    out64[6 * i + 4] = (long long)a[i] * 3 + (long long)(unsigned)b[i];
    out64[6 * i + 5] = (long long)(int)(c[i] >> 7);
}
"""


def truncating(a, b, signed: bool, remainder: bool, bits: int):
    """C's / and % on Python ints: truncation toward zero (None for a zero divisor, which C leaves
    undefined: nvcc's 64-bit division may take a 32-bit path then; the tiers still agree)."""
    if b == 0:
        return None
    if not signed:
        a, b = a % (1 << bits), b % (1 << bits)
    quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return (a - quotient * b if remainder else quotient) % (1 << bits)


def with_edges(rng, dtype, n):
    """Random values with a quarter of 0, -1, 1 and the extremes, and a tenth of small ones."""
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    picks = rng.random(n)
    edges = rng.choice(np.array([0, -1, 1, info.min, info.max], dtype=dtype), n)
    values[picks < 0.25] = edges[picks < 0.25]
    values[picks > 0.9] = rng.integers(-40, 40, n, dtype=dtype)[picks > 0.9]
    return values


def signed32(value: int) -> int:
    value %= 2**32
    return value - 2**32 if value >= 2**31 else value


def test_divisions_and_conversions_are_bit_exact_on_both_tiers():
    divisions = cp.RawModule(code=DIVISIONS).get_function("divisions")
    rng = np.random.default_rng(21)
    n = 2048
    a, b = with_edges(rng, np.int32, n), with_edges(rng, np.int32, n)
    c, d = with_edges(rng, np.int64, n), with_edges(rng, np.int64, n)
    results = {}
    for engine in ("numpy", "compiled"):
        out32, out64 = cp.zeros(4 * n, cp.int32), cp.zeros(6 * n, cp.int64)
        with cp.settings(engine=engine):
            divisions((n // 256,), (256,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), cp.asarray(d),
                                            out32, out64))
        results[engine] = (out32.get().view(np.uint32), out64.get().view(np.uint64))
    for x, y in zip(results["numpy"], results["compiled"]):
        np.testing.assert_array_equal(x, y)
    out32, out64 = results["compiled"]
    for k in range(n):
        want32 = [truncating(int(a[k]), int(b[k]), s, r, 32) for s, r in
                  ((True, False), (False, False), (True, True), (False, True))]
        want64 = [truncating(int(c[k]), int(d[k]), s, r, 64) for s, r in
                  ((True, False), (False, False), (True, True), (False, True))]
        want64 += [(int(a[k]) * 3 + int(b[k]) % 2**32) % 2**64, signed32(int(c[k]) >> 7) % 2**64]
        got32, got64 = out32[4 * k: 4 * k + 4].tolist(), out64[6 * k: 6 * k + 6].tolist()
        assert [g for g, w in zip(got32, want32) if w is not None] == [w for w in want32 if w is not None], k
        assert [g for g, w in zip(got64, want64) if w is not None] == [w for w in want64 if w is not None], k
    assert (b == 0).any() and (d == 0).any()
    rows = report(divisions.loaded_module.program)
    assert all(r["why_numpy"] is None for r in rows), rows


BIT_FIELDS = r"""
.version 8.5
.target sm_90
.address_size 64
.visible .entry fields(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 wide, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u64 %rd4, [wide];
    ld.param.u64 %rd5, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd6, %r1, 4;
    mul.wide.u32 %rd7, %r1, 8;
    mul.wide.u32 %rd8, %r1, 20;
    add.s64 %rd9, %rd1, %rd6;
    add.s64 %rd10, %rd2, %rd6;
    add.s64 %rd11, %rd3, %rd6;
    add.s64 %rd12, %rd4, %rd7;
    add.s64 %rd13, %rd5, %rd8;
    ld.global.u32 %r2, [%rd9];
    ld.global.u32 %r3, [%rd10];
    ld.global.u32 %r4, [%rd11];
    ld.global.u64 %rd14, [%rd12];
    bfe.u32 %r5, %r2, %r3, %r4;
    bfe.s32 %r6, %r2, %r3, %r4;
    neg.s32 %r7, %r2;
    popc.b32 %r8, %r2;
    popc.b64 %r9, %rd14;
    st.global.u32 [%rd13], %r5;
    st.global.u32 [%rd13+4], %r6;
    st.global.u32 [%rd13+8], %r7;
    st.global.u32 [%rd13+12], %r8;
    st.global.u32 [%rd13+16], %r9;
    ret;
}
"""


def test_bit_field_extract_negate_and_popcount_are_bit_exact_on_both_tiers():
    """bfe.u32/.s32 (positions and lengths past the word, 0 and over 255 mixed in), neg.s32 of the
    most negative value, popc of 32- and 64-bit words: the same bits on both tiers, equal to NumPy's,
    and the block runs compiled."""
    function = cp.RawModule(ptx=BIT_FIELDS).get_function("fields")
    rng = np.random.default_rng(21)
    n = 256
    a = with_edges(rng, np.int32, n).view(np.uint32)
    b = rng.choice(np.array([0, 1, 5, 17, 31, 32, 40, 255, 256, 260], np.uint32), n)
    c = rng.choice(np.array([0, 1, 3, 8, 16, 31, 32, 33, 255, 257], np.uint32), n)
    wide = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    results = {}
    for engine in ("numpy", "compiled"):
        out = cp.zeros((n, 5), cp.uint32)
        with cp.settings(engine=engine):
            function((1,), (n,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), cp.asarray(wide), out))
        results[engine] = out.get()
    np.testing.assert_array_equal(results["numpy"], results["compiled"])
    pos, length = (b & 0xFF).astype(np.int64), (c & 0xFF).astype(np.int64)
    inside = np.clip(np.minimum(length, 32 - pos), 0, 32)
    field = np.where(pos < 32, a.astype(np.uint64) >> np.minimum(pos, 63).astype(np.uint64), 0) & \
        ((np.uint64(1) << inside.astype(np.uint64)) - np.uint64(1))
    sign_at = np.clip(np.minimum(pos + length - 1, 31), 0, 31).astype(np.uint64)
    negative = ((a.astype(np.uint64) >> sign_at) & np.uint64(1)).astype(bool) & (length != 0)
    signed = np.where(negative, field | ~((np.uint64(1) << inside.astype(np.uint64)) - np.uint64(1)), field)
    np.testing.assert_array_equal(results["compiled"][:, 0], field.astype(np.uint32))
    np.testing.assert_array_equal(results["compiled"][:, 1], (signed & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    np.testing.assert_array_equal(results["compiled"][:, 2], (-a.view(np.int32).astype(np.int64)).astype(np.uint32))
    np.testing.assert_array_equal(results["compiled"][:, 3], [bin(int(v)).count("1") for v in a])
    np.testing.assert_array_equal(results["compiled"][:, 4], [bin(int(v)).count("1") for v in wide])
    rows = report(function.loaded_module.program)
    assert rows and all(r["tier"] == "compiled" for r in rows), rows
