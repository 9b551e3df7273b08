"""Numba front end: @cuda.jit kernels compiled by numba-cuda, run on warpsim.

Every kernel is checked element by element against a NumPy reference on
random inputs. The kernels are the worked examples of the SIMT document
written in Numba, the warp intrinsics, arrays of 1 to 3 dimensions and
non-contiguous views, shared, local and const memory, atomics, device
functions, fp16, and the host API around them.
"""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

pytest.importorskip("numba.cuda")

from numba import types  # noqa: E402

import warpsim  # noqa: E402
from warpsim import cuda  # noqa: E402
from warpsim.errors import LaunchError, MemoryFault  # noqa: E402

pytestmark = [pytest.mark.numba,
              pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaPerformanceWarning"),
              pytest.mark.filterwarnings("ignore::numba.cuda.core.errors.NumbaPerformanceWarning")]

FULL = 0xFFFFFFFF


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# --- the document's kernels ---------------------------------------------------------------

@cuda.jit(device=True)
def heavy(x, n):
    for _ in range(n):
        x = x * np.float32(1.000001) + np.float32(0.5)
    return x


@cuda.jit
def branch_on_lane(out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    v = np.float32(i)
    if cuda.threadIdx.x % 2 == 0:
        v = heavy(v, n)
    else:
        v = heavy(v + np.float32(1.0), n)
    out[i] = v


@cuda.jit
def branch_on_warp(out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    v = np.float32(i)
    if (cuda.threadIdx.x // 32) % 2 == 0:
        v = heavy(v, n)
    else:
        v = heavy(v + np.float32(1.0), n)
    out[i] = v


def heavy_reference(x, n):
    x = x.astype(np.float32)
    for _ in range(n):  # NVVM fuses x * a + b into one fma.rn.f32: round once, from float64
        x = (x.astype(np.float64) * np.float64(np.float32(1.000001)) + 0.5).astype(np.float32)
    return x


@pytest.mark.parametrize("kernel", [branch_on_lane, branch_on_warp])
def test_divergence_examples(kernel):
    blocks, threads, n = 4, 128, 20
    out = np.zeros(blocks * threads, np.float32)
    kernel[blocks, threads](out, n)
    i = np.arange(blocks * threads)
    lane = i % threads
    lane_branch = lane % 2 == 0 if kernel is branch_on_lane else (lane // 32) % 2 == 0
    expected = np.where(lane_branch, heavy_reference(i, n), heavy_reference(i + 1, n))
    np.testing.assert_allclose(out, expected, rtol=2e-7)


@cuda.jit(device=True)
def warp_sum(v):
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(FULL, v, offset)
        offset >>= 1
    return v


@cuda.jit
def block_sum(x, out, n):
    partial = cuda.shared.array(32, types.float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    v = x[i] if i < n else np.float32(0.0)
    v = warp_sum(v)
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    if lane == 0:
        partial[warp] = v
    cuda.syncthreads()
    nwarps = (cuda.blockDim.x + 31) // 32
    if warp == 0:
        v = partial[lane] if lane < nwarps else np.float32(0.0)
        v = warp_sum(v)
        if lane == 0:
            cuda.atomic.add(out, 0, v)


@cuda.jit
def warp_totals(x, out):
    i = cuda.grid(1)
    v = warp_sum(x[i])
    if cuda.laneid == 0:
        out[i // 32] = v


@pytest.mark.parametrize("n, threads", [(1000, 256), (4096, 1024), (77, 96)])
def test_block_sum(rng, n, threads):
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(1, np.float32)
    block_sum[(n + threads - 1) // threads, threads](x, out, n)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)


def test_warp_sum_int_every_warp(rng):
    x = rng.integers(-1000, 1000, 32 * 40).astype(np.int32)
    out = np.zeros(40, np.int32)
    warp_totals[5, 256](x, out)
    np.testing.assert_array_equal(out, x.reshape(40, 32).sum(axis=1))


# --- warp intrinsics ----------------------------------------------------------------------

@cuda.jit
def butterfly(x, out):
    i = cuda.grid(1)
    v = x[i]
    mask = 16
    while mask > 0:
        v += cuda.shfl_xor_sync(FULL, v, mask)
        mask >>= 1
    out[i] = v


def test_butterfly_reduction_gives_every_lane_the_total(rng):
    x = rng.integers(-2 ** 20, 2 ** 20, 256).astype(np.int64)
    out = np.zeros_like(x)
    butterfly[2, 128](x, out)
    np.testing.assert_array_equal(out, np.repeat(x.reshape(-1, 32).sum(axis=1), 32))


@cuda.jit
def compact(x, out, count, threshold):
    i = cuda.grid(1)
    keep = i < x.size and x[i] > threshold
    ballot = cuda.ballot_sync(FULL, keep)
    lane = cuda.laneid
    base = 0
    if lane == 0:
        base = cuda.atomic.add(count, 0, cuda.popc(ballot))
    base = cuda.shfl_sync(FULL, base, 0)
    if keep:
        out[base + cuda.popc(ballot & ((1 << lane) - 1))] = x[i]


def test_ballot_compaction(rng):
    x = rng.integers(0, 100, 5000).astype(np.int32)
    out = np.full(5000, -1, np.int32)
    count = np.zeros(1, np.int32)
    compact[(5000 + 255) // 256, 256](x, out, count, 60)
    kept = x[x > 60]
    assert count[0] == len(kept)
    np.testing.assert_array_equal(np.sort(out[:count[0]]), np.sort(kept))
    # within one warp the survivors keep their order (slots come from the ballot bits)
    assert (out[count[0]:] == -1).all()


@cuda.jit
def group_by_key(keys, masks, leaders):
    i = cuda.grid(1)
    peers = cuda.match_any_sync(FULL, keys[i])
    masks[i] = peers
    leaders[i] = cuda.ffs(peers) - 1  # lowest lane holding the same key


def test_match_any_grouping(rng):
    keys = rng.integers(0, 5, 128).astype(np.int32)
    masks = np.zeros(128, np.uint32)
    leaders = np.zeros(128, np.int32)
    group_by_key[2, 64](keys, masks, leaders)
    warp_keys = keys.reshape(-1, 32)
    same = warp_keys[:, :, None] == warp_keys[:, None, :]
    expected = (same * (1 << np.arange(32, dtype=np.uint64))).sum(axis=2).astype(np.uint32)
    np.testing.assert_array_equal(masks, expected.reshape(-1))
    np.testing.assert_array_equal(leaders, same.argmax(axis=2).reshape(-1))


@cuda.jit
def votes(x, out):
    i = cuda.grid(1)
    p = x[i] > 0
    out[i, 0] = cuda.all_sync(FULL, p)
    out[i, 1] = cuda.any_sync(FULL, p)
    out[i, 2] = cuda.eq_sync(FULL, p)
    out[i, 3] = cuda.ballot_sync(FULL, p)
    out[i, 4] = cuda.activemask()
    out[i, 5] = cuda.lanemask_lt()
    out[i, 6] = cuda.shfl_up_sync(FULL, x[i], 3)


def test_votes_and_masks(rng):
    x = rng.integers(-1, 3, 96).astype(np.int32)
    x[64:] = 1  # one warp where every lane agrees
    out = np.zeros((96, 7), np.int64)
    votes[1, 96](x, out)
    for warp in range(3):
        lanes = slice(warp * 32, warp * 32 + 32)
        p = x[lanes] > 0
        ballot = int(sum(1 << k for k in range(32) if p[k]))
        got = out[lanes]
        np.testing.assert_array_equal(got[:, 0], p.all())
        np.testing.assert_array_equal(got[:, 1], p.any())
        np.testing.assert_array_equal(got[:, 2], p.all() or not p.any())
        words = got & FULL  # Numba types ballot_sync as int32: compare the 32 bits
        np.testing.assert_array_equal(words[:, 3], ballot)
        np.testing.assert_array_equal(words[:, 4], FULL)
        np.testing.assert_array_equal(words[:, 5], [(1 << k) - 1 for k in range(32)])
        shifted = np.concatenate([x[lanes][:3], x[lanes][:-3]])
        np.testing.assert_array_equal(got[:, 6], shifted)


@cuda.jit
def count_and_or(x, out):
    i = cuda.grid(1)
    p = 1 if x[i] > 0 else 0
    out[i, 0] = cuda.syncthreads_count(p)
    out[i, 1] = cuda.syncthreads_and(p)
    out[i, 2] = cuda.syncthreads_or(p)


def test_syncthreads_count_and_or(rng):
    x = rng.integers(-3, 2, 4 * 100).astype(np.int32)
    x[300:400] = 1          # the last block: all true
    x[200:300] = -1         # the third: all false
    out = np.zeros((400, 3), np.int32)
    count_and_or[4, 100](x, out)
    for block in range(4):
        p = x[block * 100:(block + 1) * 100] > 0
        np.testing.assert_array_equal(out[block * 100:(block + 1) * 100],
                                      np.tile([p.sum(), p.all(), p.any()], (100, 1)))


@cuda.jit
def syncwarp_exchange(x, out):
    s = cuda.shared.array(64, types.int32)
    t = cuda.threadIdx.x
    s[t] = x[t] * 2
    cuda.syncwarp(FULL)
    out[t] = s[t ^ 1]


def test_syncwarp_shared_exchange(rng):
    x = rng.integers(0, 1000, 64).astype(np.int32)
    out = np.zeros_like(x)
    syncwarp_exchange[1, 64](x, out)
    np.testing.assert_array_equal(out, (x * 2)[np.arange(64) ^ 1])


# --- arrays: dimensions, views, layouts ------------------------------------------------------

@cuda.jit
def scale_2d(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * 3 + i - j


@cuda.jit
def stencil_3d(a, out):
    i, j, k = cuda.grid(3)
    if i < a.shape[0] and j < a.shape[1] and k < a.shape[2]:
        out[i, j, k] = a[i, j, k] + 10 * i + 100 * j + 1000 * k + a.strides[2]


def expected_2d(a):
    i, j = np.indices(a.shape)
    return a * 3 + i - j


def launch_2d(a, out):
    scale_2d[((a.shape[0] + 7) // 8, (a.shape[1] + 7) // 8), (8, 8)](a, out)


@pytest.mark.parametrize("view", [
    lambda a: a,
    lambda a: a[::2, 1:],
    lambda a: a[1:, ::3],
    lambda a: a.T,
    lambda a: a[::-1, 2:7],
    lambda a: a[3],
], ids=["whole", "step_rows", "step_cols", "transpose", "negative_step", "row"])
def test_device_views_2d(rng, view):
    host = rng.integers(-100, 100, (20, 13)).astype(np.int64)
    device = cuda.to_device(host)
    v, hv = view(device), view(host)
    if v.ndim == 1:
        return  # a row: covered by the 1-D kernels
    out = cuda.device_array(v.shape, np.int64)
    launch_2d(v, out)
    np.testing.assert_array_equal(out.copy_to_host(), expected_2d(hv))


def test_host_view_arguments_are_copied_back(rng):
    host = rng.integers(-100, 100, (16, 12)).astype(np.int32)
    view_in = host[::2, 1:]
    out_host = np.zeros((16, 12), np.int32)
    out_view = out_host[::2, 1:]        # a non-contiguous host view written by the kernel
    launch_2d(view_in, out_view)
    np.testing.assert_array_equal(out_view, expected_2d(view_in))
    assert (out_host[1::2] == 0).all() and (out_host[:, 0] == 0).all()


def test_fortran_order_and_warpsim_arrays(rng):
    host = np.asfortranarray(rng.integers(0, 50, (9, 7)).astype(np.int32))
    out = warpsim.zeros((9, 7), np.int32)   # a CuPy-style warpsim array works as well
    launch_2d(cuda.to_device(host), out)
    np.testing.assert_array_equal(out.get(), expected_2d(host))


@pytest.mark.parametrize("shape, view", [
    ((6, 5, 20), lambda a: a),
    ((6, 5, 20), lambda a: a[:, ::2, 1::3]),
    ((6, 5, 20), lambda a: a.transpose(2, 0, 1)),
])
def test_3d_arrays(rng, shape, view):
    host = rng.standard_normal(shape)
    v = view(cuda.to_device(host))
    hv = view(host)
    out = cuda.device_array(hv.shape, np.float64)
    grid = tuple((d + 3) // 4 for d in hv.shape)
    stencil_3d[grid, (4, 4, 4)](v, out)
    i, j, k = np.indices(hv.shape)
    expected = hv + 10 * i + 100 * j + 1000 * k + hv.strides[2]
    np.testing.assert_array_equal(out.copy_to_host(), expected)


# --- memory spaces --------------------------------------------------------------------------

@cuda.jit
def reverse_in_block_static(x, out):
    s = cuda.shared.array(128, types.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncthreads()
    out[i] = s[cuda.blockDim.x - 1 - t]


@cuda.jit
def reverse_in_block_dynamic(x, out):
    s = cuda.shared.array(0, types.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncthreads()
    out[i] = s[cuda.blockDim.x - 1 - t]


@pytest.mark.parametrize("kernel, shared", [(reverse_in_block_static, 0),
                                            (reverse_in_block_dynamic, 128 * 4)])
def test_shared_memory(rng, kernel, shared):
    x = rng.integers(0, 10 ** 6, 512).astype(np.int32)
    out = np.zeros_like(x)
    kernel[4, 128, 0, shared](x, out)
    np.testing.assert_array_equal(out.reshape(4, 128), x.reshape(4, 128)[:, ::-1])


@cuda.jit
def local_shuffle(x, out):
    i = cuda.grid(1)
    scratch = cuda.local.array(16, types.int64)
    for k in range(16):
        scratch[k] = x[i] * (k + 1)
    total = 0
    for k in range(16):
        total += scratch[(k * 7 + i) % 16] * k
    out[i] = total


def test_local_arrays(rng):
    x = rng.integers(-50, 50, 200).astype(np.int64)
    out = np.zeros_like(x)
    local_shuffle[2, 100](x, out)
    i = np.arange(200)
    expected = sum(x * (((k * 7 + i) % 16) + 1) * k for k in range(16))
    np.testing.assert_array_equal(out, expected)


TABLE = np.arange(32, dtype=np.int32) ** 2


@cuda.jit
def lookup(x, out):
    table = cuda.const.array_like(TABLE)
    i = cuda.grid(1)
    out[i] = table[x[i] % 32]


def test_const_memory(rng):
    x = rng.integers(0, 1000, 64).astype(np.int32)
    out = np.zeros_like(x)
    lookup[1, 64](x, out)
    np.testing.assert_array_equal(out, TABLE[x % 32])


@cuda.jit
def atomics(x, acc, hist):
    i = cuda.grid(1)
    v = x[i]
    cuda.atomic.add(acc, 0, v)
    cuda.atomic.max(acc, 1, v)
    cuda.atomic.min(acc, 2, v)
    cuda.atomic.and_(acc, 3, v)
    cuda.atomic.or_(acc, 4, v)
    cuda.atomic.xor(acc, 5, v)
    cuda.atomic.add(hist, v % 8, 1)
    cuda.atomic.compare_and_swap(acc[6:], 0, i + 1)  # the first thread to get there wins


def test_atomics(rng):
    x = rng.integers(1, 1 << 20, 1000).astype(np.int32)
    acc = np.array([0, -(1 << 30), 1 << 30, -1, 0, 0, 0], np.int32)
    hist = np.zeros(8, np.int32)
    atomics[4, 250](x, acc, hist)
    assert acc[0] == x.sum()
    assert acc[1] == x.max() and acc[2] == x.min()
    assert acc[3] == np.bitwise_and.reduce(x) and acc[4] == np.bitwise_or.reduce(x)
    assert acc[5] == np.bitwise_xor.reduce(x)
    assert 1 <= acc[6] <= 1000
    np.testing.assert_array_equal(hist, np.bincount(x % 8, minlength=8))


@cuda.jit
def float_atomics(x, acc):
    i = cuda.grid(1)
    cuda.atomic.add(acc, 0, x[i])
    cuda.atomic.max(acc, 1, x[i])
    cuda.atomic.min(acc, 2, x[i])


def test_float_atomics(rng):
    x = rng.standard_normal(512)
    acc = np.array([0.0, -np.inf, np.inf])
    float_atomics[2, 256](x, acc)
    np.testing.assert_allclose(acc[0], x.sum(), rtol=1e-12)
    assert acc[1] == x.max() and acc[2] == x.min()


# --- device functions, fp16, scalars, records -------------------------------------------------

@cuda.jit(device=True)
def clamp(v, low, high):
    return min(max(v, low), high)


@cuda.jit("int32(int32, int32)", device=True)
def mix(a, b):
    return (a * 31) ^ b


@cuda.jit(device=True)
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@cuda.jit
def uses_device_functions(x, out):
    i = cuda.grid(1)
    out[i, 0] = clamp(x[i], 10, 90)
    out[i, 1] = mix(x[i], i)
    out[i, 2] = collatz_steps(x[i] + 1)


def test_device_functions(rng):
    x = rng.integers(0, 100, 96).astype(np.int32)
    out = np.zeros((96, 3), np.int32)
    uses_device_functions[3, 32](x, out)

    def steps(n):
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        return count
    np.testing.assert_array_equal(out[:, 0], np.clip(x, 10, 90))
    np.testing.assert_array_equal(out[:, 1], (x * 31) ^ np.arange(96))
    np.testing.assert_array_equal(out[:, 2], [steps(int(v) + 1) for v in x])


@cuda.jit
def saxpy_kernel(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def calls_a_kernel(a, x, y, out):
    saxpy_kernel(a, x, y, out)  # numba-cuda lets a kernel be called as a device function


def test_kernel_called_as_device_function(rng):
    x, y = rng.standard_normal(64), rng.standard_normal(64)
    out = np.zeros(64)
    calls_a_kernel[1, 64](2.5, x, y, out)
    np.testing.assert_allclose(out, 2.5 * x + y, rtol=1e-15)


@cuda.jit
def half_math(a, b, out):
    i = cuda.grid(1)
    out[i] = cuda.fp16.hfma(a[i], b[i], cuda.fp16.hadd(a[i], b[i]))


@cuda.jit
def half_arith(a, b, out):
    i = cuda.grid(1)
    out[i] = a[i] * b[i] - a[i]


def test_fp16(rng):
    a = rng.uniform(-4, 4, 64).astype(np.float16)
    b = rng.uniform(-4, 4, 64).astype(np.float16)
    out = np.zeros(64, np.float16)
    half_math[2, 32](a, b, out)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    summed = (a32 + b32).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(out, (a32 * b32 + summed).astype(np.float16))  # fma: one rounding
    half_arith[2, 32](a, b, out)
    product = (a32 * b32).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(out, (product - a32).astype(np.float16))


@cuda.jit
def scalars(out, small, big, flag, f32, f64, z, pair):
    out[0] = small
    out[1] = big
    out[2] = 1.0 if flag else 0.0
    out[3] = f32
    out[4] = f64
    out[5] = z.real
    out[6] = z.imag
    out[7] = pair[0] + pair[1]


def test_scalar_arguments():
    out = np.zeros(8)
    scalars[1, 1](out, np.int8(-7), 2 ** 40 + 3, True, np.float32(1.5), -2.25, 3 - 4j, (10, 0.5))
    np.testing.assert_array_equal(out, [-7, 2 ** 40 + 3, 1, 1.5, -2.25, 3, -4, 10.5])


RECORD = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.int16)], align=True)


@cuda.jit
def record_kernel(records, single, out):
    i = cuda.grid(1)
    records[i].b = records[i].a * 2.5 + single.c
    out[i] = records[i].c + single.a


def test_records(rng):
    records = np.zeros(40, RECORD)
    records["a"] = rng.integers(0, 100, 40)
    records["c"] = rng.integers(-50, 50, 40)
    single = np.zeros(1, RECORD)[0]
    single["a"], single["c"] = 7, 3
    out = np.zeros(40, np.int64)
    record_kernel[1, 40](records, single, out)
    np.testing.assert_array_equal(records["b"], records["a"] * 2.5 + 3)
    np.testing.assert_array_equal(out, records["c"] + 7)


# --- the host API -----------------------------------------------------------------------------

@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_device_array_api(rng):
    host = rng.integers(0, 100, 50).astype(np.int32)
    d = cuda.to_device(host)
    assert isinstance(d, cuda.DeviceNDArray) and isinstance(d, warpsim.ndarray)
    add_one[1, 64](d)
    np.testing.assert_array_equal(d.copy_to_host(), host + 1)
    assert d[3] == host[3] + 1 and isinstance(d[3], np.integer)   # an element comes to the host
    target = np.empty_like(host)
    assert d.copy_to_host(target) is target
    like = cuda.device_array_like(host)
    like.copy_to_device(d)
    np.testing.assert_array_equal(np.asarray(like), host + 1)
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(host)
    assert d.__cuda_array_interface__["stream"] is None
    pieces = d.split(20)
    assert [p.size for p in pieces] == [20, 20, 10]


def test_in_out_hints(rng):
    host = rng.integers(0, 100, 40).astype(np.int32)
    copy = host.copy()
    add_one[1, 64](cuda.In(host))            # copied in, not back
    np.testing.assert_array_equal(host, copy)
    add_one[1, 64](cuda.InOut(host))
    np.testing.assert_array_equal(host, copy + 1)
    add_one[1, 64](host)                      # plain host arrays: in and back out
    np.testing.assert_array_equal(host, copy + 2)


def test_explicit_signatures_and_specialization(rng):
    @cuda.jit(["void(int32[:], int32)", "void(float64[:], float64)"])
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    ints = np.zeros(10, np.int32)
    fill[1, 32](ints, 7)                      # int64 converts to int32
    assert (ints == 7).all()
    floats = np.zeros(10)
    fill[1, 32](floats, 2.5)
    assert (floats == 2.5).all()
    assert len(fill.signatures) == 2
    with pytest.raises(TypeError, match="No matching definition"):
        fill[1, 32](np.zeros(10, np.complex128), 1j)

    specialized = add_one.specialize(np.zeros(3, np.int64))
    assert specialized.specialized and len(specialized.overloads) == 1
    assert ".entry" in next(iter(specialized.inspect_asm().values()))


def test_forall_and_dispatch_cache():
    @cuda.jit
    def square(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    ints = np.arange(300, dtype=np.int64)
    square.forall(300)(ints)
    np.testing.assert_array_equal(ints, np.arange(300) ** 2)
    square.forall(300)(ints[:10])
    floats = np.arange(5, dtype=np.float32)
    square[1, 32](floats)
    assert len(square.overloads) == 2         # one per signature, reused


def test_device_and_context_report_a_simulated_gpu():
    device = cuda.get_current_device()
    assert device.compute_capability == (9, 0)
    assert device.WARP_SIZE == 32 and device.MAX_THREADS_PER_BLOCK == 1024
    assert cuda.is_available() and len(cuda.gpus) == 1
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total
    start, end = cuda.event(), cuda.event()
    start.record()
    end.record()
    assert cuda.event_elapsed_time(start, end) >= 0
    with cuda.stream().auto_synchronize():
        cuda.synchronize()


# --- errors point at the Python kernel ---------------------------------------------------------

@cuda.jit
def writes_past_the_end(a, n):
    i = cuda.grid(1)
    a[i + n] = 1


def test_memory_fault_names_the_python_line():
    a = cuda.device_array(64, np.int32)
    with pytest.raises(MemoryFault) as caught:
        writes_past_the_end[1, 64](a, 1 << 20)
    message = str(caught.value)
    assert f"{os.path.abspath(__file__)}:" in message and "a[i + n] = 1" in message
    assert "writes_past_the_end(array(int32, 1d, C), int64)" in message
    assert caught.value.source_line.startswith(os.path.abspath(__file__))


@cuda.jit
def early_exit_then_shuffle(a):
    i = cuda.grid(1)
    if i % 32 >= 16:
        return
    a[i] = cuda.shfl_down_sync(FULL, a[i], 1)


def test_warp_sync_with_exited_lanes_is_reported():
    from warpsim.machine.device import SyncWarning
    a = np.arange(32, dtype=np.int32)
    with pytest.warns(SyncWarning) as caught:
        early_exit_then_shuffle[1, 32](a)
    sync = [w for w in caught if issubclass(w.category, SyncWarning)][0]
    message = str(sync.message)
    assert "early_exit_then_shuffle(array(int32, 1d, C))" in message
    assert "exited" in message and f"{os.path.abspath(__file__)}:" in message
    assert sync.filename == __file__


def test_debug_mode_raises_the_kernel_exception():
    @cuda.jit(debug=True, opt=False)
    def checked(a):
        i = cuda.grid(1)
        if a[i] < 0:
            raise ValueError("negative input")
        a[i] = a[i] * 2

    a = np.arange(64, dtype=np.int32)
    a[41] = -5
    with pytest.raises(ValueError, match=r"tid=\[0, 0, 9\] ctaid=\[0, 0, 1\]: negative input"):
        checked[2, 32](a)


def test_launch_bounds_refuse_a_bigger_block():
    @cuda.jit(launch_bounds=64)
    def bounded(a):
        a[cuda.grid(1)] = 1

    bounded[1, 64](np.zeros(64, np.int32))
    with pytest.raises(LaunchError, match="CUDA_ERROR_INVALID_VALUE"):
        bounded[1, 128](np.zeros(128, np.int32))


def test_unconfigured_launch_is_refused():
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        add_one(np.zeros(3))


# --- running an unchanged Numba program -----------------------------------------------------------

PROGRAM = textwrap.dedent('''
    import sys
    import numpy as np
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @cuda.jit
    def scale(a, factor):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= factor

    @cuda.jit
    def uniforms(states, out):
        i = cuda.grid(1)
        out[i] = xoroshiro128p_uniform_float32(states, i)

    assert cuda.is_available()
    a = np.arange(100, dtype=np.int64)
    d = cuda.to_device(a)
    scale[1, 128](d, 3)
    assert (d.copy_to_host() == a * 3).all()
    states = create_xoroshiro128p_states(64, seed=7)
    out = cuda.device_array(64, np.float32)
    uniforms[1, 64](states, out)
    u = out.copy_to_host()
    assert ((0 <= u) & (u < 1)).all() and len(set(u.tolist())) > 60
    print("ran on", cuda.get_current_device().name, sys.argv[1:])
    sys.exit(5)
''')


def test_run_script_runs_an_unchanged_numba_program(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    result = subprocess.run([sys.executable, "-m", "warpsim.cli.run", "python",
                             str(script), "--flag"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 5, result.stderr
    assert "ran on warpsim simulated GPU" in result.stdout and "['--flag']" in result.stdout


def test_warpsim_run_redirects_numba_cuda_when_the_program_imports_it():
    """numba-cuda is not imported for a program that does not use it; imported later, its host API
    is warpsim's."""
    code = ("import sys; print('numba.cuda' in sys.modules); from numba import cuda; "
            "print(cuda.jit.__module__, cuda.is_available())")
    result = subprocess.run([sys.executable, "-m", "warpsim", "run", "python", "-c", code],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "warpsim.cuda.dispatcher", "True"]


def test_numba_on_warpsim_restores_numba_cuda():
    import numba.cuda as numba_cuda
    from warpsim.cli.run import numba_on_warpsim
    original = numba_cuda.jit
    with numba_on_warpsim() as patched:
        assert patched.jit is cuda.jit and patched.to_device is cuda.to_device
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert isinstance(numba_cuda.jit(lambda a: None), cuda.Dispatcher)
    assert numba_cuda.jit is original


def test_run_script_runs_an_unchanged_cupy_program(tmp_path, capsys):
    from warpsim.cli.run import run_script
    script = tmp_path / "cupy_program.py"
    script.write_text(
        "import numpy as np\n"
        "import cupy as cp\n"
        "k = cp.RawKernel(r'''extern \"C\" __global__ void twice(const int* x, int* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }''', 'twice')\n"
        "x = cp.asarray(np.arange(100, dtype=np.int32)); y = cp.zeros_like(x)\n"
        "k((1,), (128,), (x, y, np.int32(100)))\n"
        "cp.cuda.Device().synchronize()\n"
        "assert (y.get() == 2 * np.arange(100)).all()\n"
        "print('simulated by', cp.__name__)\n")
    assert run_script(["python", str(script)]) == 0
    assert "simulated by warpsim" in capsys.readouterr().out
    import sys
    assert sys.modules.get("cupy") is None or sys.modules["cupy"].__name__ != "warpsim"
