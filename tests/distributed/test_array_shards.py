"""Sharding by arrays: the footprint read from PTX, the cost model's decision and what it says,
and a launch with arrays in and out and a histogram of atomics on real Dask workers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import warpsim as cp
from warpsim.distributed import cost
from warpsim.distributed.array_shards import changes, plan_reason
from warpsim.distributed.array_shards import _mask as mask_of_change
from warpsim.distributed.footprint import kernel_footprint, resolve
from warpsim.distributed.launch import ShardingWarning

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void histogram(const float* x, float* y, unsigned* bins, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < iters; ++k) v = v * 0.75f + 0.25f * x[i];
    y[i] = v;
    atomicAdd(&bins[(unsigned)(v * 256.0f) & 255u], 1u);
}
extern "C" __global__ void extremes(const int* x, int* lo, unsigned* hi, unsigned* parity, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicMin(&lo[i & 3], x[i]);
    atomicMax(&hi[i & 1], (unsigned)x[i] * 2654435761u);
    atomicXor(parity, (unsigned)x[i]);
}
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void gather(const float* const* rows, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = rows[i & 1][i];
}
extern "C" __global__ void shifted(const float* x, float* y, unsigned long long offset, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i + offset];
}
extern "C" __global__ void last_writer(const int* x, int* slot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicExch(slot, x[i]);
}
"""

N = 64 * 128
GRID, BLOCK = (N // 128,), (128,)
SHARDED = {"batch_threads": 1024, "sharding": "always"}     # 8 batches -> 4 shards on 2 workers


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def footprint_of(module, name, args):
    kernel = module.get_function(name)
    loaded = kernel.loaded_module
    found, why = resolve(kernel_footprint(loaded.program, name), loaded.program, name,
                         bytes(kernel._pack(args)), loaded.device.memory)
    return found, why


# ---------------------------------------------------------------- the footprint, from PTX

def test_footprint_names_the_arrays_loaded_stored_and_updated(module):
    x, y, bins = cp.zeros(N, np.float32), cp.zeros(N, np.float32), cp.zeros(256, np.uint32)
    found, why = footprint_of(module, "histogram", (x, y, bins, np.int32(N), np.int32(4)))
    assert why == "" and len(found.loads) == len(found.stores) == len(found.atomics) == 1
    [(loads, n_x)], [(stores, n_y)] = found.loads, found.stores
    [((atomic, n_bins), uses)] = found.atomics.items()
    assert (n_x, n_y, n_bins) == (N * 4, N * 4, 1024) and len({loads, stores, atomic}) == 3
    assert uses == {("add", "u32", False)}
    assert plan_reason(found) == ("", "")


def test_a_64_bit_count_added_to_a_pointer_is_not_a_pointer(module):
    x, y = cp.zeros(2 * N, np.float32), cp.zeros(N, np.float32)
    found, why = footprint_of(module, "shifted", (x, y, np.uint64(N), np.int32(N)))
    assert why == "" and [n for _, n in found.loads] == [2 * N * 4] and [n for _, n in found.stores] == [N * 4]
    found, why = footprint_of(module, "shifted", (x, y, np.uint64(y.data.ptr), np.int32(N)))
    assert found is None and "different arrays" in why


def test_in_place_kernels_and_pointers_from_memory_need_watching(module):
    x, y = cp.zeros(N, np.float32), cp.zeros(N, np.float32)
    found, _ = footprint_of(module, "saxpy", (x, y, np.float32(2), np.int32(N)))
    kind, why = plan_reason(found)
    assert kind == "watch" and "also writes" in why
    rows = cp.asarray(np.array([x.data.ptr, y.data.ptr], np.uint64))
    found, why = footprint_of(module, "gather", (rows, y, np.int32(N)))
    assert found is None and "pointer of unknown origin" in why


def test_exchange_is_not_mergeable(module):
    x, slot = cp.zeros(N, np.int32), cp.zeros(1, np.int32)
    found, _ = footprint_of(module, "last_writer", (x, slot, np.int32(N)))
    assert plan_reason(found)[0] == "unmergeable"


@pytest.mark.parametrize("seed", range(4))
def test_a_shards_changes_rebuild_its_array(seed):
    rng = np.random.default_rng(seed)
    for _ in range(100):
        before = rng.integers(0, 3, int(rng.integers(1, 300))).astype(np.uint8)
        now = before.copy()
        if rng.random() < 0.2:
            now += 1                                   # every byte changed: no mask sent
        else:
            hits = rng.integers(0, len(now), int(rng.integers(0, 6)))
            now[hits] = (now[hits] + 1) % 3
        change = changes(now, before)
        diff = np.flatnonzero(now != before)
        if not len(diff):
            assert change is None
            continue
        first, data, _ = change
        assert (first, first + len(data)) == (diff[0], diff[-1] + 1)
        rebuilt = before.copy()
        np.copyto(rebuilt[first:first + len(data)], data, where=mask_of_change(change))
        assert rebuilt.tobytes() == now.tobytes()
        results = rng.integers(0, 256, len(now)).astype(np.uint8)    # the results file, others' bytes in it
        others = results.copy()
        placed = changes(now, before, into=results)
        assert placed[0] == first and placed[1] == len(data) and np.array_equal(placed[2], change[2])
        written = np.zeros(len(now), bool)
        written[first:first + len(data)] = mask_of_change(change)
        assert np.array_equal(results[written], now[written]) and np.array_equal(results[~written], others[~written])


# ---------------------------------------------------------------- the cost model

def test_estimate_learns_the_time_per_thread_and_the_contention(module):
    program = module.get_function("histogram").loaded_module.program
    fresh = cost.estimate(program, "histogram", 1 << 16, 2, 4, 1 << 20)
    assert not fresh.measured and fresh.gain < 1              # a small launch: fixed costs dominate
    cost.record_shards(program, "histogram", 1 << 20, [5.0, 5.0], 1.0)   # shards: 1M threads, 10 s
    shards_only = cost.estimate(program, "histogram", 1 << 24, 2, 4, 3 << 26)
    assert shards_only.calibrate and shards_only.one_process == pytest.approx(128.0)
    cost.record_one_process(program, "histogram", 1 << 20, 8.0)   # one process: 1M threads, 8 s
    timed = cost.estimate(program, "histogram", 1 << 24, 2, 4, 3 << 26)
    assert not timed.calibrate and timed.one_process == pytest.approx(128.0)
    assert timed.contention == pytest.approx(1.25) and 1.5 < timed.gain < 1.6
    cost.record_shards(program, "histogram", 1 << 20, [8.0, 8.0], 1.0)   # side by side 2x slower
    assert cost.estimate(program, "histogram", 1 << 24, 2, 4, 3 << 26).gain < 1
    program.__dict__.pop("_shard_seconds_per_thread")


# ---------------------------------------------------------------- on real workers

def histogram_launch(module, rng, settings):
    kernel = module.get_function("histogram")
    x = cp.asarray(rng.random(N, dtype=np.float32))
    y, bins = cp.zeros(N, np.float32), cp.zeros(256, np.uint32)
    with cp.settings(**settings):
        kernel(GRID, BLOCK, (x, y, bins, np.int32(N), np.int32(5)))
    return x.get(), y.get(), bins.get(), kernel.last_launch


@pytest.mark.parametrize("one_host", [True, False], ids=["shared-files", "scattered"])
def test_arrays_in_and_out_with_a_histogram_give_one_process_bytes(client, module, monkeypatch, one_host):
    """On one host the image and the stored bytes go through /dev/shm files; a remote cluster's
    shards get the arrays scattered and send their changes back (here forced on local workers)."""
    from warpsim.distributed import cluster
    monkeypatch.setattr(cluster, "on_this_host", lambda client: one_host)
    alone = histogram_launch(module, np.random.default_rng(4), {"batch_threads": 1024})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShardingWarning)
        sharded = histogram_launch(module, np.random.default_rng(4), dict(SHARDED, workers=2))
    x, y, bins, _ = alone
    assert y.tobytes() == sharded[1].tobytes() and bins.tobytes() == sharded[2].tobytes()
    v = x.copy()
    for _ in range(5):                                   # NumPy's reference (ftz does not matter here)
        v = (v * np.float32(0.75) + np.float32(0.25) * x).astype(np.float32)
    np.testing.assert_allclose(y, v, rtol=1e-6)
    assert bins.sum() == N
    report = sharded[3].sharding
    assert report.path == "arrays" and report.shards == 4
    assert report.bytes_returned <= N * 4 + 4 * 1024        # y's bytes and each shard's bins, not the heap


def test_min_max_xor_arrays_merge_exactly(client, module):
    rng = np.random.default_rng(5)
    x = cp.asarray(rng.integers(-10**6, 10**6, N).astype(np.int32))
    kernel = module.get_function("extremes")

    def run(settings):
        lo = cp.full(4, 2**31 - 1, np.int32)
        hi, parity = cp.asarray(np.array([7, 9], np.uint32)), cp.asarray(np.array([0xABCD], np.uint32))
        with cp.settings(**settings):
            kernel(GRID, BLOCK, (x, lo, hi, parity, np.int32(N)))
        return lo.get(), hi.get(), parity.get()

    alone, sharded = run({"batch_threads": 1024}), run(dict(SHARDED, workers=2))
    for a, b in zip(alone, sharded):
        assert a.tobytes() == b.tobytes()
    assert kernel.last_launch.sharding.path == "arrays"
    assert alone[0].tolist() == [x.get()[k::4].min() for k in range(4)]


def test_a_launch_that_cannot_gain_runs_in_one_process_and_says_so(client):
    module = cp.RawModule(code=SOURCE)        # its own: the cost model has timed no launch of it yet
    rng = np.random.default_rng(6)
    with pytest.warns(ShardingWarning, match=r"histogram: ran in one process: estimated gain of 2 workers x0\.\d\d"):
        _, y, bins, result = histogram_launch(module, rng, {"batch_threads": 1024, "workers": 2})
    report = result.sharding
    assert report.path == "one process" and report.shards == 0 and report.estimated_gain < cost.MIN_GAIN
    assert "estimated gain" in report.reason and bins.sum() == N
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShardingWarning)       # said once per kernel and reason
        histogram_launch(module, rng, {"batch_threads": 1024, "workers": 2})


def test_atomics_no_order_free_merge_gives_run_in_one_process(client, module):
    x = cp.asarray(np.arange(1, N + 1, dtype=np.int32))
    kernel = module.get_function("last_writer")
    slots = [cp.zeros(1, np.int32) for _ in range(2)]
    with cp.settings(**SHARDED, workers=2), \
            pytest.warns(ShardingWarning, match=r"atom\.exch\.b32 keeps one CTA's value"):
        kernel(GRID, BLOCK, (x, slots[0], np.int32(N)))
    assert kernel.last_launch.sharding.path == "one process"
    with cp.settings(batch_threads=1024):
        kernel(GRID, BLOCK, (x, slots[1], np.int32(N)))
    assert slots[0].get()[0] == slots[1].get()[0] != 0

