"""How a wave's warps leave the SM, as achieved occupancy shows it (timing/model.py, _drain_share and the
CTA end's skew): warps that wait to issue advance CTA by CTA, the oldest first."""

from dataclasses import replace

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import gpu_preset, model, predict

SOURCE = r"""
extern "C" __global__ void fma_chains(float* out, const float* in, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i], b = a + 1.f, c = a + 2.f, d = a + 3.f;
    #pragma unroll 4
    for (int k = 0; k < steps; ++k) {
        a = fmaf(a, 0.9999f, 0.01f); b = fmaf(b, 0.9998f, 0.02f);
        c = fmaf(c, 0.9997f, 0.03f); d = fmaf(d, 0.9996f, 0.04f);
    }
    out[i] = a + b + c + d;
}
"""

H200 = gpu_preset("h200")
SMS = H200.sms
THREADS_A_WAVE = SMS * 2048            # 64 warps on every SM


@pytest.fixture(scope="module")
def kernel():
    return ws.RawModule(code=SOURCE).get_function("fma_chains")


def _occupancy(kernel, block, waves=1, preset=H200):
    threads = THREADS_A_WAVE * waves
    x = ws.asarray(np.random.default_rng(5).random(threads, dtype=np.float32))
    out = ws.empty(threads, dtype=np.float32)
    params = pack_arguments(kernel.kernel_name, kernel.params, (out, x, np.int32(256)))
    return predict(kernel.loaded_module, kernel.kernel_name, (threads // block,), (block,), params, 0,
                   gpu=preset, max_ctas=4).achieved_occupancy


def test_fewer_larger_ctas_leave_the_wave_fuller(kernel):
    # 16 CTAs an SM finish one after another over most of the wave; 2 CTAs leave it half full at most
    by_block = {block: _occupancy(kernel, block) for block in (128, 512, 1024)}
    assert by_block[128] < by_block[512] - 3 < by_block[1024] - 6
    assert by_block[1024] < 90


def test_the_cta_spread_is_the_preset_s(kernel):
    slow = replace(H200, cta_drain_span=0.4)
    assert _occupancy(kernel, 128, preset=slow) > _occupancy(kernel, 128) + 5


def test_warps_of_an_issue_bound_cta_end_together(kernel):
    # four waves of 32-warp CTAs: the slot frees when its last warp ends, but the scheduler served
    # the CTA's warps alike, so few have left before it (the third batch: 90.7% on the H200)
    assert _occupancy(kernel, 1024, waves=4) > 85


DFMA_SOURCE = r"""
extern "C" __global__ void dfma_chains(float* out, const float* in, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double a = in[i], b = a + 1.0, c = a + 2.0, d = a + 3.0;
    #pragma unroll 4
    for (int k = 0; k < steps; ++k) {
        a = fma(a, 0.9992, 0.4); b = fma(b, 0.9992, 0.4);     // one pair of constants, kept in registers
        c = fma(c, 0.9992, 0.4); d = fma(d, 0.9992, 0.4);
    }
    out[i] = (float)(a + b + c + d);
}
"""


def test_ctas_queued_for_a_math_pipe_leave_one_after_another(kernel):
    # the same chains in double precision: the FP64 pipe, not the issue slot, sets the pace, and the
    # oldest CTA's warps take it first (the fifty-second batch: 57% at 8 CTAs an SM against 74% for FFMA)
    dfma = ws.RawModule(code=DFMA_SOURCE).get_function("dfma_chains")
    assert _occupancy(dfma, 256) < _occupancy(kernel, 256) - 5
    spread = replace(H200, cta_drain_span_pipe=0.5)
    assert _occupancy(dfma, 256, preset=spread) > _occupancy(dfma, 256) + 5


STREAM_SOURCE = r"""
extern "C" __global__ void stream(float* y, const float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = 2.0f * x[i] + 1.0f;
}
"""


def test_warps_streaming_many_trips_through_hbm_leave_together(monkeypatch):
    # one wave of 2 x 1024 threads an SM, 16 trips a thread: the spreads of the trips' waits at HBM
    # average out and the warps finish together (fifty-second batch, an H100: 90-96% for 15-248 trips)
    stream = ws.RawModule(code=STREAM_SOURCE).get_function("stream")

    def occupancy(trips):
        n = THREADS_A_WAVE * trips
        x = ws.asarray(np.random.default_rng(6).random(n, dtype=np.float32))
        y = ws.empty(n, dtype=np.float32)
        params = pack_arguments(stream.kernel_name, stream.params, (y, x, np.int32(n)))
        return predict(stream.loaded_module, stream.kernel_name, (2 * SMS,), (1024,), params, 0, gpu=H200,
                       max_ctas=4).achieved_occupancy
    together = occupancy(16)
    monkeypatch.setattr(model, "MEMORY_SPREAD_EXPONENT", 0.0)       # each trip's spread kept whole
    assert together > 88 and together > occupancy(16) + 5


TRIPS_SOURCE = r"""
extern "C" __global__ void trips(float* out, const int* per_warp) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = out[t];
    for (int k = 0; k < per_warp[t / 32] * 64; ++k) a = fmaf(a, 0.999f, 0.5f);
    out[t] = a;
}
"""


def test_warps_of_unequal_work_leave_as_they_finish():
    # one wave of 16 warps an SM, each warp's trips its own: the SM holds a warp for its own work's
    # share of the longest warp's time (set 2's trips drawn per warp: 13.9% active of 25% resident)
    kernel = ws.RawModule(code=TRIPS_SOURCE).get_function("trips")
    grid, block = 2 * SMS, 256
    warps = grid * block // 32

    def occupancy(per_warp):
        out = ws.asarray(np.random.default_rng(7).random(grid * block, dtype=np.float32))
        trips = ws.asarray(per_warp.astype(np.int32))
        params = pack_arguments(kernel.kernel_name, kernel.params, (out, trips))
        return predict(kernel.loaded_module, kernel.kernel_name, (grid,), (block,), params, 0, gpu=H200,
                       max_ctas=8).achieved_occupancy
    equal = occupancy(np.full(warps, 8))
    unequal = occupancy(np.random.default_rng(8).integers(1, 16, warps))
    assert equal > 22 and unequal < equal - 5
