"""Opcodes the SASS executor gained for the repo's corpora (validation/sass_coverage): real kernels
through NVRTC and ptxas, random inputs, a SASS run beside each PTX run.

Each test checks that the launch's SASS has the instruction under test, that the SASS run wrote
exactly what the PTX run wrote (the replay's level is 'sass'), that a profile of the launch is at
SASS level, and that every output element matches a NumPy reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.profiler import Profiler
from warpsim.sass import sass_for_ptx
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void to_16_bit_pairs(const float* x, __half2* h, __nv_bfloat16* b, __nv_bfloat162* b2,
                                           __half2* hz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float lo = x[2 * i], hi = x[2 * i + 1];
    h[i] = __floats2half2_rn(lo, hi);
    b[i] = __float2bfloat16(lo);
    b2[i] = __floats2bfloat162_rn(lo, hi);
    hz[i] = __halves2half2(__float2half_rz(lo), __float2half_rz(hi));
}
extern "C" __global__ void udivmod(const unsigned* a, const unsigned* b, unsigned* q, unsigned* r,
                                   const unsigned long long* a64, const unsigned long long* b64,
                                   unsigned long long* q64, int* s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
    q64[i] = a64[i] / b64[i] + a64[i] % b64[i];
    s[i] = (int)a[i] % (int)(b[i] | 1) - (int)a[i] / -(int)(b[i] | 1);
}
extern "C" __global__ void int64_float(const long long* x, float* f, double* d, int* back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = x[i];
    f[2 * i] = (float)v;
    f[2 * i + 1] = (float)(unsigned long long)v;
    d[i] = (double)v;
    back[2 * i] = (int)(d[i] * 1e-9);
    back[2 * i + 1] = __double2int_rz((double)(v >> 40) + 0.75);
}
extern "C" __global__ void first_warp_scan(const int* x, int* out) {
    __shared__ int partial[256];
    int t = threadIdx.x;
    partial[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t < 32) {
        int v = partial[t * 8] + partial[t * 8 + 7];
        for (int o = 1; o < 32; o <<= 1) {
            int u = __shfl_up_sync(0xffffffff, v, o);
            if ((t & 31) >= o) v += u;
        }
        partial[t] = v;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = partial[t & 31] - t;
}
extern "C" __global__ void min_max3(const int* x, int* lo, int* hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = x[3 * i], b = x[3 * i + 1], c = x[3 * i + 2];
    lo[i] = min(min(a, b), c);
    hi[i] = max(max(a, b), c);
}
"""

RNG = np.random.default_rng(20261201)


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def opcodes_of(module, kernel) -> set:
    function = sass_for_ptx(module.ptx).kernel(kernel)
    return {".".join((i.opcode,) + i.mods) for i in function.instructions}


def run_beside(module, name, grid, block, args):
    """Launch with a SASS run beside the PTX run, under a SASS-level profile: (outcome, profile)."""
    with ReplayRequest() as request, Profiler(level="sass") as profiler:
        module.get_function(name)(grid, block, args)
        (_, replay), = request._replays.values()
    outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    assert profiler[0].level == "sass", profiler[0].level_note
    return outcome


def sentinel(n, dtype):
    return cp.asarray(np.full(n, 0x5A if np.dtype(dtype).kind in "iu" else np.nan, dtype=dtype))


def test_unsigned_and_signed_division(module):
    assert {"I2F.U32.RP", "I2F.U64.RP", "IMAD.HI.U32"} <= opcodes_of(module, "udivmod")
    n = 300
    a = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = RNG.integers(1, 1 << 16, n, dtype=np.uint64).astype(np.uint32)
    b[::7] = RNG.integers(1 << 28, 1 << 32, len(b[::7]), dtype=np.uint64).astype(np.uint32)
    b[::11] = 1
    a64 = RNG.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b64 = RNG.integers(1, 1 << 40, n, dtype=np.uint64)
    q, r, q64, s = sentinel(n, np.uint32), sentinel(n, np.uint32), sentinel(n, np.uint64), sentinel(n, np.int32)
    run_beside(module, "udivmod", (3,), (128,), (cp.asarray(a), cp.asarray(b), q, r, cp.asarray(a64),
                                                 cp.asarray(b64), q64, s, np.int32(n)))
    np.testing.assert_array_equal(q.get(), a // b)
    np.testing.assert_array_equal(r.get(), a % b)
    np.testing.assert_array_equal(q64.get(), a64 // b64 + a64 % b64)
    sa, sb = a.view(np.int32).astype(np.int64), (b | 1).view(np.int32).astype(np.int64)
    c_rem = np.sign(sa) * (np.abs(sa) % np.abs(sb))             # C truncates toward zero
    c_div = np.sign(sa) * np.sign(-sb) * (np.abs(sa) // np.abs(sb))
    np.testing.assert_array_equal(s.get(), (c_rem - c_div).astype(np.int32))


def test_int64_to_float_and_back(module):
    assert {"I2F.S64", "I2F.U64", "F2I.F64.TRUNC"} <= opcodes_of(module, "int64_float")
    n = 200
    x = RNG.integers(-(1 << 62), 1 << 62, n, dtype=np.int64)
    x[:4] = [0, -1, (1 << 62) + 12345, -(1 << 53) - 3]
    f, d, back = sentinel(2 * n, np.float32), sentinel(n, np.float64), sentinel(2 * n, np.int32)
    run_beside(module, "int64_float", (2,), (128,), (cp.asarray(x), f, d, back, np.int32(n)))
    out = f.get()
    np.testing.assert_array_equal(out[0::2], x.astype(np.float32))
    np.testing.assert_array_equal(out[1::2], x.view(np.uint64).astype(np.float32))
    np.testing.assert_array_equal(d.get(), x.astype(np.float64))
    ints = back.get()
    scaled = np.trunc(x.astype(np.float64) * 1e-9)
    np.testing.assert_array_equal(ints[0::2], np.clip(scaled, -2**31, 2**31 - 1).astype(np.int32))
    np.testing.assert_array_equal(ints[1::2], np.trunc((x >> 40).astype(np.float64) + 0.75).astype(np.int32))


def test_warp_collective_behind_a_divergence_guard(module):
    assert {"BRA.DIV", "WARPSYNC.COLLECTIVE", "ENDCOLLECTIVE"} <= opcodes_of(module, "first_warp_scan")
    x = RNG.integers(-1000, 1000, 512).astype(np.int32)
    out = sentinel(512, np.int32)
    run_beside(module, "first_warp_scan", (2,), (256,), (cp.asarray(x), out))
    blocks = x.reshape(2, 256)
    sums = np.cumsum(blocks[:, 0::8] + blocks[:, 7::8], axis=1)
    t = np.arange(256)
    expected = sums[:, t & 31] - t
    np.testing.assert_array_equal(out.get(), expected.reshape(-1))


def test_three_way_min_max(module):
    assert "VIMNMX3" in opcodes_of(module, "min_max3")
    n = 250
    x = RNG.integers(-(1 << 31), 1 << 31, 3 * n, dtype=np.int64).astype(np.int32)
    lo, hi = sentinel(n, np.int32), sentinel(n, np.int32)
    run_beside(module, "min_max3", (2,), (128,), (cp.asarray(x), lo, hi, np.int32(n)))
    np.testing.assert_array_equal(lo.get(), x.reshape(n, 3).min(axis=1))
    np.testing.assert_array_equal(hi.get(), x.reshape(n, 3).max(axis=1))


def triton_tutorial_kernels():
    """tests/frontends/triton_kernels.py (Triton's tutorial kernels), loaded by path."""
    import importlib.util
    from pathlib import Path
    pytest.importorskip("triton")
    path = Path(__file__).parents[1] / "frontends" / "triton_kernels.py"
    spec = importlib.util.spec_from_file_location("triton_tutorial_kernels", path)
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    return kernels


@pytest.mark.triton
@pytest.mark.parametrize("arch", [80, 90])
def test_triton_pipelined_softmax_copies_with_cp_async(arch):
    """num_stages=3 software-pipelines rows through LDGSTS (rows past the end zero-fill) and reduces
    through LDSM; on sm_80 parameters and shared memory sit where Ampere has them."""
    from warpsim.api import triton as wt
    kernels = triton_tutorial_kernels()
    rows, cols = 37, 100
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    y = cp.asarray(np.full((rows, cols), np.nan, dtype=np.float32))
    with ReplayRequest() as request, Profiler(level="sass") as profiler:
        compiled = wt.launch(kernels.softmax_kernel, (8,), y, cp.asarray(x), cols, cols, rows, cols,
                             BLOCK_SIZE=128, num_stages=3, num_warps=4, arch=arch)
        (_, replay), = request._replays.values()
    opcodes = {i.opcode for i in sass_for_ptx(compiled.ptx, arch=f"sm_{arch}a" if arch == 90 else f"sm_{arch}")
               .kernel(compiled.name).instructions}
    assert {"LDGSTS", "LDGDEPBAR"} <= opcodes
    outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    assert profiler[0].level == "sass", profiler[0].level_note
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.get(), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even f32 -> bf16 bits (NumPy has no bfloat16)."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def test_f32_to_packed_16_bit_floats(module):
    assert {"F2FP.F16.F32.PACK_AB", "F2FP.BF16.F32.PACK_AB"} <= opcodes_of(module, "to_16_bit_pairs")
    n = 300
    x = (RNG.standard_normal(2 * n) * np.exp2(RNG.integers(-20, 20, 2 * n))).astype(np.float32)
    h, b2, hz = (sentinel(2 * n, np.uint16) for _ in range(3))
    b = sentinel(n, np.uint16)
    run_beside(module, "to_16_bit_pairs", (3,), (128,), (cp.asarray(x), h, b, b2, hz, np.int32(n)))
    with np.errstate(over="ignore"):                        # some beyond f16's range: inf, or 65504 under .RZ
        nearest = x.astype(np.float16)
    np.testing.assert_array_equal(h.get(), nearest.view(np.uint16))
    np.testing.assert_array_equal(b.get(), bf16_bits(x[0::2]))
    np.testing.assert_array_equal(b2.get(), bf16_bits(x))
    toward_zero = np.where(np.abs(nearest.astype(np.float32)) > np.abs(x), np.nextafter(nearest, np.float16(0)),
                           nearest)
    np.testing.assert_array_equal(hz.get(), toward_zero.astype(np.float16).view(np.uint16))


@pytest.mark.triton
@pytest.mark.parametrize("dtype, opcode", [(np.float16, "HMMA.16816.F32"), (np.float32, "HMMA.1688.F32.TF32")])
def test_triton_sm80_matmul_on_tensor_cores(dtype, opcode):
    """Triton's tutorial matmul at sm_80: HMMA (mma.sync) fed by LDGSTS and LDSM, packed by F2FP."""
    import triton
    from warpsim.api import triton as wt
    kernels = triton_tutorial_kernels()
    m = n = k = 64
    a = RNG.standard_normal((m, k)).astype(dtype)
    b = RNG.standard_normal((k, n)).astype(dtype)
    c = cp.asarray(np.full((m, n), np.nan, dtype))
    grid = lambda meta: (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)  # noqa: E731
    with ReplayRequest() as request, Profiler(level="sass") as profiler:
        compiled = wt.launch(kernels.matmul_kernel, grid, cp.asarray(a), cp.asarray(b), c, m, n, k, k, 1, n, 1,
                             n, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2,
                             num_warps=4, num_stages=3, arch=80)
        (_, replay), = request._replays.values()
    function = sass_for_ptx(compiled.ptx, arch="sm_80").kernel(compiled.name)
    assert opcode in {".".join((i.opcode,) + i.mods) for i in function.instructions}
    outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    assert profiler[0].level == "sass", profiler[0].level_note
    if dtype == np.float16:
        want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16).astype(np.float32)
        np.testing.assert_allclose(c.get().astype(np.float32), want, rtol=2e-3, atol=2e-3)
    else:
        tf32 = lambda x: (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)  # noqa: E731
        np.testing.assert_allclose(c.get(), tf32(a) @ tf32(b), rtol=1e-5, atol=1e-4)
