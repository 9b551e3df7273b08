"""The SASS executor against the PTX machine and NumPy: real kernels through NVRTC, random inputs.

Each kernel runs once on the PTX machine with a SASS run beside it
(warpsim.sass.replay); the SASS run must write exactly the bytes the PTX run
wrote (and nothing else), every output element must be written, and the
output must match a NumPy reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass import sass_of
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void early_return(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = 2.0f * x[i] - 1.0f;
}
extern "C" __global__ void compound_return(const float* x, float* y, int mode) {
    int w = threadIdx.x / 32;                  // ptxas: @!P0 EXIT P1 (mode == 0 and w >= 4)
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    if (mode == 0 && w >= 4) return;
    for (int k = 0; k < 3 + (w & 3); ++k) v = fmaf(v, 1.5f, -0.25f);
    y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void row_sum(const float* x, float* out, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float total = 0.0f;
    for (int k = 0; k < n; ++k) total += x[row * n + k];
    out[row] = total;
}
extern "C" __global__ void divergent(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    if (v % 3 == 0) { for (int k = 0; k < (v & 7); ++k) v = v * 5 + k; out[i] = v; }
    else if (v & 1) { v = (v >> 2) ^ 0x55; out[i] = v + 1; }
    else out[i] = -v;
}
extern "C" __global__ void block_reverse(const float* x, float* out) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    tile[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    float s = tile[255 - t];
    __syncthreads();
    tile[t] = s * 2.0f;
    __syncthreads();
    out[blockIdx.x * 256 + t] = tile[t ^ 1] + tile[(t + 7) & 255];
}
extern "C" __global__ void warp_sum(const float* x, float* out, unsigned* ballots) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    unsigned ballot = __ballot_sync(0xffffffff, x[i] > 0.5f);
    if ((threadIdx.x & 31) == 0) { out[i / 32] = v; ballots[i / 32] = ballot; }
}
extern "C" __global__ void atomics(const int* keys, int* bins, int* extremes, unsigned* bits, float* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = keys[i];
    atomicAdd(&bins[k & 15], 1);
    atomicMax(&extremes[0], k);
    atomicMin(&extremes[1], k);
    atomicOr(bits, 1u << (k & 31));
    atomicAdd(total, (float)(k & 7));
}
extern "C" __global__ void int64_math(const long long* x, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = x[i];
    unsigned long long u = (unsigned long long)v;
    out[4 * i] = v * 0x9E3779B97F4A7C15LL + (v >> 7);
    out[4 * i + 1] = (long long)((u << 13) | (u >> 51));
    out[4 * i + 2] = v / 1000003;
    out[4 * i + 3] = (long long)(u % 77u) + __popcll(u) + __clzll(v);
}
extern "C" __global__ void float_math(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[4 * i] = sqrtf(fabsf(v));
    out[4 * i + 1] = 1.0f / (v + 3.0f);
    out[4 * i + 2] = v / (v * v + 1.0f);
    out[4 * i + 3] = __expf(v * 0.25f) + fminf(v, 0.5f);
}
extern "C" __global__ void switched(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int r;
    switch (x[i] & 7) {
    case 0: r = 10; break;
    case 1: r = x[i] * 3; break;
    case 2: r = x[i] << 4; break;
    case 3: r = -x[i]; break;
    case 5: r = x[i] ^ 0xff; break;
    default: r = 99;
    }
    out[i] = r;
}
__device__ __noinline__ float poly(float v, int k) {
    float r = 0.0f;
    for (int j = 0; j < k; ++j) r = r * v + (float)j;
    return r;
}
extern "C" __global__ void calls(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = poly(x[i], (i & 3) + 1);
}
__constant__ float coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
extern "C" __global__ void generic_local(const float* x, float* out, int which) {
    __shared__ float tile[64];
    float local[8];
    int t = threadIdx.x;
    for (int k = 0; k < 8; ++k) local[k] = x[t] * k;
    float* p = which ? &tile[t] : &out[t + 64];
    *p = x[t] * coeffs[t & 3] + local[(t + which) & 7];
    __syncthreads();
    out[t] = which ? tile[t] : -1.0f;
}
extern "C" __global__ void by_constants(const int* s, double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = s[t];
    out[4 * t] = v / 2147483647.0;          // MUFU.RCP64H of an immediate: the divisor's high word
    out[4 * t + 1] = v / -3.0;
    out[4 * t + 2] = v / 1e-300;
    out[4 * t + 3] = 1.0 / sqrt((double)(v & 0xffff) + 0.5) / 7.25;
}
extern "C" __global__ void doubles(const double* x, double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double v = x[t];
    out[t] = sqrt(v) + v * 3.5 / (v + 1.0) + (double)(float)v;
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def run_beside(module, name, grid, block, args):
    """Launch on the PTX machine with a SASS run beside it; the replay's outcome."""
    with ReplayRequest() as request:
        module.get_function(name)(grid, block, args)
        (launch, replay), = request._replays.values()
        return replay.outcome()


def assert_same(outcome):
    assert outcome.level == "sass", outcome.note


RNG = np.random.default_rng(7)


def test_early_return(module):
    n = 1000
    x = RNG.random(n, dtype=np.float32)
    y = cp.full(1024, -5.0, dtype=np.float32)
    assert_same(run_beside(module, "early_return", (4,), (256,), (cp.asarray(x), y, np.int32(n))))
    out = y.get()
    np.testing.assert_array_equal(out[:n], 2.0 * x - 1.0)
    assert (out[n:] == -5.0).all()


@pytest.mark.parametrize("mode", [0, 1])
def test_exit_with_a_predicate_operand(module, mode):
    """`@!P0 EXIT P1` ends only the lanes where P1 holds too; the others run on."""
    sass = sass_of(module.get_function("compound_return").loaded_module).kernel("compound_return")
    assert any(ins.opcode == "EXIT" and any(op.kind == "pred" for op in ins.operands) for ins in sass.instructions)
    x = RNG.random(512, dtype=np.float32)
    y = cp.full(512, -5.0, dtype=np.float32)
    assert_same(run_beside(module, "compound_return", (2,), (256,), (cp.asarray(x), y, np.int32(mode))))
    expected = x.reshape(2, 8, 32).copy()
    for w in range(8):
        for _ in range(3 + (w & 3)):
            expected[:, w] = (expected[:, w].astype(np.float64) * 1.5 - 0.25).astype(np.float32)   # fmaf
    if mode == 0:
        expected[:, 4:] = -5.0
    np.testing.assert_array_equal(y.get(), expected.ravel())


def test_saxpy(module):
    n = 777
    x, y0 = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    y = cp.asarray(y0)
    assert_same(run_beside(module, "saxpy", (4,), (256,), (np.float32(1.5), cp.asarray(x), y, np.int32(n))))
    np.testing.assert_allclose(y.get(), np.float32(1.5) * x + y0, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 3, 37])
def test_loop_ptxas_unrolls(module, n):
    x = RNG.random(64 * n, dtype=np.float32)
    out = cp.zeros(64, dtype=np.float32)
    assert_same(run_beside(module, "row_sum", (2,), (32,), (cp.asarray(x), out, np.int32(n))))
    np.testing.assert_allclose(out.get(), x.reshape(64, n).sum(axis=1), rtol=1e-5)


def test_divergent_branches(module):
    v = RNG.integers(-1000, 1000, 512).astype(np.int32)
    out = cp.zeros(512, dtype=np.int32)
    assert_same(run_beside(module, "divergent", (4,), (128,), (cp.asarray(v), out)))
    expected = np.empty_like(v)
    for k, value in enumerate(v.tolist()):
        if value % 3 == 0:
            j = 0
            while j < (value & 7):              # the bound reads the v the body changes
                value = (value * 5 + j + 2**31) % 2**32 - 2**31
                j += 1
            expected[k] = value
        elif value & 1:
            expected[k] = ((value >> 2) ^ 0x55) + 1
        else:
            expected[k] = -value
    np.testing.assert_array_equal(out.get(), expected)


def test_shared_tiles_and_barriers(module):
    x = RNG.random(512, dtype=np.float32)
    out = cp.zeros(512, dtype=np.float32)
    assert_same(run_beside(module, "block_reverse", (2,), (256,), (cp.asarray(x), out)))
    t = np.arange(256)
    for b in range(2):
        s = 2.0 * x[b * 256:(b + 1) * 256][255 - t]
        np.testing.assert_array_equal(out.get()[b * 256:(b + 1) * 256], s[t ^ 1] + s[(t + 7) & 255])


def test_warp_shuffle_reduction_and_ballot(module):
    x = RNG.random(512, dtype=np.float32)
    out, ballots = cp.zeros(16, dtype=np.float32), cp.zeros(16, dtype=np.uint32)
    assert_same(run_beside(module, "warp_sum", (2,), (256,), (cp.asarray(x), out, ballots)))
    np.testing.assert_allclose(out.get(), x.reshape(16, 32).sum(axis=1), rtol=1e-5)
    bits = (x.reshape(16, 32) > 0.5) * (1 << np.arange(32, dtype=np.uint64))
    np.testing.assert_array_equal(ballots.get(), bits.sum(axis=1).astype(np.uint32))


def test_atomics(module):
    keys = RNG.integers(-1000, 1000, 512).astype(np.int32)
    bins = cp.zeros(16, dtype=np.int32)
    extremes = cp.asarray(np.array([-2**31, 2**31 - 1], dtype=np.int32))
    bits, total = cp.zeros(1, dtype=np.uint32), cp.zeros(1, dtype=np.float32)
    assert_same(run_beside(module, "atomics", (4,), (128,), (cp.asarray(keys), bins, extremes, bits, total)))
    np.testing.assert_array_equal(bins.get(), np.bincount(keys & 15, minlength=16))
    assert extremes.get().tolist() == [keys.max(), keys.min()]
    assert bits.get()[0] == np.bitwise_or.reduce((1 << (keys & 31).astype(np.uint64)).astype(np.uint32))
    assert total.get()[0] == (keys & 7).sum()


def test_int64_math(module):
    n = 300
    v = RNG.integers(-2**62, 2**62, n).astype(np.int64)
    out = cp.zeros(4 * n, dtype=np.int64)
    assert_same(run_beside(module, "int64_math", (2,), (160,), (cp.asarray(v), out, np.int32(n))))
    got = out.get().reshape(n, 4)
    u = v.view(np.uint64)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got[:, 0], v * np.int64(0x9E3779B97F4A7C15 - 2**64) + (v >> 7))
    np.testing.assert_array_equal(got[:, 1].view(np.uint64), (u << np.uint64(13)) | (u >> np.uint64(51)))
    np.testing.assert_array_equal(got[:, 2], [abs(a) // 1000003 * (1 if a >= 0 else -1) for a in v.tolist()])
    clz = [64 - int(a).bit_length() if a >= 0 else 0 for a in v.tolist()]
    np.testing.assert_array_equal(got[:, 3], (u % np.uint64(77)).astype(np.int64)
                                  + [bin(int(a)).count("1") for a in u.tolist()] + clz)


def test_float_math_with_sqrt_exp_div(module):
    n = 1000
    x = (RNG.random(n, dtype=np.float32) * 8 - 4).astype(np.float32)
    x[:4] = [0.0, -0.0, 1e-30, 3.0]
    out = cp.zeros(4 * n, dtype=np.float32)
    assert_same(run_beside(module, "float_math", (4,), (256,), (cp.asarray(x), out, np.int32(n))))
    got = out.get().reshape(n, 4)
    np.testing.assert_array_equal(got[:, 0], np.sqrt(np.abs(x)))
    np.testing.assert_array_equal(got[:, 1], np.float32(1) / (x + np.float32(3)))
    np.testing.assert_allclose(got[:, 2], x / (x * x + np.float32(1)), rtol=1e-6)
    np.testing.assert_allclose(got[:, 3], np.exp(x * 0.25) + np.minimum(x, 0.5), rtol=2e-6, atol=1e-6)


def test_switch(module):
    v = RNG.integers(-500, 500, 512).astype(np.int32)
    out = cp.zeros(512, dtype=np.int32)
    assert_same(run_beside(module, "switched", (4,), (128,), (cp.asarray(v), out)))
    table = {0: lambda a: 10, 1: lambda a: a * 3, 2: lambda a: a << 4, 3: lambda a: -a, 5: lambda a: a ^ 0xFF}
    expected = [table.get(a & 7, lambda a: 99)(a) for a in v.tolist()]
    np.testing.assert_array_equal(out.get(), expected)


def test_device_function_call(module):
    x = RNG.random(512, dtype=np.float32)
    out = cp.zeros(512, dtype=np.float32)
    assert_same(run_beside(module, "calls", (4,), (128,), (cp.asarray(x), out)))
    expected = []
    for i, v in enumerate(x.tolist()):
        r = np.float32(0)
        for j in range((i & 3) + 1):
            r = np.float32(r * np.float32(v) + np.float32(j))
        expected.append(r)
    np.testing.assert_allclose(out.get(), expected, rtol=1e-6)


@pytest.mark.parametrize("which", [0, 1])
def test_generic_pointers_local_arrays_and_constants(module, which):
    x = RNG.random(64, dtype=np.float32)
    out = cp.zeros(128, dtype=np.float32)
    assert_same(run_beside(module, "generic_local", (1,), (64,), (cp.asarray(x), out, np.int32(which))))
    t = np.arange(64)
    value = x * np.array([1, 2, 3, 4], dtype=np.float32)[t & 3] + x * ((t + which) & 7)
    got = out.get()
    if which:
        np.testing.assert_allclose(got[:64], value, rtol=1e-6)
    else:
        np.testing.assert_allclose(got[64:], value, rtol=1e-6)
        assert (got[:64] == -1).all()


def test_doubles_divided_by_constants(module):
    """Division of a double by a constant starts with MUFU.RCP64H of an immediate, which the disassembly
    prints as the double its high word begins (`2.147482624e+09` for 2147483647.0): the SASS run reads
    that word, as the PTX run computes, and both give the correctly rounded quotients."""
    s = RNG.integers(-(1 << 31), 1 << 31, 256).astype(np.int32)
    out = cp.zeros(4 * 256, dtype=np.float64)
    assert_same(run_beside(module, "by_constants", (2,), (128,), (cp.asarray(s), out)))
    got = out.get().reshape(256, 4)
    v = s.astype(np.float64)
    np.testing.assert_array_equal(got[:, :3], np.stack([v / 2147483647.0, v / -3.0, v / 1e-300], axis=1))
    np.testing.assert_allclose(got[:, 3], 1.0 / np.sqrt((s & 0xFFFF) + 0.5) / 7.25, rtol=1e-15)


def test_doubles_with_slow_paths(module):
    x = RNG.random(256) * 100
    x[:3] = [0.0, 1e-310, 4.0]
    out = cp.zeros(256, dtype=np.float64)
    assert_same(run_beside(module, "doubles", (2,), (128,), (cp.asarray(x), out)))
    np.testing.assert_allclose(out.get(), np.sqrt(x) + x * 3.5 / (x + 1.0) + x.astype(np.float32), rtol=1e-12)
