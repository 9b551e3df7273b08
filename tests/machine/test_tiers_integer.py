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
