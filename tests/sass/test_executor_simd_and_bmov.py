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


SCALAR_VIDEO_FORMS = (
    "vadd.s32.s32.s32.sat", "vsub.u32.u32.u32", "vsub.u32.u32.u32.sat", "vabsdiff.u32.s32.s32",
    "vmin.s32.s32.u32", "vmax.u32.u32.u32.sat", "vadd.s32.u32.s32.sat", "vshl.u32.u32.u32.clamp",
    "vshl.s32.s32.u32.sat.clamp", "vshl.u32.u32.u32.sat.clamp", "vshl.u32.s32.u32.sat.wrap",
    "vshr.s32.s32.u32.wrap", "vshr.u32.u32.u32.clamp", "vshr.u32.s32.u32.sat.clamp",
)
SCALAR_VIDEO_WITH_C = ("vshr.u32.u32.u32.clamp.add", "vadd.s32.s32.s32.min", "vabsdiff.u32.u32.u32.max",
                       "vsub.s32.s32.s32.sat.add", "vset.s32.s32.lt.add", "vset.u32.u32.ge.max")


def scalar_video_source():
    lines = ['extern "C" __global__ void video(const unsigned* a, const unsigned* b, const unsigned* c, '
             'unsigned* out, int n) {',
             '    int i = blockIdx.x * blockDim.x + threadIdx.x;', '    if (i >= n) return;',
             '    unsigned x = a[i], y = b[i], z = c[i], r;']
    for k, form in enumerate(SCALAR_VIDEO_FORMS + SCALAR_VIDEO_WITH_C):
        operands = "%0, %1, %2, %3" if form in SCALAR_VIDEO_WITH_C else "%0, %1, %2"
        lines.append(f'    asm("{form} {operands};" : "=r"(r) : "r"(x), "r"(y), "r"(z)); '
                     f'out[{len(SCALAR_VIDEO_FORMS + SCALAR_VIDEO_WITH_C)} * i + {k}] = r;')
    return "\n".join(lines) + "\n}\n"


def scalar_video_reference(form, a, b, c):
    """The PTX ISA's scalar video semantics in Python integers, one lane at a time, with ptxas's reading
    of it: a 34-bit intermediate, the secondary operation on dtype's 32-bit word."""
    parts = form.split(".")
    op, flags = parts[0], set(parts[1:])
    types = [p for p in parts[1:] if p in ("u32", "s32")]
    dtype, atype, btype = (["u32"] + types) if op == "vset" else types

    def word(v, t):
        v = int(v)
        return v - (1 << 32) if t == "s32" and v >= 1 << 31 else v
    x, y = word(a, atype), word(b, btype)
    if op in ("vshl", "vshr"):
        y = min(int(b), 32) if "clamp" in flags else int(b) & 31
        r = ((x << y) + (1 << 33)) % (1 << 34) - (1 << 33) if op == "vshl" else x >> y     # 34 bits
    elif op == "vset":
        r = int({"lt": x < y, "ge": x >= y}[next(f for f in flags if f in ("lt", "ge"))])
    else:
        r = {"vadd": x + y, "vsub": x - y, "vabsdiff": abs(x - y), "vmin": min(x, y), "vmax": max(x, y)}[op]
    if "sat" in flags:
        r = max(-(1 << 31), min(r, (1 << 31) - 1)) if dtype == "s32" else max(0, min(r, (1 << 32) - 1))
    else:
        r = word(r & 0xFFFFFFFF, dtype)
    second = flags & {"add", "min", "max"}
    if second:
        z = word(c, dtype)
        r = {"add": r + z, "min": min(r, z), "max": max(r, z)}[second.pop()]
    return r & 0xFFFFFFFF


def test_scalar_video_instructions_as_ptxas_lowers_them():
    """vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vset (CUB's SHR_ADD is vshr.u32.u32.u32.clamp.add; an H100
    gives 0x07878783 for (0xF0F0F00F, 5, 3)): the PTX machine against ptxas's SASS for the same forms
    and against the PTX ISA's rule, on random words, shift amounts of 0-40 and extremes."""
    module = cp.RawModule(code=scalar_video_source(), options=("-arch=sm_90",))
    n = 256
    a = RNG.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    b = RNG.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    b[::2] = RNG.integers(0, 41, n // 2)                    # shift amounts around 32
    c = RNG.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    a[:3], b[:3], c[:3] = [0xF0F0F00F, 0x80000000, 0x7FFFFFFF], [5, 0x7FFFFFFF, 33], [3, 0x80000000, 1]
    forms = SCALAR_VIDEO_FORMS + SCALAR_VIDEO_WITH_C
    out = cp.asarray(np.full(len(forms) * n, 0x5A5A5A5A, np.uint32))
    run_beside(module, "video", (2,), (128,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), out, np.int32(n)))
    got = out.get().reshape(n, len(forms))
    assert got[0, forms.index("vshr.u32.u32.u32.clamp.add")] == 0x07878783
    for k, form in enumerate(forms):
        want = [scalar_video_reference(form, a[i], b[i], c[i]) for i in range(n)]
        np.testing.assert_array_equal(got[:, k], np.array(want, dtype=np.uint32), err_msg=form)
