"""Warp collectives and CTA barriers in real kernels: the PTX run, the SASS run beside it, and NumPy.

Both executors reach semantics/warp.py and semantics/barriers.py; these
kernels put partial warps (blocks of 80 and 48 threads), divergent groups,
shuffle widths (segment masks), bar.red and counted named barriers through
both, and the SASS run must write the PTX run's bytes (outcome level 'sass').
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void collectives(const int* x, unsigned* out) {
    int t = threadIdx.x;
    int v = x[blockIdx.x * blockDim.x + t];
    unsigned active = __activemask();
    unsigned* o = out + (blockIdx.x * blockDim.x + t) * 8;
    o[0] = __ballot_sync(active, v > 0);
    o[1] = __all_sync(active, v > -90);
    o[2] = __any_sync(active, v > 90);
    o[3] = __match_any_sync(active, v & 3);
    o[4] = __reduce_add_sync(active, (unsigned)v);
    o[5] = (unsigned)__reduce_min_sync(active, v);
    o[6] = __reduce_max_sync(active, (unsigned)v);
    o[7] = (unsigned)__shfl_sync(active, v, v & 31, 8) + (unsigned)__shfl_down_sync(active, v, 3, 16);
}
extern "C" __global__ void divergent_ballots(const int* x, unsigned* out) {
    int t = threadIdx.x;
    int v = x[blockIdx.x * blockDim.x + t];
    unsigned r;
    if (v & 1) r = __ballot_sync(__activemask(), v > 0) ^ 0x1;
    else r = __ballot_sync(__activemask(), v < 0) ^ 0x2;
    out[blockIdx.x * blockDim.x + t] = r;
}
extern "C" __global__ void block_votes(const int* x, int* out) {
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    int count = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -50);
    int any = __syncthreads_or(v > 90);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = count;
        out[blockIdx.x * 3 + 1] = all;
        out[blockIdx.x * 3 + 2] = any;
    }
}
extern "C" __global__ void producer_consumer(const int* x, int* out) {
    __shared__ int buf[64];
    int t = threadIdx.x;
    if (t < 64) {
        buf[t] = x[blockIdx.x * 64 + t] * 2;
        asm volatile("bar.arrive 1, 128;");
    } else {
        asm volatile("bar.sync 1, 128;");
        out[blockIdx.x * 64 + (t - 64)] = buf[t - 64] + 1;
    }
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def run_beside(module, name, grid, block, args):
    with ReplayRequest() as request:
        module.get_function(name)(grid, block, args)
        (launch, replay), = request._replays.values()
        return replay.outcome()


def _collectives_reference(x, block):
    """Per thread the 8 words `collectives` writes (every lane of a warp active: a partial warp's
    missing lanes are not)."""
    out = np.zeros((x.size, 8), dtype=np.uint32)
    for base in range(0, x.size, block):
        for w0 in range(0, block, 32):
            lanes = np.arange(w0, min(w0 + 32, block))
            v = x[base + lanes].astype(np.int64)
            bits = lambda flags: sum(1 << int(k) for k in (lanes[flags] - w0))
            for k, t in enumerate(lanes):
                o = out[base + t]
                o[0] = bits(v > 0)
                o[1] = bool((v > -90).all())
                o[2] = bool((v > 90).any())
                o[3] = bits((v & 3) == (v[k] & 3))
                o[4] = int(v.sum()) & 0xFFFFFFFF
                o[5] = int(v.min()) & 0xFFFFFFFF
                o[6] = int((v & 0xFFFFFFFF).max())
                lane = t - w0
                src = (lane & ~7) | (v[k] & 7)                 # width 8: within the lane's 8-lane segment
                down = lane + 3 if (lane & 15) + 3 < 16 else lane
                src_value = v[src] if src < len(lanes) else 0
                down_value = v[down] if down < len(lanes) else v[k]
                o[7] = (int(src_value) + int(down_value)) & 0xFFFFFFFF
    return out


@pytest.mark.parametrize("block", [80, 48])
def test_warp_collectives_in_partial_warps(module, block):
    rng = np.random.default_rng(block)
    x = rng.integers(-100, 100, 3 * block).astype(np.int32)
    out = cp.zeros(3 * block * 8, dtype=cp.uint32)
    outcome = run_beside(module, "collectives", (3,), (block,), (cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    got = out.get().reshape(-1, 8)
    want = _collectives_reference(x, block)
    lanes_of_partial = (np.arange(x.size) % block) // 32 == block // 32     # shfl reads of absent lanes: undefined
    checked = [0, 1, 2, 3, 4, 5, 6]
    assert np.array_equal(got[:, checked], want[:, checked])
    assert np.array_equal(got[~lanes_of_partial, 7], want[~lanes_of_partial, 7])


def test_divergent_ballots(module):
    x = np.random.default_rng(3).integers(-100, 100, 2 * 80).astype(np.int32)
    out = cp.zeros(x.size, dtype=cp.uint32)
    outcome = run_beside(module, "divergent_ballots", (2,), (80,), (cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    want = np.zeros(x.size, dtype=np.uint32)
    for i in range(x.size):
        warp = np.arange(i - i % 80 + (i % 80) // 32 * 32, min(i - i % 80 + (i % 80) // 32 * 32 + 32, i - i % 80 + 80))
        same = warp[(x[warp] & 1) == (x[i] & 1)]
        flags = x[same] > 0 if x[i] & 1 else x[same] < 0
        want[i] = sum(1 << int(j % 80 % 32) for j in same[flags]) ^ (1 if x[i] & 1 else 2)
    assert np.array_equal(out.get(), want)


def test_block_votes(module):
    rng = np.random.default_rng(11)
    x = rng.integers(-100, 100, (6, 80)).astype(np.int32)
    x[2] = np.abs(x[2])
    out = cp.full(18, -7, dtype=cp.int32)
    outcome = run_beside(module, "block_votes", (6,), (80,), (cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    got = out.get().reshape(6, 3)
    assert np.array_equal(got[:, 0], (x > 0).sum(axis=1))
    assert np.array_equal(got[:, 1] != 0, (x > -50).all(axis=1))
    assert np.array_equal(got[:, 2] != 0, (x > 90).any(axis=1))


def test_counted_named_barrier(module):
    x = np.random.default_rng(12).integers(-1000, 1000, (5, 64)).astype(np.int32)
    out = cp.full((5, 64), -7, dtype=cp.int32)
    outcome = run_beside(module, "producer_consumer", (5,), (128,), (cp.asarray(x), out))
    assert outcome.level == "sass", outcome.note
    assert np.array_equal(out.get(), x * 2 + 1)
