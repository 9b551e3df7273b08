"""From sm_70 a `.sync` instruction waits for its named lanes to execute *a* `.sync` instruction with
the same qualifiers and mask, not the same one (the PTX ISA asks for the same instruction only of
sm_6x). Half-warps that run a shuffle loop a different number of times meet, in the SASS, at the
WARPSYNC of the shuffle after the loop, or wait at the BSYNC after it while the others' WARPSYNCs
go on; an H100 finishes such a kernel (HeCBench's jaccard: parallel_prefix_sum over rows of 16
lanes), where warpsim deadlocked. Against NumPy on random data and trip counts, the PTX machine on
both tiers and the SASS executor alone."""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp

SOURCE = r"""
extern "C" __global__ void row_sums(const int* x, const int* trips, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int n = trips[i >> 4];                      // one trip count per 16-lane row
    int v = x[i];
    for (int k = 0; k < n; ++k) v += __shfl_sync(0xffffffffu, v, 15, 16);
    out[i] = __shfl_sync(0xffffffffu, v, lane & 15 ? 0 : 15, 16);
}
"""


def expected(x, trips):
    rows = x.reshape(-1, 16).astype(np.int64)
    out = np.empty_like(rows)
    for r, (row, n) in enumerate(zip(rows, trips)):
        v = row.copy()
        for _ in range(n):
            v = v + v[15]
        out[r] = np.where(np.arange(16) & 15, v[0], v[15])
    return out.reshape(-1).astype(np.int32)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("level", [None, "sass"])
def test_half_warps_with_different_trip_counts_meet_at_the_next_shuffle(engine, level):
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    trips = rng.integers(0, 6, 16).astype(np.int32)
    trips[:2] = [2, 1]                              # warp 0: the first half loops once more
    module = cp.RawModule(code=SOURCE, options=("-arch=sm_90",))
    out = cp.zeros(256, dtype=np.int32)
    launch = lambda: module.get_function("row_sums")((2,), (128,), (cp.asarray(x), cp.asarray(trips), out))  # noqa: E731
    with cp.settings(engine=engine, sass_verify=False):
        if level is None:
            launch()
        else:
            with cp.profile(level=level) as prof:
                launch()
            assert prof[0].level == "sass" and prof[0].execution == "sass"
    np.testing.assert_array_equal(out.get(), expected(x, trips))
