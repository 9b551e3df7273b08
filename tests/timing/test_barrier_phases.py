"""CTAs that meet at a barrier: how the warps' memory waits spread their arrivals, and how co-resident
CTAs that start together share the SM's shared-memory pipe after it (timing/model.py)."""

from dataclasses import replace

import numpy as np
import pytest

import warpsim as ws
from warpsim.api.raw import pack_arguments
from warpsim.timing import gpu_preset, model, predict

SOURCE = r"""
template <int PAD>
__device__ void tile_transpose(float* out, const float* in, int n) {
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += blockDim.y) tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += blockDim.y) out[(long long)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void transpose_conflicted(float* out, const float* in, int n) { tile_transpose<0>(out, in, n); }
extern "C" __global__ void transpose_padded(float* out, const float* in, int n) { tile_transpose<1>(out, in, n); }
extern "C" __global__ void tiles_in_a_loop(float* out, const float* in, int n, int rounds) {
    __shared__ float tile[32][32];
    float acc = 0.f;
    for (int r = 0; r < rounds; ++r) {
        tile[threadIdx.y][threadIdx.x] = in[(blockIdx.x * rounds + r) * 1024 + threadIdx.y * 32 + threadIdx.x];
        __syncthreads();
        acc += tile[threadIdx.x][threadIdx.y];
        __syncthreads();
    }
    out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = acc;
}
template <bool EVERY_ROUND>
__device__ void fma_chains(float* out, const float* in, int rounds) {
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = s[(threadIdx.x + k) % 256];
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], 1.0001f, 0.5f);
        if (EVERY_ROUND) __syncthreads();
    }
    float t = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k) t += a[k];
    out[blockIdx.x * 256 + threadIdx.x] = t;
}
extern "C" __global__ void adds_between_barriers(unsigned* out, const unsigned* in, int rounds) {
    unsigned u[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) u[c] = in[(blockIdx.x * blockDim.x + threadIdx.x) * 8 + c];
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int i = 0; i < 16; ++i) {
#pragma unroll
            for (int c = 0; c < 8; ++c) u[c] += u[(c + 1) & 7];
        }
        __syncthreads();
    }
    unsigned t = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c) t ^= u[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = t;
}
extern "C" __global__ void chains_after_one_barrier(float* out, const float* in, int rounds) { fma_chains<false>(out, in, rounds); }
extern "C" __global__ void chains_between_barriers(float* out, const float* in, int rounds) { fma_chains<true>(out, in, rounds); }
"""

QUIET = replace(gpu_preset("h200"), hbm_latency_under_writes=((0.0, 1.0), (0.0, 0.0)))
N = 4096


@pytest.fixture(scope="module")
def mod():
    return ws.RawModule(code=SOURCE)


@pytest.fixture(scope="module")
def matrix():
    x = np.random.default_rng(11).random(N * N, dtype=np.float32)
    return x, ws.asarray(x), ws.empty(N * N, dtype=np.float32)


def _predict(mod, name, grid, block, args, gpu="h200"):
    k = mod.get_function(name)
    return predict(k.loaded_module, k.kernel_name, grid, block, pack_arguments(k.kernel_name, k.params, args),
                   0, gpu=gpu, max_ctas=4)


def test_hbm_waits_beside_writes_spread_the_warps_at_a_barrier(mod, matrix):
    """A transpose writes as much as it reads: its loads wait longer than alone, and the last warp of a
    CTA reaches the barrier that much later than the mean one (the H200's barrier stalls at 32 x 32
    threads: 10.4 an issue, where the wait of unloaded queues gave 3.3)."""
    x, d_x, d_out = matrix
    args = (d_out, d_x, np.int32(N))
    loaded, quiet = (_predict(mod, "transpose_padded", (N // 32, N // 32), (32, 32), args, gpu) for gpu in ("h200", QUIET))
    assert loaded.stalls["barrier"] > 1.5 * quiet.stalls["barrier"]
    assert loaded.time_s > 1.1 * quiet.time_s
    tile = d_out.get().reshape(N, N)[:32, :32]           # the sampled CTAs ran: the first tile is there
    np.testing.assert_array_equal(tile, x.reshape(N, N)[:32, :32].T)


def test_ctas_that_start_together_share_the_shared_pipe_after_their_barrier(mod, matrix, monkeypatch):
    """Two 1024-thread CTAs an SM, wave after wave, each warp one 32-way conflicted read after the
    barrier: the two CTAs reach it together, so each wave waits for both CTAs' 2 x 1024 wavefronts
    after its loads; where the stretches are not taken as aligned, the queueing network overlaps the
    wavefronts with the loads."""
    _, d_x, d_out = matrix
    args = (d_out, d_x, np.int32(N))
    aligned = _predict(mod, "transpose_conflicted", (N // 32, N // 32), (32, 32), args)
    monkeypatch.setattr(model, "ALIGNED_BARRIERS", 0)
    apart = _predict(mod, "transpose_conflicted", (N // 32, N // 32), (32, 32), args)
    assert aligned.time_s > 1.1 * apart.time_s
    h200 = gpu_preset("h200")
    per_sm = (N // 32) ** 2 / h200.sms
    assert aligned.time_s * h200.kernel_clock_mhz * 1e6 >= per_sm * 32 * 32     # every wavefront, one a clock


def test_ctas_that_meet_at_every_round_are_not_taken_as_aligned(mod, monkeypatch):
    """A loop of barriers lets co-resident CTAs drift apart, so one's loads overlap another's reads:
    the rule leaves such kernels to the queueing network."""
    rounds, ctas = 16, 4096
    x = ws.asarray(np.random.default_rng(12).random(ctas * rounds * 1024, dtype=np.float32))
    out = ws.empty(ctas * 1024, dtype=np.float32)
    args = (out, x, np.int32(ctas), np.int32(rounds))
    looped = _predict(mod, "tiles_in_a_loop", (ctas,), (32, 32), args)
    monkeypatch.setattr(model, "ALIGNED_BARRIERS", 0)
    assert _predict(mod, "tiles_in_a_loop", (ctas,), (32, 32), args).time_s == pytest.approx(looped.time_s, rel=1e-12)


def test_latency_bound_ctas_are_not_taken_as_in_step(mod, matrix, monkeypatch):
    """Padded tiles' CTAs wait on their loads, not on the shared pipe, and drift apart (the twenty-third
    batch: 0.4 tiles at one tile a CTA): the rule leaves them to the queueing network."""
    _, d_x, d_out = matrix
    args = (d_out, d_x, np.int32(N))
    padded = _predict(mod, "transpose_padded", (N // 32, N // 32), (32, 32), args)
    monkeypatch.setattr(model, "ALIGNED_BARRIERS", 0)
    apart = _predict(mod, "transpose_padded", (N // 32, N // 32), (32, 32), args)
    assert padded.time_s == pytest.approx(apart.time_s, rel=1e-12)


ROUNDS = r"""
extern "C" __global__ void barrier_rounds(float* out, int rounds) {
    float x = threadIdx.x * 1e-3f;
    for (int k = 0; k < rounds; ++k) {
        x = fmaf(x, 0.999f, 0.5f);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
"""


def test_an_sm_serves_every_warps_barrier_arrival_whatever_its_cta():
    """64 warps an SM meeting at __syncthreads every round: as 8 CTAs of 8 warps or 2 of 32, the SM's
    barrier unit takes their 64 arrivals one after another (the twenty-seventh batch: 136-141 cycles a
    round either way); charged to each CTA alone, the 8 small CTAs would overlap theirs."""
    k = ws.RawModule(code=ROUNDS).get_function("barrier_rounds")
    out = ws.zeros(132 * 1024 * 2, dtype=np.float32)
    rounds = 512
    params = pack_arguments(k.kernel_name, k.params, (out, np.int32(rounds)))
    h200 = gpu_preset("h200")
    apart = replace(h200, barrier_arrival_cycles=0.0)

    def cycles(ctas_per_sm, warps, preset):
        return predict(k.loaded_module, k.kernel_name, (132 * ctas_per_sm,), (32 * warps,), params, 0, gpu=preset,
                       max_ctas=2).cycles

    small, large = cycles(8, 8, h200), cycles(2, 32, h200)
    assert small == pytest.approx(large, rel=0.1)
    assert min(small, large) >= 64 * rounds * h200.barrier_arrival_cycles
    assert cycles(8, 8, apart) < 0.8 * small


def test_queueing_after_the_last_barrier_does_not_spread_the_warps_at_it(mod):
    """Eight CTAs of eight warps an SM queue to issue their FMA chains. Where a __syncthreads ends every
    round, the queueing of each round spreads the CTA's warps at the next one (barrier stalls); where
    the only barrier comes before the loop, none of the loop's queueing is a wait at a barrier, so it
    stays the scheduler's (not_selected), at the same time."""
    ctas = 132 * 8
    x = np.random.default_rng(5).random(ctas * 256, dtype=np.float32)
    d_x, d_out = ws.asarray(x), ws.empty(ctas * 256, dtype=np.float32)
    args = (d_out, d_x, np.int32(64))
    once, every = (_predict(mod, name, (ctas,), (256,), args)
                   for name in ("chains_after_one_barrier", "chains_between_barriers"))
    assert every.top_stall == "barrier"
    assert once.top_stall == "not_selected"
    assert once.stalls["barrier"] < 0.25 * every.stalls["barrier"]
    assert once.time_s == pytest.approx(every.time_s, rel=0.15)


def test_a_stretch_between_barriers_is_held_by_its_busiest_unit_not_by_the_sum(mod):
    """ptxas splits a warp's independent adds over the ALU (IADD3) and FMA (IMAD.IADD) pipes, each half
    rate: one warp a sub-partition issues them about a cycle apart (the twenty-ninth batch's adds,
    70.9% issue active on the H200), not two (each instruction's busiest unit summed)."""
    n = 132 * 128
    d_x = ws.asarray(np.random.default_rng(7).integers(0, 2**32, n * 8, dtype=np.uint32))
    t = _predict(mod, "adds_between_barriers", (132,), (128,), (ws.empty(n, dtype=np.uint32), d_x, np.int32(64)))
    assert t.issue_active > 65.0
