"""Sharded launches on a 2-worker LocalCluster give one process's memory and counters, bit for bit.

Small grids with small batches (batch_threads) so every launch still has
several shards; each test compares against the same launch in one process.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import warpsim as cp
from warpsim.distributed.launch import ShardingWarning, ShardRaceWarning

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void divergent(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = a[i];
    for (int k = 0; k < (i & 7); ++k) v = v * 1.5f + 0.25f;
    out[i] = (i & 1) ? v : -v;
}
extern "C" __global__ void atomics(const int* v, unsigned* hist, int* lo, int* hi, unsigned* bits,
                                   unsigned* wrap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = v[i];
    atomicAdd(&hist[x & 15], 1u);
    atomicMin(lo, x - 500);
    atomicMax(hi, x);
    atomicAnd(&bits[0], ~(1u << (x & 31)));
    atomicOr(&bits[1], 1u << (x & 31));
    atomicXor(&bits[2], (unsigned)x * 2654435761u);
    atomicInc(&wrap[0], 6u);
    atomicDec(&wrap[1], 4u);
}
extern "C" __global__ void same_word(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i % 64] = i;
}
extern "C" __global__ void compact(const int* v, int* out, int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (v[i] & 1)) out[atomicAdd(count, 1)] = v[i];
}
extern "C" __global__ void float_sum(const float* a, float* sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, a[i]);
}
extern "C" __global__ void out_of_bounds(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i + (blockIdx.x == 40 ? (1 << 20) : 0)] = i;
}
"""

N = 64 * 128
GRID, BLOCK = (N // 128,), (128,)
SMALL_BATCHES = {"batch_threads": 1024,       # 8 CTAs a batch: 8 batches -> 4 shards
                 "sharding": "always"}        # launches this small gain nothing: shard them anyway


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def both(run):
    """run() in one process, then sharded; (one-process result, sharded result, the launch report)."""
    with cp.settings(**SMALL_BATCHES):
        alone = run()
    with cp.settings(workers=2, **SMALL_BATCHES):
        sharded = run()
    return alone, sharded


def test_divergent_kernel_matches_one_process(client, module):
    rng = np.random.default_rng(1)
    a = cp.asarray(rng.standard_normal(N).astype(np.float32))
    kernel = module.get_function("divergent")

    def run():
        out = cp.zeros(N, np.float32)
        kernel(GRID, BLOCK, (a, out, np.int32(N)))
        return out.get()

    alone, sharded = both(run)
    assert alone.tobytes() == sharded.tobytes()
    report = kernel.last_launch.sharding
    assert report.shards == 4 and report.path == "arrays"
    assert report.bytes_sent == 2 * N * 4 and N * 4 - 8 <= report.bytes_returned <= N * 4


def test_atomics_of_several_shards_merge_exactly(client, module):
    rng = np.random.default_rng(2)
    v = cp.asarray(rng.integers(0, 1000, N).astype(np.int32))
    kernel = module.get_function("atomics")

    def run():
        hist, lo, hi = cp.zeros(16, np.uint32), cp.full(1, 10**6, np.int32), cp.full(1, -5, np.int32)
        bits = cp.asarray(np.array([0xFFFFFFFF, 0, 12345], np.uint32))
        wrap = cp.asarray(np.array([3, 2], np.uint32))
        kernel(GRID, BLOCK, (v, hist, lo, hi, bits, wrap, np.int32(N)))
        return [x.get() for x in (hist, lo, hi, bits, wrap)]

    with warnings.catch_warnings():
        warnings.simplefilter("error", ShardingWarning)
        alone, sharded = both(run)
    for x, y in zip(alone, sharded):
        assert x.tobytes() == y.tobytes()
    report = kernel.last_launch.sharding
    assert report.shards == 4 and report.path == "watched" and "several atomic operations" in report.reason


def test_stores_of_two_shards_to_one_word_are_a_race_named_with_both_ctas(client, module):
    kernel = module.get_function("same_word")

    def run():
        out = cp.zeros(64, np.int32)
        kernel(GRID, BLOCK, (out, np.int32(N)))
        return out.get()

    with pytest.warns(ShardRaceWarning, match=r"block \(0, 0, 0\).* and .*block \((8|16|24|32), 0, 0\)"):
        alone, sharded = both(run)
    assert alone.tobytes() == sharded.tobytes()


@pytest.mark.parametrize("name", ["compact", "float_sum"])
def test_atomics_that_cannot_merge_rerun_in_one_process(client, module, name):
    rng = np.random.default_rng(3)
    kernel = module.get_function(name)
    if name == "compact":
        v = cp.asarray(rng.integers(0, 100, N).astype(np.int32))

        def run():
            out, count = cp.zeros(N, np.int32), cp.zeros(1, np.int32)
            kernel(GRID, BLOCK, (v, out, count, np.int32(N)))
            return out.get(), count.get()
    else:
        a = cp.asarray(rng.random(N).astype(np.float32))

        def run():
            total = cp.zeros(1, np.float32)
            kernel(GRID, BLOCK, (a, total, np.int32(N)))
            return (total.get(),)

    with pytest.warns(ShardingWarning, match="ran in one process: its atomics cannot be merged"):
        alone, sharded = both(run)
    for x, y in zip(alone, sharded):
        assert x.tobytes() == y.tobytes()
    report = kernel.last_launch.sharding
    assert report.path == "one process" and report.shards == 0
    assert ("old value" if name == "compact" else "rounding") in report.reason


def test_profile_of_a_sharded_launch_has_one_process_metrics(client, module):
    a = cp.asarray(np.arange(N, dtype=np.float32))
    kernel = module.get_function("divergent")

    def run():
        out = cp.zeros(N, np.float32)
        with cp.profile() as prof:
            kernel(GRID, BLOCK, (a, out, np.int32(N)))
        return prof[0]

    alone, sharded = both(run)
    assert sharded.metrics == alone.metrics
    assert (sharded.histogram == alone.histogram).all()
    assert sharded.activity.seen.sum() == alone.activity.seen.sum()


def test_a_fault_in_a_shard_is_raised_in_the_driver(client, module):
    kernel = module.get_function("out_of_bounds")
    out = cp.zeros(N, np.int32)
    with cp.settings(workers=2, **SMALL_BATCHES), pytest.raises(cp.MemoryFault, match=r"block: \(40, 0, 0\)"):
        kernel(GRID, BLOCK, (out, np.int32(N)))


def test_cooperative_launch_stays_in_one_process(client, module):
    a = cp.asarray(np.ones(N, np.float32))
    out = cp.zeros(N, np.float32)
    kernel = module.get_function("divergent")
    with cp.settings(workers=2, **SMALL_BATCHES):
        kernel(GRID, BLOCK, (a, out, np.int32(N)), enable_cooperative_groups=True)
    assert not hasattr(kernel.last_launch, "sharding")
