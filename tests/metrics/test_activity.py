"""ActivityTrace's planes are made at their first use: a trace that records nothing makes none, and
reads as the zeros it always held; one that records gives the lane counts of a NumPy reference."""

from __future__ import annotations

import numpy as np

import warpsim as cp
from warpsim.metrics.activity import ActivityTrace


def test_a_trace_that_records_nothing_reads_as_zeros_and_trims_to_nothing():
    trace = ActivityTrace(max_warps=4, max_issues=8)
    assert trace._planes is None
    trace.trim()
    assert trace.active.shape == trace.ptx_line.shape == trace.source_line.shape == (0, 0)
    fresh = ActivityTrace(max_warps=4, max_issues=8)
    assert fresh.active.shape == (4, 8) and not fresh.active.any() and not fresh.source_line.any()


def test_a_recorded_trace_counts_the_active_lanes_of_each_issue():
    rng = np.random.default_rng(3)
    keep = rng.integers(1, 33, 4)                       # live lanes of each of four warps
    source = r"""
    extern "C" __global__ void some_lanes(const int* keep, int* out) {
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane < keep[warp]) out[threadIdx.x] = lane * 3;
    }"""
    out = cp.zeros(128, dtype=np.int32)
    with cp.profile() as prof:
        cp.RawModule(code=source).get_function("some_lanes")((1,), (128,), (cp.asarray(keep.astype(np.int32)), out))
    trace = prof.launches[0].activity
    active = trace.active[:4, :int(trace.issued[:4].min())]
    assert active.shape[0] == 4 and active.shape[1] > 2
    assert (active.max(axis=1) == 32).all()            # before the branch every lane issues
    for warp in range(4):                              # after it, the store's lanes
        assert keep[warp] in active[warp].tolist() or keep[warp] == 32
    expected = np.where(np.arange(128) % 32 < np.repeat(keep, 32), np.arange(128) % 32 * 3, 0)
    np.testing.assert_array_equal(out.get(), expected)
