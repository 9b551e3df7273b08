"""cp.async global->shared copies (the sm_80 pipeline primitives)."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
#include <cuda_pipeline.h>
extern "C" __global__ void reverse_tile(const float4* in, float4* out) {
    __shared__ float4 buf[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&buf[t], &in[blockIdx.x * 128 + t], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 128 + t] = buf[127 - t];
}
extern "C" __global__ void zero_fill(const int* in, int* out, int valid) {
    __shared__ int4 buf[32];
    int t = threadIdx.x;
    // copy 16 bytes but only `valid` of them from global: the rest are zero-filled
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::
                 "r"((unsigned)__cvta_generic_to_shared(&buf[t])), "l"(in + 4 * t), "r"(valid));
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    int4 v = buf[t];
    out[4 * t + 0] = v.x; out[4 * t + 1] = v.y; out[4 * t + 2] = v.z; out[4 * t + 3] = v.w;
}
"""


def test_pipeline_copy_then_reverse():
    x = np.random.default_rng(5).standard_normal((3, 128, 4)).astype(np.float32)
    out = cp.full((3, 128, 4), np.nan, dtype=cp.float32)
    module = cp.RawModule(code=SOURCE)
    assert "cp.async" in module.ptx
    module.get_function("reverse_tile")((3,), (128,), (cp.asarray(x), out))
    assert np.array_equal(out.get(), x[:, ::-1, :])


@pytest.mark.parametrize("valid", [16, 9, 4, 0])
def test_src_size_zero_fills_the_rest(valid):
    x = np.random.default_rng(6).integers(1, 2**31 - 1, 128).astype(np.int32)
    out = cp.full(128, -1, dtype=cp.int32)
    cp.RawModule(code=SOURCE).get_function("zero_fill")((1,), (32,), (cp.asarray(x), out, np.int32(valid)))
    expect = x.view(np.uint8).reshape(32, 16).copy()
    expect[:, valid:] = 0
    assert np.array_equal(out.get(), expect.reshape(-1).view(np.int32))
