"""A kernel that compares NaNs runs at SASS level and writes what the PTX run writes.

setp.ne (ordered: false when an operand is NaN) becomes FSETP.NE, which gave
true on a NaN until the SASS executor and the PTX machine shared one compare
(semantics/compare.py); the launch then fell back to the PTX run's counters
with "the SASS run's memory differs from the PTX run's".
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
__device__ unsigned ptx_test(float a, float b, int which) {
    unsigned r;
    switch (which) {
    case 0: asm("{ .reg .pred p; setp.ne.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "f"(a), "f"(b)); break;
    case 1: asm("{ .reg .pred p; setp.neu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "f"(a), "f"(b)); break;
    case 2: asm("{ .reg .pred p; setp.eq.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "f"(a), "f"(b)); break;
    default: asm("{ .reg .pred p; setp.ltu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "f"(a), "f"(b));
    }
    return r;
}
extern "C" __global__ void nan_compare(const float* x, const float* y, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    unsigned bits = 0;
    for (int which = 0; which < 4; ++which) bits |= ptx_test(a, b, which) << which;
    bits |= (a != b ? 1u : 0u) << 4;             // C's != is unordered: setp.neu
    bits |= (a < b || a > b ? 1u : 0u) << 5;     // ordered not-equal
    out[i] = bits;
}
"""


def test_nan_compares_run_at_sass_level_with_ptx_rules():
    values = np.array([np.nan, -np.nan, 1.0, -1.0, 0.0, -0.0, np.inf, -np.inf, 1e-30], dtype=np.float32)
    a, b = (v.ravel() for v in np.meshgrid(values, values))
    n = len(a)
    out = cp.zeros(n, dtype=cp.uint32)
    kernel = cp.RawModule(code=SOURCE).get_function("nan_compare")
    with ReplayRequest() as request:
        kernel((1,), (128,), (cp.asarray(a), cp.asarray(b), out, np.int32(n)))
        (_, replay), = request._replays.values()
        outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    unordered = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        want = (((a != b) & ~unordered) * 1 | ((a != b) | unordered) * 2 | ((a == b) & ~unordered) * 4
                | ((a < b) | unordered) * 8 | ((a != b) | unordered) * 16 | ((a != b) & ~unordered) * 32)
    np.testing.assert_array_equal(out.get(), want.astype(np.uint32))
