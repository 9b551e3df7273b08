"""Kernels whose SASS needs VIMNMX.U16x2/.S16x2, VABSDIFF, VABSDIFF4, IDP and BMOV, run beside their PTX.

Each launch runs twice, on the PTX machine and on the SASS executor, and the two
runs must write the same bytes (the replay's level is "sass" only then); the
output is checked against NumPy besides.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from test_executor_async_cluster import opcodes_of, run_beside

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

RNG = np.random.default_rng(41)

SIMD_SOURCE = r"""
extern "C" __global__ void simd(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    out[7 * i + 0] = __vminu2(x, y);
    out[7 * i + 1] = __vmaxu2(x, y);
    out[7 * i + 2] = __vmins2(x, y);
    out[7 * i + 3] = __vmaxs2(x, y);
    out[7 * i + 4] = __vabsdiffu4(x, y);
    out[7 * i + 5] = __sad((int)x, (int)y, 7u);
    out[7 * i + 6] = __usad(x, y, y >> 8);
}
"""


def lanes(words, width, signed):
    values = np.stack([(words.astype(np.int64) >> (width * k)) & ((1 << width) - 1) for k in range(32 // width)], 1)
    return np.where(values >= 1 << (width - 1), values - (1 << width), values) if signed else values


def pack(values, width):
    return sum((values[:, k] & ((1 << width) - 1)) << (width * k) for k in range(values.shape[1])).astype(np.uint32)


def test_packed_min_max_and_absolute_differences():
    """CUDA's __vminu2/__vmaxs2 (VIMNMX.U16x2/.S16x2), __vabsdiffu4 (VABSDIFF4.U8), __sad/__usad (VABSDIFF)."""
    module = cp.RawModule(code=SIMD_SOURCE, options=("-arch=sm_90",))
    assert {"VIMNMX.U16x2", "VIMNMX.S16x2", "VABSDIFF4.U8", "VABSDIFF", "VABSDIFF.U32"} <= opcodes_of(module, "simd")
    n = 300
    a = RNG.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    b = RNG.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0x80007FFF, 0xFFFF0000, 0x00FF80FF, 0x7FFFFFFF]          # lane extremes
    b[:4] = [0x7FFF8000, 0x0000FFFF, 0xFF0001FF, 0x80000000]
    out = cp.asarray(np.full(7 * n, 0x5A5A5A5A, np.uint32))
    run_beside(module, "simd", ((n + 127) // 128,), (128,), (cp.asarray(a), cp.asarray(b), out, np.int32(n)))
    got = out.get().reshape(n, 7)
    u16, s16 = (lanes(a, 16, False), lanes(b, 16, False)), (lanes(a, 16, True), lanes(b, 16, True))
    np.testing.assert_array_equal(got[:, 0], pack(np.minimum(*u16), 16))
    np.testing.assert_array_equal(got[:, 1], pack(np.maximum(*u16), 16))
    np.testing.assert_array_equal(got[:, 2], pack(np.minimum(*s16), 16))
    np.testing.assert_array_equal(got[:, 3], pack(np.maximum(*s16), 16))
    np.testing.assert_array_equal(got[:, 4], pack(np.abs(lanes(a, 8, False) - lanes(b, 8, False)), 8))
    signed = np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64)) + 7
    np.testing.assert_array_equal(got[:, 5], (signed & 0xFFFFFFFF).astype(np.uint32))
    unsigned = np.abs(a.astype(np.int64) - b.astype(np.int64)) + (b >> 8)
    np.testing.assert_array_equal(got[:, 6], (unsigned & 0xFFFFFFFF).astype(np.uint32))


RECURSION_SOURCE = r"""
__device__ __noinline__ unsigned tribonacci(int n) {
    if (n < 3) return n == 0 ? 0u : 1u;
    return tribonacci(n - 1) + tribonacci(n - 2) * 3u + tribonacci(n - 3);
}
extern "C" __global__ void recursive_walk(const int* depth, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tribonacci(depth[i] % 9);
}
"""


def tribonacci(k: int) -> int:
    values = [0, 1, 1]
    while len(values) <= k:
        values.append((values[-1] + 3 * values[-2] + values[-3]) & 0xFFFFFFFF)
    return values[k]


def test_recursion_saves_and_restores_convergence_barriers():
    """A recursive call inside a divergent region: ptxas saves Bk with BMOV.32.CLEAR before the
    region's BSSY and restores it with BMOV.32 after its BSYNC; lanes recurse to different depths."""
    module = cp.RawModule(code=RECURSION_SOURCE, options=("-arch=sm_90",))
    assert {"BMOV.32", "BMOV.32.CLEAR"} <= opcodes_of(module, "recursive_walk")
    n = 100
    depth = RNG.integers(0, 1000, n).astype(np.int32)
    out = cp.asarray(np.full(n, 0x5A5A5A5A, np.uint32))
    run_beside(module, "recursive_walk", (2,), (64,), (cp.asarray(depth), out, np.int32(n)))
    np.testing.assert_array_equal(out.get(), [tribonacci(int(d) % 9) for d in depth])


MUTUAL_RECURSION_SOURCE = r"""
__device__ __noinline__ unsigned long long fibonacci(int n) {
    if (n < 2) return (unsigned long long)n;
    return fibonacci(n - 1) + fibonacci(n - 2);
}
__device__ __noinline__ bool is_odd(int n);
__device__ __noinline__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }
extern "C" __global__ void parity(const int* depth, unsigned long long* fib, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fib[i] = fibonacci(depth[i] % 13);
    out[i] = is_even(depth[i]) ? 2 : 1;
}
"""


def test_lanes_wait_at_one_bsync_at_several_depths_of_a_recursion():
    """is_even and is_odd call each other (after a fibonacci recursion, as tests/kernels' recursion kernel
    does, which is what made the SASS run deadlock): a lane whose depth runs out waits at the BSYNC of its call's
    region while the others go deeper, save and clear that barrier (BMOV.32.CLEAR), and reach the same
    BSYNC one or more calls down. The inner region's members go on without the outer waiters, which
    leave when the barrier is restored (BMOV.32) and the lanes coming back arrive."""
    module = cp.RawModule(code=MUTUAL_RECURSION_SOURCE, options=("-arch=sm_90",))
    assert {"BMOV.32", "BMOV.32.CLEAR"} <= opcodes_of(module, "parity")
    n = 300
    depth = RNG.integers(0, 40, n).astype(np.int32)
    out, fib = cp.asarray(np.zeros(n, np.int32)), cp.asarray(np.zeros(n, np.uint64))
    run_beside(module, "parity", (5,), (64,), (cp.asarray(depth), fib, out, np.int32(n)))
    np.testing.assert_array_equal(out.get(), np.where(depth % 2 == 0, 2, 1))
    fibs = [0, 1]
    while len(fibs) < 13:
        fibs.append(fibs[-1] + fibs[-2])
    np.testing.assert_array_equal(fib.get(), [fibs[d % 13] for d in depth])


DOT_SOURCE = r"""
extern "C" __global__ void dots(const int* a, const unsigned* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], c = out[5 * i];
    unsigned y = b[i];
    out[5 * i + 0] = __dp4a(x, (int)y, c);
    out[5 * i + 1] = (int)__dp4a((unsigned)x, y, (unsigned)c);
    out[5 * i + 2] = __dp2a_lo(x, (int)y, c);
    out[5 * i + 3] = (int)__dp2a_hi((unsigned)x, y, (unsigned)c);
    out[5 * i + 4] = __dp2a_hi(x, (int)y, c);
}
"""


def test_byte_and_half_dot_products():
    """__dp4a and __dp2a_lo/_hi, signed and unsigned (IDP.4A.S8.S8, IDP.4A.U8.U8, IDP.2A.LO.S16.S8,
    IDP.2A.HI.U16.U8): c plus the lane products, wrapped to 32 bits."""
    module = cp.RawModule(code=DOT_SOURCE, options=("-arch=sm_90",))
    assert {"IDP.4A.S8.S8", "IDP.4A.U8.U8", "IDP.2A.LO.S16.S8", "IDP.2A.HI.U16.U8"} <= opcodes_of(module, "dots")
    n = 300
    a = RNG.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    b = RNG.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    a[:2], b[:2] = [-2 ** 31, 0x7F7F7F7F], [0x80808080, 0xFFFFFFFF]            # lane extremes
    c = RNG.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    out = cp.asarray(np.repeat(c, 5))
    run_beside(module, "dots", ((n + 127) // 128,), (128,), (cp.asarray(a), cp.asarray(b), out, np.int32(n)))
    got = out.get().reshape(n, 5)
    ua = a.view(np.uint32)

    def dot(x_lanes, y_lanes):
        return ((c.astype(np.int64) + (x_lanes * y_lanes).sum(axis=1)) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(got[:, 0], dot(lanes(ua, 8, True), lanes(b, 8, True)))
    np.testing.assert_array_equal(got[:, 1], dot(lanes(ua, 8, False), lanes(b, 8, False)))
    np.testing.assert_array_equal(got[:, 2], dot(lanes(ua, 16, True), lanes(b, 8, True)[:, :2]))
    np.testing.assert_array_equal(got[:, 3], dot(lanes(ua, 16, False), lanes(b, 8, False)[:, 2:]))
    np.testing.assert_array_equal(got[:, 4], dot(lanes(ua, 16, True), lanes(b, 8, True)[:, 2:]))
