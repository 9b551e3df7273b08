"""Atomics beyond 32/64-bit scalars: 16-bit cas, scalar half/bfloat16 adds, vector adds."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void claim(unsigned short* slots, unsigned short* seen) {
    int i = threadIdx.x;
    seen[i] = atomicCAS(&slots[i / 4], 0, 100 + i);     // four lanes race for each slot
}
"""


def test_first_lane_in_thread_order_wins_each_slot():
    slots = cp.zeros(8, dtype=cp.uint16)
    seen = cp.full(32, 0xFFFF, dtype=cp.uint16)
    cp.RawModule(code=SOURCE).get_function("claim")((1,), (32,), (slots, seen))
    winners = 100 + 4 * np.arange(8)
    assert np.array_equal(slots.get(), winners)
    expect = np.repeat(winners, 4)
    expect[::4] = 0                                     # the winner saw the empty slot
    assert np.array_equal(seen.get(), expect)


VECTOR_AND_HALF = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void accumulate(const float* x, __half* h, __nv_bfloat16* b, float2* v, float4* w) {
    int t = threadIdx.x;
    float value = x[t];
    atomicAdd(&h[t % 4], __float2half(0.25f));
    atomicAdd(&b[t % 4], __float2bfloat16(0.5f));
    atomicAdd(&v[t % 2], make_float2(value, 2.0f * value));
    atomicAdd(&w[t % 3], make_float4(1.0f, value, 3.0f, 4.0f));
}
"""


def test_half_bfloat16_and_vector_adds_are_exact():
    x = np.round(np.random.default_rng(4).standard_normal(64), 2).astype(np.float32) * 4
    h, b = cp.zeros(4, dtype=cp.float16), cp.zeros(4, dtype=cp.uint16)
    v, w = cp.zeros((2, 2), dtype=cp.float32), cp.zeros((3, 4), dtype=cp.float32)
    module = cp.RawModule(code=VECTOR_AND_HALF)
    assert "atom.global.add.v4.f32" in module.ptx and "noftz.f16" in module.ptx
    module.get_function("accumulate")((1,), (64,), (cp.asarray(x), h, b, v, w))
    assert (h.get() == 4.0).all()                                   # 16 x 0.25 per slot
    assert ((b.get().astype(np.uint32) << 16).view(np.float32) == 8.0).all()
    t = np.arange(64)
    expect_v = np.array([[x[t % 2 == k].sum(), 2 * x[t % 2 == k].sum()] for k in range(2)])
    assert np.allclose(v.get(), expect_v, rtol=1e-6)
    counts = np.bincount(t % 3)
    expect_w = np.array([[counts[k], x[t % 3 == k].sum(), 3 * counts[k], 4 * counts[k]] for k in range(3)])
    assert np.allclose(w.get(), expect_w, rtol=1e-6)
