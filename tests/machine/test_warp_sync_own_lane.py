"""A `.sync` member mask that leaves out the executing lane (undefined in PTX; a GPU does not fault):
the launch runs on with a SyncWarning, and each lane's vote keeps the lanes its mask names, so
`__ballot_sync(lanemask_lt, p)` is pre-Volta's `__ballot(p) & lanemask_lt` (a binary scan's
exclusive count, HeCBench bscan), on random predicates against NumPy, on both tiers."""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.machine.device import SyncWarning

BELOW = r"""
__device__ unsigned lanemask_lt() { unsigned m; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); return m; }
extern "C" __global__ void below(const unsigned* x, unsigned* ballots, unsigned* counts, int* anys) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = lanemask_lt();
    bool p = x[i] & 1;
    unsigned b = __ballot_sync(mask, p);
    ballots[i] = b;
    counts[i] = __popc(b);
    anys[i] = __any_sync(mask, p);
}
"""


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_ballot_below_the_lane_is_the_exclusive_count(engine):
    x = np.random.default_rng(41).integers(0, 2**32, 512, dtype=np.uint32)
    function = cp.RawModule(code=BELOW).get_function("below")
    ballots, counts, anys = (cp.zeros(512, dtype=cp.uint32), cp.zeros(512, dtype=cp.uint32),
                             cp.zeros(512, dtype=cp.int32))
    with cp.settings(engine=engine), pytest.warns(SyncWarning, match="does not name the lane itself"):
        function((4,), (128,), (cp.asarray(x), ballots, counts, anys))
    lane = np.arange(512) % 32
    bits = (x & 1).astype(np.uint64).reshape(-1, 32) << np.arange(32, dtype=np.uint64)
    warp_ballot = np.repeat(np.bitwise_or.reduce(bits, axis=1), 32)
    below = (np.uint64(1) << lane.astype(np.uint64)) - np.uint64(1)
    expected = (warp_ballot & below).astype(np.uint32)
    np.testing.assert_array_equal(ballots.get(), expected)
    np.testing.assert_array_equal(counts.get(), [bin(int(v)).count("1") for v in expected])
    np.testing.assert_array_equal(anys.get(), (expected != 0).astype(np.int32))
