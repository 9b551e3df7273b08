"""From sm_70 a `.sync` instruction waits for its named lanes to execute *a* `.sync` instruction of its
kind and mask, not the same one (the PTX ISA asks for the same instruction only of sm_6x), and the
collective then runs once for all of them, each lane with its own operands; collectives of other
kinds never meet. Half-warps that run a loop of collectives a different number of times meet at the
one after it: an H100 finishes such kernels (HeCBench's jaccard: parallel_prefix_sum over rows of 16
lanes; validation/warp_sync_masks/sites.cu and sites_mixed.cu), where warpsim deadlocked, then ran
each half apart. Against NumPy on random data and trip counts, the PTX machine on both tiers and the
SASS executor alone."""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp


def run_at(launch, engine="auto", level=None) -> None:
    """launch() on the PTX machine (level None) or with the SASS executor alone, under `engine`."""
    with cp.settings(engine=engine, sass_verify=False):
        if level is None:
            launch()
            return
        with cp.profile(level=level) as prof:
            launch()
        assert prof[0].level == "sass" and prof[0].execution == "sass"


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
    run_at(launch, engine, level)
    np.testing.assert_array_equal(out.get(), expected(x, trips))


MEETINGS = r"""
extern "C" __global__ void meet_sites(const int* v, const int* trips, unsigned* ballots, int* sums) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int n = trips[2 * (t >> 5) + (lane >= 16)];
    unsigned b = 0;
    int r = 0;
    for (int i = 0; i < n; ++i) {
        int x = v[t * 8 + i];
        b = b * 3u + __ballot_sync(0xffffffffu, x & 1);
        r = r * 5 + __reduce_add_sync(0xffffffffu, x);
    }
    int x = v[t * 8 + 7];
    b = b * 3u + __ballot_sync(0xffffffffu, x & 1);
    r = r * 5 + __reduce_add_sync(0xffffffffu, x);
    ballots[t] = b;
    sums[t] = r;
}
"""


def meetings_expected(v, trips):
    """The k-th collective of one half-warp runs with the k-th of the other (each half's loop, then
    the one after it), one collective for both, as the H100 runs sites.cu; past the shorter half's
    last, the longer half's run alone (the other half has exited)."""
    v = v.reshape(-1, 32, 8).astype(np.int64)
    ballots = np.zeros(v.shape[:2], dtype=np.uint64)
    sums = np.zeros(v.shape[:2], dtype=np.int64)
    for w in range(v.shape[0]):
        halves = [np.arange(16), np.arange(16, 32)]
        steps = [list(range(trips[2 * w + h])) + [7] for h in (0, 1)]
        for k in range(max(map(len, steps))):
            present = [(lanes, steps[h][k]) for h, lanes in enumerate(halves) if k < len(steps[h])]
            word = sum(int(1 << int(lane)) for lanes, i in present for lane in lanes if v[w, lane, i] & 1)
            total = sum(int(v[w, lane, i]) for lanes, i in present for lane in lanes)
            for lanes, _ in present:
                ballots[w, lanes] = (ballots[w, lanes] * 3 + word) & 0xFFFFFFFF
                sums[w, lanes] = sums[w, lanes] * 5 + total
    return ballots.ravel().astype(np.uint32), sums.ravel().astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("level", [None, "sass"])
@pytest.mark.filterwarnings("ignore:.*names lanes that have exited")
def test_ballots_and_reductions_met_at_other_sites_run_once_for_both_halves(engine, level):
    rng = np.random.default_rng(11)
    v = rng.integers(-50, 50, 4 * 32 * 8).astype(np.int32)
    trips = rng.integers(0, 7, 8).astype(np.int32)
    trips[:2] = [2, 1]                               # the H100's case (validation/warp_sync_masks)
    module = cp.RawModule(code=MEETINGS, options=("-arch=sm_90",))
    ballots, sums = cp.zeros(128, dtype=np.uint32), cp.zeros(128, dtype=np.int32)
    launch = lambda: module.get_function("meet_sites")((1,), (128,), (cp.asarray(v), cp.asarray(trips), ballots, sums))  # noqa: E731
    run_at(launch, engine, level)
    want_ballots, want_sums = meetings_expected(v, trips)
    np.testing.assert_array_equal(ballots.get(), want_ballots)
    np.testing.assert_array_equal(sums.get(), want_sums)


APART = r"""
extern "C" __global__ void ballot_then_reduce(unsigned* out, int n0, int n1) {
    int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
    unsigned b = 0;
    for (int i = 0; i < n; i++) b = b * 3 + __ballot_sync(0xffffffffu, (lane + i) & 1);
    out[lane] = b * 3 + __reduce_add_sync(0xffffffffu, lane + 100);
}
extern "C" __global__ void any_then_all(unsigned* out, int n0, int n1) {
    int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
    unsigned r = 0;
    for (int i = 0; i < n; i++) r = r * 3 + __any_sync(0xffffffffu, lane == 20 + i);
    out[lane] = r * 3 + __all_sync(0xffffffffu, lane != 3);
}
extern "C" __global__ void butterflies(const unsigned* v, unsigned* out, int n0, int n1) {
    int lane = threadIdx.x & 31, n = lane < 16 ? n0 : n1;
    unsigned x = v[lane];
    for (int i = 0; i < n; i++) x = x * 3 + __shfl_xor_sync(0xffffffffu, x, 16 >> i);
    out[lane] = x * 5 + __shfl_xor_sync(0xffffffffu, x, 1);
}
"""


@pytest.mark.parametrize("kernel", ["ballot_then_reduce", "any_then_all"])
@pytest.mark.parametrize("level", [None, "sass"])
def test_collectives_of_different_kinds_never_meet(kernel, level):
    """An H100 never finishes these (validation/warp_sync_masks/sites_mixed.cu): the half-warp left in
    the loop waits at a ballot (an __any_sync) for lanes that wait at a reduction (an __all_sync)."""
    module = cp.RawModule(code=APART, options=("-arch=sm_90",))
    out = cp.zeros(32, dtype=np.uint32)
    with pytest.raises(cp.LaunchError, match="deadlock") as caught:
        run_at(lambda: module.get_function(kernel)((1,), (32,), (out, np.int32(2), np.int32(1))), level=level)
    if level is None:
        assert "collectives of different kinds, which never meet" in str(caught.value)


def butterflies_expected(v, n0, n1):
    """Each half's k-th shuffle meets the other's k-th (loop, then after it), each lane reading its own
    instruction's source lane from the values of that meeting."""
    x = v.astype(np.uint64).copy()
    steps = [[("loop", 16 >> i) for i in range(n)] + [("after", 1)] for n in (n0, n1)]
    halves = [np.arange(16), np.arange(16, 32)]
    for k in range(max(map(len, steps))):
        new = x.copy()
        for h, lanes in enumerate(halves):
            if k < len(steps[h]):
                where, mask = steps[h][k]
                got = x[lanes ^ mask]
                new[lanes] = (x[lanes] * (3 if where == "loop" else 5) + got) & 0xFFFFFFFF
        x = new
    return x.astype(np.uint32)


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("level", [None, "sass"])
@pytest.mark.filterwarnings("ignore:.*names lanes that have exited")
def test_whole_warp_shuffles_met_at_other_sites_read_the_other_half(engine, level):
    v = np.random.default_rng(13).integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    module = cp.RawModule(code=APART, options=("-arch=sm_90",))
    out = cp.zeros(32, dtype=np.uint32)
    run_at(lambda: module.get_function("butterflies")((1,), (32,), (cp.asarray(v), out, np.int32(2), np.int32(1))),
           engine, level)
    np.testing.assert_array_equal(out.get(), butterflies_expected(v, 2, 1))
