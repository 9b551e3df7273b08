"""CTA barriers: reductions over the block, named barriers, producer/consumer with bar.arrive."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void votes(const int* x, int* out) {
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

// Warps 0-1 produce into shared memory and arrive at barrier 1; warps 2-3
// wait there (bar.sync with a count of 128 threads), then consume.
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


def test_syncthreads_count_and_or(module):
    rng = np.random.default_rng(11)
    x = rng.integers(-100, 100, (6, 96)).astype(np.int32)
    x[2] = np.abs(x[2])            # one block where 'all' holds
    out = cp.full(18, -7, dtype=cp.int32)
    module.get_function("votes")((6,), (96,), (cp.asarray(x), out))
    got = out.get().reshape(6, 3)
    assert np.array_equal(got[:, 0], (x > 0).sum(axis=1))
    assert np.array_equal(got[:, 1] != 0, (x > -50).all(axis=1))
    assert np.array_equal(got[:, 2] != 0, (x > 90).any(axis=1))


def test_named_barrier_producer_consumer(module):
    x = np.random.default_rng(12).integers(-1000, 1000, (5, 64)).astype(np.int32)
    out = cp.full((5, 64), -7, dtype=cp.int32)
    module.get_function("producer_consumer")((5,), (128,), (cp.asarray(x), out))
    assert np.array_equal(out.get(), x * 2 + 1)
