"""Non-inlined calls: recursion where every activation has its own local frame."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
__device__ __noinline__ int walk(const int* x, int depth, int seed) {
    int buf[8];                                   // local memory, one per activation
    for (int k = 0; k < 8; ++k) buf[k] = seed * (k + 1) + depth;
    int r = 0;
    if (depth > 0) r = walk(x, depth - 1, seed + 1);
    int j = x[depth % 4] & 7;                     // read after the recursive call returns
    return r + buf[j] * (depth + 1);
}
extern "C" __global__ void k(const int* x, int* out) {
    int t = threadIdx.x;
    out[t] = walk(x, t % 6, t);
}
"""


def walk(x, depth, seed):
    buf = [seed * (k + 1) + depth for k in range(8)]
    r = walk(x, depth - 1, seed + 1) if depth > 0 else 0
    return r + buf[x[depth % 4] & 7] * (depth + 1)


def test_recursive_activations_keep_their_own_local_arrays():
    x = np.random.default_rng(7).integers(0, 100, 4).astype(np.int32)
    out = cp.full(64, -1, dtype=cp.int32)
    module = cp.RawModule(code=SOURCE)
    assert "__local_depot" in module.ptx and "call" in module.ptx
    module.get_function("k")((1,), (64,), (cp.asarray(x), out))
    assert out.get().tolist() == [walk(x, t % 6, t) for t in range(64)]
