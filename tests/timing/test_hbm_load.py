"""HBM under load: what a read waits while the chip writes or reads near HBM's bandwidth, and how a
streaming CTA's warps leave."""

from dataclasses import replace

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import gpu_preset, model, predict

SOURCE = r"""
extern "C" __global__ void chain_copy(float* out, const float* in, int per, float scale) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x, stride = (long long)gridDim.x * blockDim.x;
    #pragma unroll 1
    for (int k = 0; k < per; ++k) out[i + k * stride] = in[i + k * stride] * scale;
}
extern "C" __global__ void chain_sum(float* out, const float* in, int per) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x, stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    #pragma unroll 1
    for (int k = 0; k < per; ++k) acc += in[i + k * stride];
    out[i] = acc;
}
extern "C" __global__ void strided_load(float* out, const float* in, int stride) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride] * 3.0f;
}
"""

QUIET = replace(gpu_preset("h200"), hbm_latency_under_writes=((0.0, 1.0), (0.0, 0.0)))
QUIET_READS = replace(gpu_preset("h200"), hbm_latency_under_reads=((0.0, 1.0), (0.0, 0.0)))


@pytest.fixture(scope="module")
def mod():
    return ws.RawModule(code=SOURCE)


def _predict(mod, name, grid, block, args, gpu="h200"):
    k = mod.get_function(name)
    return predict(k.loaded_module, k.kernel_name, (grid,), (block,), pack_arguments(k.kernel_name, k.params, args),
                   0, gpu=gpu, max_ctas=4)


def test_reads_from_hbm_wait_longer_beside_writes_to_it(mod):
    """A loop whose loads wait one at a time, writing what it reads: 96 MB out, beyond the L2."""
    per, grid, block = 24, 1056, 1024
    n = per * grid * block
    x = ws.asarray(np.random.default_rng(3).random(n, dtype=np.float32))
    out = ws.empty(n, dtype=np.float32)
    args = (out, x, np.int32(per), np.float32(2.0))
    loaded, quiet = (_predict(mod, "chain_copy", grid, block, args, gpu) for gpu in ("h200", QUIET))
    assert loaded.time_s > 1.05 * quiet.time_s
    # the sampled CTAs wrote what the kernel writes
    np.testing.assert_allclose(out.get()[:block], 2.0 * x.get()[:block])
    # a loop that reads 24 words for each it writes waits about as long with either table
    total = ws.zeros(grid * block, dtype=np.float32)
    sums = [_predict(mod, "chain_sum", grid, block, (total, x, np.int32(per)), gpu).time_s for gpu in ("h200", QUIET)]
    assert sums[0] == pytest.approx(sums[1], rel=0.02)


def test_reads_from_hbm_wait_longer_near_its_bandwidth(mod):
    """Loads waited one at a time by every thread of 8 CTAs of 1,024 an SM: the chip reads near HBM's
    bandwidth, and each read waits longer than at a low rate (the twenty-first batch's chase beside
    reads: +8 ns a hop at 1.9 TB/s, +148 at 4.3); one CTA an SM reads too slowly for more than 1%."""
    per, block = 16, 1024
    for grid, grows in ((1056, True), (132, False)):
        n = per * grid * block
        x = ws.asarray(np.random.default_rng(5).random(n, dtype=np.float32))
        total = ws.zeros(grid * block, dtype=np.float32)
        args = (total, x, np.int32(per))
        loaded, quiet = (_predict(mod, "chain_sum", grid, block, args, gpu).time_s for gpu in ("h200", QUIET_READS))
        if grows:
            assert loaded > 1.03 * quiet
        else:
            assert loaded == pytest.approx(quiet, rel=0.01)
        reference = x.get().reshape(per, grid * block)[:, :block].sum(axis=0)
        np.testing.assert_allclose(total.get()[:block], reference, rtol=1e-5)


def test_a_streaming_ctas_warps_leave_its_slot_one_after_another(mod):
    """Many waves of CTAs, one strided load each thread: the warps of a CTA leave the memory queue in
    the order they entered it, so the SM stays full (the H200: 77% achieved occupancy at stride 8)."""
    n, stride = 1 << 20, 8
    x = ws.asarray(np.random.default_rng(4).random(n * stride, dtype=np.float32))
    out = ws.empty(n, dtype=np.float32)
    t = _predict(mod, "strided_load", n // 256, 256, (out, x, np.int32(stride)))
    assert t.details["waves"] > 2
    assert t.achieved_occupancy > 65.0
    np.testing.assert_allclose(out.get()[:256], 3.0 * x.get()[: 256 * stride: stride], rtol=1e-6)


def test_hbm_rate_by_the_mix_of_reads_and_writes():
    """An even mix runs at the measured copy rate, reads alone faster, writes alone a little faster."""
    h200 = gpu_preset("h200")
    copy = h200.hbm_copy_gbps
    assert model.hbm_gbps(h200, 0.5) == pytest.approx(copy)
    assert model.hbm_gbps(h200, 0.0) == pytest.approx(copy * h200.hbm_read_over_copy)
    assert model.hbm_gbps(h200, 1.0) == pytest.approx(copy * model.HBM_WRITES_OVER_COPY)
    rates = [model.hbm_gbps(h200, f) for f in (0.0, 0.1, 0.3, 0.5)]
    assert rates == sorted(rates, reverse=True)


def test_a_launch_that_mostly_reads_streams_faster_than_a_copy(mod, monkeypatch):
    """A stride of 16 floats reads every line of 64 MB and writes 4 MB: HBM-bound at the read rate
    (the H200: 4.3 TB/s on set 1's strided_copy_16, which its copy rate would make 10% slower)."""
    n, stride = 1 << 20, 16
    x = ws.asarray(np.random.default_rng(6).random(n * stride, dtype=np.float32))
    out = ws.empty(n, dtype=np.float32)
    args = (out, x, np.int32(stride))
    t = _predict(mod, "strided_load", n // 256, 256, args)
    assert t.bottleneck == "dram"
    monkeypatch.setattr(model, "HBM_WRITES_OVER_COPY", 1.0)
    as_copy = _predict(mod, "strided_load", n // 256, 256, args, replace(gpu_preset("h200"),
                                                                                     hbm_read_over_copy=1.0))
    assert as_copy.time_s > 1.05 * t.time_s
    h100 = _predict(mod, "strided_load", n // 256, 256, args, "h100")
    h100_at_h200_ratio = _predict(mod, "strided_load", n // 256, 256, args, replace(
        gpu_preset("h100"), hbm_read_over_copy=gpu_preset("h200").hbm_read_over_copy))
    assert h100.time_s > 1.04 * h100_at_h200_ratio.time_s    # the H100's reads gain less over its copy


def test_the_l2_keeps_part_of_what_a_launch_writes(mod):
    """A copy leaves the last of what it wrote in the L2: none of it reaches HBM where it fits the L2's
    room for written lines, and beyond that all but that room does (the H100's room 22.4 MB, the
    H200's 31.4, reads taking 0.29 and 0.27 of a written byte's share of it)."""
    k = mod.get_function("chain_copy")

    def hbm_written(n, gpu):
        x = ws.asarray(np.random.default_rng(8).random(n, dtype=np.float32))
        out = ws.empty(n, dtype=np.float32)
        grid, block = 1056, 256
        params = pack_arguments(k.kernel_name, k.params, (out, x, np.int32(n // (grid * block)), np.float32(2)))
        t = predict(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0, gpu=gpu, max_ctas=4)
        return t.details["dram_bytes"] - 4 * n           # less what the copy reads
    small, large = 1056 * 256 * 8, 1056 * 256 * 62          # 8.7 MB and 67 MB each way
    assert hbm_written(small, "h200") == pytest.approx(0.0, abs=1e5)
    for gpu in ("h200", "h100"):
        p = gpu_preset(gpu)
        room = p.l2_dirty_share * p.l2_bytes / (1 + p.l2_dirty_read_weight)
        assert hbm_written(large, gpu) == pytest.approx(4 * large - room, rel=0.02)
    assert hbm_written(large, "h100") > 1.1 * hbm_written(large, "h200")


WRITES = r"""
extern "C" __global__ void fill(float* z, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) z[i] = (float)(i & 1023);
}
extern "C" __global__ void fill_words_apart(float* z, long long n) {   // four stores a thread, 16 bytes apart a lane
    long long i = 4 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
    for (int k = 0; k < 4; ++k) if (i + k < n) z[i + k] = (float)k;
}
"""


def test_the_l2_takes_a_written_byte_longer_than_a_read_one():
    """Writes the L2 holds run at 1.87x a read's L2 time (the fifty-fourth batch, an H100); lanes that
    write part of a sector each pay their sectors, as before."""
    k = ws.RawModule(code=WRITES)
    n = 1 << 22                                          # 16 MB: the L2 keeps it
    z = ws.empty(n, dtype=np.float32)

    def time_of(name, grid, cost):
        f = k.get_function(name)
        params = pack_arguments(f.kernel_name, f.params, (z, np.int64(n)))
        gpu = replace(gpu_preset("h100"), l2_store_byte_cost=cost)
        t = predict(f.loaded_module, f.kernel_name, (grid,), (256,), params, 0, gpu=gpu, max_ctas=4)
        return t.time_s, t.bottleneck
    at_cost, bound = time_of("fill", 132 * 16, gpu_preset("h100").l2_store_byte_cost)
    at_read_rate, _ = time_of("fill", 132 * 16, 1.0)
    assert bound == "l2" and at_cost > 1.3 * at_read_rate
    assert time_of("fill_words_apart", n // 1024, 1.87)[0] == pytest.approx(time_of("fill_words_apart", n // 1024, 1.0)[0])
