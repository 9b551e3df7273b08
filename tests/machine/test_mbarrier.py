"""mbarrier (libcu++'s cuda::barrier, cuda::memcpy_async, cuda::pipeline) on shared memory."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void pipe(const float* in, float* out) {
    __shared__ float buf[128];
    cuda::pipeline<cuda::thread_scope_thread> p = cuda::make_pipeline();
    p.producer_acquire();
    cuda::memcpy_async(&buf[threadIdx.x], &in[blockIdx.x * 128 + threadIdx.x], sizeof(float), p);
    p.producer_commit();
    p.consumer_wait();
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = buf[127 - threadIdx.x] * 2;
    p.consumer_release();
}
extern "C" __global__ void bar(const float* in, float* out) {
    __shared__ float buf[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> b;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&b, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in + blockIdx.x * 128, sizeof(float) * 128, b);
    b.arrive_and_wait();
    out[blockIdx.x * 128 + threadIdx.x] = buf[127 - threadIdx.x] + 1;
}
extern "C" __global__ void phases(int* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> b;
    __shared__ int stage[128];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&b, block.size());
    block.sync();
    int t = threadIdx.x, acc = 0;
    for (int round = 0; round < 3; ++round) {
        stage[t] = t * (round + 1);
        b.arrive_and_wait();
        acc += stage[(t + 1) % 128];
        b.arrive_and_wait();
    }
    out[blockIdx.x * 128 + t] = acc;
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


@pytest.mark.parametrize("kernel, expect", [
    ("pipe", lambda v: v[:, ::-1] * 2),          # cuda::pipeline: cp.async + commit/wait groups
    ("bar", lambda v: v[:, ::-1] + 1),           # cuda::barrier: mbarrier + cp.async.mbarrier.arrive
])
def test_async_copies_complete_before_the_wait(module, kernel, expect):
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    out = cp.full(256, np.nan, dtype=cp.float32)
    assert "mbarrier" in module.ptx
    module.get_function(kernel)((2,), (128,), (cp.asarray(x), out))
    assert np.array_equal(out.get(), expect(x.reshape(2, 128)).ravel())


def test_a_barrier_object_goes_through_many_phases(module):
    out = cp.full(256, -1, dtype=cp.int32)
    module.get_function("phases")((2,), (128,), (out,))
    t = np.arange(128)
    assert np.array_equal(out.get().reshape(2, 128), np.stack([((t + 1) % 128) * 6] * 2))
