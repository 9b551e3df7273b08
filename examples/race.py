"""Warp-synchronous code without __syncwarp, found by racecheck:
`warpsim check --tool racecheck python examples/race.py` (exit status 1: hazards found)."""

import numpy as np

import warpsim as cp

SOURCE = r"""
extern "C" __global__ void legacy_reduce(const int* x, int* out) {
    __shared__ volatile int s[64];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {                 // the last warp folds without barriers: relies on lockstep
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""

if __name__ == "__main__":
    x = np.random.default_rng(0).integers(-100, 100, 4 * 64).astype(np.int32)
    out = cp.zeros(4, dtype=cp.int32)
    cp.RawModule(code=SOURCE).get_function("legacy_reduce")((4,), (64,), (cp.asarray(x), out))
    print("sums:", out.get(), "expected:", x.reshape(4, 64).sum(axis=1))
