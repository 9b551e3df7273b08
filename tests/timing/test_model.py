"""The timing model's behaviour: latency hiding, occupancy, waves, divergence, bandwidth, profiles."""

import numpy as np
import pytest

import warpsim as ws
from warpsim.timing import predict, predict_execution, record_execution

SOURCE = r"""
extern "C" __global__ void gather(float* out, const float* in, int per) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    float acc = 0.f;
    #pragma unroll 1
    for (int k = 0; k < per; ++k) acc += in[t + k * stride];
    out[t] = acc;
}
extern "C" __global__ void copy(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
__device__ float loop_a(float x, int n) {
    #pragma unroll 1
    for (int i = 0; i < n; ++i) x = fmaf(x, 0.999f, 0.5f);
    return x;
}
__device__ float loop_b(float x, int n) {
    #pragma unroll 1
    for (int i = 0; i < n; ++i) x = (x + 0.25f) * 0.998f;
    return x;
}
extern "C" __global__ void on_lane(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if (threadIdx.x % 2 == 0) v = loop_a(v, n); else v = loop_b(v, n);
    out[i] = v;
}
extern "C" __global__ void on_warp(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if ((threadIdx.x / 32) % 2 == 0) v = loop_a(v, n); else v = loop_b(v, n);
    out[i] = v;
}
extern "C" __global__ void wave(float* out, const float* in, int n) {
    extern __shared__ float pad[];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = loop_a(in[t], n);
    pad[threadIdx.x] = a;
    __syncthreads();
    out[t] = pad[threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def mod():
    return ws.RawModule(code=SOURCE)


def _launch_args(mod, name, grid, block, args):
    from warpsim.api.raw import pack_arguments
    k = mod.get_function(name)
    return k.loaded_module, k.kernel_name, pack_arguments(k.kernel_name, k.params, args)


def _predict(mod, name, grid, block, args, shared=0, **kw):
    loaded, kernel, params = _launch_args(mod, name, grid, block, args)
    return predict(loaded, kernel, (grid,), (block,), params, shared, **kw)


def test_more_warps_hide_latency(mod):
    total = 132 * 1024 * 4
    x = ws.asarray(np.ones(total, np.float32))
    times = []
    for block in (32, 256, 1024):
        per = total // (132 * block)
        out = ws.zeros(132 * block, dtype=np.float32)
        times.append(_predict(mod, "gather", 132, block, (out, x, np.int32(per))).time_s)
    assert times[0] > 3 * times[1] > 3 * times[2] * 0.9


def test_register_limited_kernel_has_lower_occupancy(mod):
    x = ws.asarray(np.ones(132 * 8 * 128 * 2, np.float32))
    out = ws.zeros(132 * 8 * 128, dtype=np.float32)
    loaded, kernel, params = _launch_args(mod, "gather", 0, 0, (out, x, np.int32(2)))
    ex = record_execution(loaded, kernel, (132 * 8,), (128,), params)
    few = predict_execution(ex, "h200", registers=32)
    many = predict_execution(ex, "h200", registers=200)
    assert many.details["limited_by"] == "registers"
    assert many.achieved_occupancy < few.achieved_occupancy / 2
    assert many.time_s > few.time_s


def test_a_lone_last_wave(mod):
    x = ws.asarray(np.ones(265 * 256, np.float32))
    out = ws.zeros(265 * 256, dtype=np.float32)
    smem = 120 * 1024
    t = {g: _predict(mod, "wave", g, 256, (out, x, np.int32(256)), smem).cycles for g in (132, 133, 264)}
    assert t[133] == pytest.approx(2 * t[132], rel=0.15)
    assert t[264] == pytest.approx(t[133], rel=0.05)


def test_divergent_kernel_takes_about_twice_its_uniform_twin(mod):
    x = ws.asarray(np.ones(264 * 256, np.float32))
    out = ws.zeros(264 * 256, dtype=np.float32)
    lane = _predict(mod, "on_lane", 264, 256, (out, x, np.int32(256))).time_s
    warp = _predict(mod, "on_warp", 264, 256, (out, x, np.int32(256))).time_s
    assert 1.6 < lane / warp < 2.2


def test_bandwidth_bound_copy_scales_with_bytes(mod):
    times = []
    for n in (1 << 24, 1 << 25):       # 2^23 floats sit where CTA turnover and HBM take about as long
        x = ws.asarray(np.ones(n, np.float32))
        out = ws.zeros(n, dtype=np.float32)
        t = _predict(mod, "copy", n // 256, 256, (out, x, np.int32(n)))
        times.append(t.time_s)
        assert t.bottleneck in ("dram", "launch")
    assert 1.7 < times[1] / times[0] < 2.1


def test_profile_carries_timing(mod):
    n = 1 << 12
    x = ws.asarray(np.ones(n, np.float32))
    out = ws.zeros(n, dtype=np.float32)
    k = mod.get_function("copy")
    with ws.settings(gpu="h200"), ws.profile(level="ptx") as prof:
        k((n // 256,), (256,), (out, x, np.int32(n)))
    t = prof.launches[0].timing
    assert t is not None and t.time_s > 0 and t.source == "ptx"
    assert "long_scoreboard" in t.stalls
    assert "predicted on h200" in prof.launches[0].render()
    with ws.profile(level="ptx") as prof:
        k((n // 256,), (256,), (out, x, np.int32(n)))
    assert prof.launches[0].timing is None


SKEW_SOURCE = r"""
extern "C" __global__ void skewed(float* out, int iters, int pattern) {
    int w = threadIdx.x >> 5;
    bool heavy = pattern == 0 ? (w & 3) == 0 : w < (blockDim.x >> 7);
    int n = heavy ? 4 * iters : iters;
    float a = threadIdx.x * 1e-3f, b = a + 1.f, c = a + 2.f, d = a + 3.f;
    #pragma unroll 1
    for (int j = 0; j < n; ++j) {
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f); c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}
"""


def test_warps_sharing_a_scheduler_set_the_pace():
    """Warps w, w + 4, ... of a CTA share a sub-partition (the H200's %warpid): the same extra work on
    warps 0, 4, 8, ... is slower than on warps 0..7, which spread over all four."""
    mod = ws.RawModule(code=SKEW_SOURCE)
    out = ws.zeros(132 * 1024, dtype=np.float32)
    mod4, first = (_predict(mod, "skewed", 132, 1024, (out, np.int32(40), np.int32(p)), max_ctas=1)
                   for p in (0, 1))
    assert mod4.details["instructions"] == pytest.approx(first.details["instructions"], rel=0.01)
    assert mod4.time_s > 1.2 * first.time_s
    # the one sampled CTA (the first) ran for real, with pattern 1 last: check its outputs
    t = np.arange(1024)
    n = np.where(t // 32 < 8, 160, 40)
    acc = np.zeros(1024)
    for k in range(4):
        v = t * 1e-3 + k
        for j in range(160):
            v = np.where(j < n, v * 0.999 + 0.5, v)
        acc += v
    np.testing.assert_allclose(out.get()[:1024], acc, rtol=1e-4)


GLOBAL_TABLE = r"""
__device__ float scale_table[4] = {1.f, 2.f, 3.f, 4.f};
extern "C" __global__ void scaled(float* out, const float* in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * scale_table[i & 3];
}
"""


def test_a_kernel_reading_a_device_variable_is_timed_from_its_sass_run():
    """ptxas loads a __device__ variable's address from constant bank 4: the sampled SASS run must
    fill it with the variable's device address, not fall back to PTX counts."""
    mod = ws.RawModule(code=GLOBAL_TABLE)
    x = ws.asarray(np.random.default_rng(4).random(256 * 8, dtype=np.float32))
    out = ws.zeros_like(x)
    timing = _predict(mod, "scaled", 8, 256, (out, x), gpu="h200", max_ctas=2)
    assert timing.source == "sass", timing.details


def test_warm_l2_reads_a_footprint_the_l2_holds_and_not_one_it_does_not(mod):
    """A launch that follows itself finds its data in L2 when the L2 holds all of it; a footprint
    beyond the L2 (60 MB on the H200), scanned again in order, finds none (LRU evicts each line
    before its next use)."""
    times = {}
    for n in (1 << 20, 1 << 24):               # 8 MB and 128 MB of reads and writes
        x = ws.asarray(np.random.default_rng(n).random(n, dtype=np.float32))
        out = ws.zeros(n, dtype=np.float32)
        args = (out, x, np.int32(n))
        times[n] = [_predict(mod, "copy", n // 256, 256, args, warm_l2=warm) for warm in (False, True)]
    (cold_small, warm_small), (cold_big, warm_big) = times[1 << 20], times[1 << 24]
    assert warm_small.details["dram_bytes"] < 0.1 * cold_small.details["dram_bytes"]
    assert warm_small.time_s < cold_small.time_s
    assert warm_big.time_s == pytest.approx(cold_big.time_s)
    assert cold_big.details["footprint_bytes"] >= 2 * (1 << 26)


TAKING_TURNS = r"""
template <bool meet> __device__ void turns(float* out, int rounds) {
    float v = threadIdx.x;
    int half = threadIdx.x / 128;                      // warps 0-3, then warps 4-7
    for (int r = 0; r < rounds; ++r) {
        if (half == 0) {
            #pragma unroll 1
            for (int k = 0; k < 64; ++k) v = fmaf(v, 0.999f, 0.5f);
        }
        if (meet) __syncthreads();
        if (half == 1) {
            #pragma unroll 1
            for (int k = 0; k < 64; ++k) v = fmaf(v, 0.998f, 0.25f);
        }
        if (meet) __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
extern "C" __global__ void apart(float* out, int rounds) { turns<false>(out, rounds); }
extern "C" __global__ void in_turn(float* out, int rounds) { turns<true>(out, rounds); }
"""


def test_warps_that_take_turns_between_barriers_do_not_overlap():
    """Two halves of a CTA each run a dependent FMA chain in turn, a __syncthreads between the turns:
    the chains run one after the other (model._between_barriers): 1.50x the time of the same CTA with
    no barriers, where the halves' chains overlap (1.03x without the rule; 2 us of each time is the
    launch's fixed overhead)."""
    from warpsim.api.raw import pack_arguments
    module = ws.RawModule(code=TAKING_TURNS)
    out = ws.zeros(132 * 256, dtype=np.float32)
    times = {}
    for name in ("apart", "in_turn"):
        kernel = module.get_function(name)
        params = pack_arguments(kernel.kernel_name, kernel.params, (out, np.int32(20)))
        times[name] = predict(kernel.loaded_module, kernel.kernel_name, (132,), (256,), params, 0, gpu="h200").time_s
    assert times["in_turn"] > 1.35 * times["apart"], times


def test_issue_active_counts_the_sub_partitions_that_hold_a_warp(mod):
    """ncu's issue active is over active cycles: an SM of one warp keeps one sub-partition busy, not a
    quarter of four. A latency-bound loop issues as often in each warp's sub-partition with 1 or 4
    warps an SM."""
    per, sms = 64, 132
    rates = []
    for block in (32, 128):
        n = sms * block * per
        x = ws.asarray(np.random.default_rng(5).random(n, dtype=np.float32))
        out = ws.empty(sms * block, dtype=np.float32)
        rates.append(_predict(mod, "gather", sms, block, (out, x, np.int32(per)), gpu="h200").issue_active)
    assert rates[0] == pytest.approx(rates[1], rel=0.25)


IDLE_HALF = r"""
extern "C" __global__ void idle_half(float* out, int n, int mode) {
    int w = threadIdx.x / 32;
    float x = threadIdx.x * 1e-3f, y = x + 1.f;
    if (mode == 0 && w >= 4) return;            // warps 4-7 leave at once (ptxas: @!P0 EXIT P1)
    int trips = w < 4 ? n : 0;                  // mode 1: they store and leave
    for (int k = 0; k < trips; ++k) { x = fmaf(x, 1.0001f, 0.5f); y = fmaf(y, 0.9999f, 0.25f); }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}
"""


def test_warps_that_leave_at_once_hold_no_slot_and_add_no_stall():
    """Half a CTA's warps have (next to) nothing to do: they do not queue, so the stalls per issue are
    the working warps' (one selected warp an issue, as Nsight Compute counts), and they are resident
    only while they live, so the SM holds the working warps alone. Leaving by an early return or after
    a store of nothing computed gives the same time."""
    f = ws.RawModule(code=IDLE_HALF).get_function("idle_half")
    out = ws.zeros(132 * 256, np.float32)

    def timed(mode):
        from warpsim.api.raw import pack_arguments
        params = pack_arguments(f.kernel_name, f.params, (out, np.int32(4000), np.int32(mode)))
        return predict(f.loaded_module, f.kernel_name, (132,), (256,), params, gpu="h200", max_ctas=2)

    early, stored = timed(0), timed(1)
    assert early.time_s == pytest.approx(stored.time_s, rel=0.02)
    for t in (early, stored):
        assert t.stalls["selected"] == pytest.approx(1.0, rel=0.02)
        assert t.achieved_occupancy == pytest.approx(100.0 * 4 / 64, rel=0.1)     # 4 working warps of 64


TRIPS = r"""
extern "C" __global__ void trips(float* out, const float* in, const int* lengths) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    #pragma unroll 1
    for (int k = 0; k < lengths[i]; ++k) v = fmaf(v, 0.9993f, 0.5f) * 0.9999f;
    out[i] = v;
}
"""


def test_the_grids_longest_warp_outlasts_the_samples_where_trip_counts_are_random():
    """Per-thread trip counts drawn at random (geometric): a few sampled CTAs hold 48 of the grid's
    2,112 warps, whose longest runs about 1.3x the sample's (set 2's var_trip_geometric, the H200 20%
    slower than the sample said). Trips drawn per warp from a bounded range, or all alike, are no
    random tail: no change."""
    from warpsim.api.raw import pack_arguments
    from warpsim.timing.model import KernelCosts, longest_warp_beyond_sample
    from warpsim.timing.presets import gpu_preset
    preset = gpu_preset("h200")
    k = ws.RawModule(code=TRIPS).get_function("trips")
    grid, block, mean = 264, 256, 200
    n = grid * block
    rng = np.random.default_rng(7)
    x = ws.asarray(rng.random(n, dtype=np.float32))
    out = ws.empty(n, dtype=np.float32)
    beyond, seen = {}, {}
    for name, lengths in (("geometric", np.minimum(rng.geometric(1.0 / mean, n), 20 * mean)),
                          ("by_warp", np.repeat(rng.integers(1, 2 * mean, n // 32), 32)),
                          ("alike", np.full(n, mean))):
        device_lengths = ws.asarray(lengths.astype(np.int32))
        params = pack_arguments(k.kernel_name, k.params, (out, x, device_lengths))
        ex = record_execution(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0)
        costs = KernelCosts(ex, preset, preset.sms, preset.barrier_cycles)
        beyond[name] = longest_warp_beyond_sample(costs, grid * block // 32)
        seen[name] = lengths.reshape(-1, 32).max(axis=1)
    assert beyond["by_warp"] == beyond["alike"] == 1.0
    sampled_max = seen["geometric"].reshape(grid, -1)[ex.sampled_ctas].max()     # (the same CTAs each time)
    assert 1.1 < beyond["geometric"] < 1.8
    assert beyond["geometric"] == pytest.approx(seen["geometric"].max() / sampled_max, rel=0.3)
