"""Three SASS forms the program sweep found refused (docs/sass.md, "A sweep of whole programs"):
FMUL with a result scale (kurtosis, projectile), FRND.F16/.BF16 (mxfp4) and ATOM.E.ADD.F16x2/.BF16x2
through a generic pointer, with ptxas's QSPC and shared-memory fallback (f16atomic).

Each kernel is compiled by NVRTC, its SASS checked for the form, and run on the PTX machine with
the SASS beside it (warpsim.sass.replay): the two must write the same bytes, and the output must
match NumPy on random inputs. FMUL's scale rounds once where rounding twice would differ (a
subnormal result, a product that overflows before .D2); the PTX run rounds the two multiplies
one after the other, so those inputs run on the SASS executor alone, against NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim.profiler import Profiler
from warpsim.sass import sass_of
from warpsim.sass.replay import ReplayRequest

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define SCALED(name, mul, scale)                                                        \
    __device__ __forceinline__ float name(float a, float b) {                          \
        float p, r;                                                                     \
        asm(mul " %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));                             \
        asm(mul " %0, %1, " scale ";" : "=f"(r) : "f"(p));                              \
        return r;                                                                       \
    }
SCALED(half_of, "mul.f32", "0f3F000000")
SCALED(twice, "mul.f32", "0f40000000")
SCALED(eighth_of, "mul.f32", "0f3E000000")
SCALED(four_times, "mul.f32", "0f40800000")
SCALED(half_of_ftz, "mul.ftz.f32", "0f3F000000")
SCALED(twice_ftz, "mul.ftz.f32", "0f40000000")

extern "C" __global__ void scaled_products(const float* x, const float* y, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i], b = y[i];
    out[6 * i + 0] = half_of(a, b);         // FMUL.D2
    out[6 * i + 1] = twice(a, b);           // FMUL.M2
    out[6 * i + 2] = eighth_of(a, b);       // FMUL.D8
    out[6 * i + 3] = four_times(a, b);      // FMUL.M4
    out[6 * i + 4] = half_of_ftz(a, b);     // FMUL.FTZ.D2
    out[6 * i + 5] = twice_ftz(a, b);       // FMUL.FTZ.M2
}
extern "C" __global__ void rounded_halves(const __half* h, const __nv_bfloat16* b, const __half2* h2,
                                          const __nv_bfloat162* b2, __half* oh, __nv_bfloat16* ob,
                                          __half2* oh2, __nv_bfloat162* ob2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    oh[4 * i + 0] = hrint(h[i]);  oh[4 * i + 1] = htrunc(h[i]);     // FRND.F16, FRND.F16.TRUNC
    oh[4 * i + 2] = hceil(h[i]);  oh[4 * i + 3] = hfloor(h[i]);     // FRND.F16.CEIL, .FLOOR
    ob[4 * i + 0] = hrint(b[i]);  ob[4 * i + 1] = htrunc(b[i]);     // FRND.BF16 ...
    ob[4 * i + 2] = hceil(b[i]);  ob[4 * i + 3] = hfloor(b[i]);
    oh2[2 * i + 0] = h2rint(h2[i]);  oh2[2 * i + 1] = h2floor(h2[i]);  // FRND.F16 R, R.H1
    ob2[2 * i + 0] = h2ceil(b2[i]);  ob2[2 * i + 1] = h2trunc(b2[i]);  // FRND.BF16.CEIL R.H1
}
extern "C" __global__ void add_pairs(__half2* h, __nv_bfloat162* b, const __half2* x, const __nv_bfloat162* y,
                                     int words) {
    __shared__ __half2 sh[64];
    __shared__ __nv_bfloat162 sb[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x;
    if (t < 64) { sh[t] = h[64 * blockIdx.x + t]; sb[t] = b[64 * blockIdx.x + t]; }
    __syncthreads();
    atomicAdd(&h[i % words], x[i]);         // ATOM.E.ADD.F16x2 P, RZ, [generic]: global
    atomicAdd(&b[i % words], y[i]);         // ATOM.E.ADD.BF16x2
    atomicAdd(&sh[t & 63], x[i]);           // the same, at shared addresses: QSPC.E.S, ATOMS.CAST.SPIN
    atomicAdd(&sb[t & 63], y[i]);
    __syncthreads();
    if (t < 64) { h[words + 64 * blockIdx.x + t] = sh[t]; b[words + 64 * blockIdx.x + t] = sb[t]; }
}
extern "C" __global__ void add_pairs_old(__half2* h, __nv_bfloat162* b, const __half2* x, const __nv_bfloat162* y,
                                         __half2* old_h, __nv_bfloat162* old_b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    old_h[i] = atomicAdd(&h[i], x[i]);      // ATOM.E.ADD.F16x2 P, Rd: one lane a word, the old value back
    old_b[i] = atomicAdd(&b[i], y[i]);
}
"""

RNG = np.random.default_rng(20260611)


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE)


def sass_texts(module, name):
    return [ins.text for ins in sass_of(module.get_function(name).loaded_module).kernel(name).instructions]


def run_beside(module, name, grid, block, args):
    """Launch on the PTX machine with a SASS run beside it; the run must stay at SASS level."""
    with ReplayRequest() as request:
        module.get_function(name)(grid, block, args)
        (launch, replay), = request._replays.values()
        outcome = replay.outcome()
    assert outcome.level == "sass", outcome.note
    return outcome


def run_sass_alone(module, name, grid, block, args):
    with cp.settings(sass_verify=False), Profiler(level="sass") as profiler:
        module.get_function(name)(grid, block, args)
    assert profiler[0].level == "sass", profiler[0].level_note


def bf16(values):
    """float32 values -> bf16 bits, rounded to nearest even."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


# ------------------------------------------------------------------ FMUL.D2 / .M2 ...

SCALES = (0.5, 2.0, 0.125, 4.0, 0.5, 2.0)
FTZ = (False, False, False, False, True, True)


def flushed(v):
    return np.where(np.abs(v) < np.float32(2.0 ** -126), np.copysign(np.float32(0), v), v).astype(np.float32)


def scaled_reference(x, y):
    """(n, 6) f32: the exact product times each scale rounded once; .ftz flushes operands and results,
    and a result that reached the smallest normal only by rounding on the subnormal grid."""
    columns = []
    for scale, ftz in zip(SCALES, FTZ):
        a, b = (flushed(v) if ftz else v for v in (x, y))
        exact = a.astype(np.float64) * b * scale
        r = exact.astype(np.float32)
        if ftz:
            tiny = np.abs((exact * 2.0 ** 64).astype(np.float32)) < np.float32(2.0 ** -62)
            r = np.where(tiny, np.copysign(np.float32(0), r), flushed(r))
        columns.append(r)
    return np.stack(columns, axis=1)


def test_the_kernel_has_each_scaled_fmul(module):
    texts = sass_texts(module, "scaled_products")
    for form in ("FMUL.D2 ", "FMUL.M2 ", "FMUL.D8 ", "FMUL.M4 ", "FMUL.FTZ.D2 ", "FMUL.FTZ.M2 "):
        assert any(t.startswith(form) for t in texts), form


def test_scaled_fmul_beside_the_ptx_run():
    """Normal-range products, where rounding once and twice agree: the PTX run's bytes and NumPy's."""
    module = cp.RawModule(code=SOURCE)
    n = 512
    x = (RNG.standard_normal(n) * np.exp2(RNG.integers(-30, 30, n))).astype(np.float32)
    y = (RNG.standard_normal(n) * np.exp2(RNG.integers(-30, 30, n))).astype(np.float32)
    out = cp.zeros(6 * n, dtype=np.float32)
    run_beside(module, "scaled_products", (n // 128,), (128,), (cp.asarray(x), cp.asarray(y), out))
    with np.errstate(all="ignore"):
        want = scaled_reference(x, y)
    np.testing.assert_array_equal(out.get().reshape(n, 6).view(np.uint32), want.view(np.uint32))


def test_scaled_fmul_rounds_once_in_the_subnormal_range_and_past_overflow(module):
    """Products whose scaled result is subnormal, near the smallest normal, or past f32's largest
    (2^127 * 2 * .D2 is 2^127, not inf): the SASS run alone, against the product rounded once."""
    n = 1024
    total = np.concatenate([RNG.integers(-152, -122, n - 256), RNG.integers(126, 129, 256)])
    ea = total // 2 + RNG.integers(-20, 20, n)
    x = ((1 + RNG.random(n)) * RNG.choice([-1, 1], n) * np.exp2(ea)).astype(np.float32)
    y = ((1 + RNG.random(n)) * RNG.choice([-1, 1], n) * np.exp2(total - ea)).astype(np.float32)
    out = cp.zeros(6 * n, dtype=np.float32)
    run_sass_alone(module, "scaled_products", (n // 128,), (128,), (cp.asarray(x), cp.asarray(y), out))
    with np.errstate(all="ignore"):
        want = scaled_reference(x, y)
        twice = (x * y) * np.float32(0.5)
    got = out.get().reshape(n, 6)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert (got[:, 0] != twice).sum() > 100                 # inputs where the rule matters
    assert np.isfinite(got[n - 256:, 0]).any() and np.isinf(twice[n - 256:]).any()


# ------------------------------------------------------------------ FRND.F16 / .BF16

def random_halves(n):
    """f32 values for halves: fractions, ties (k + 0.5), integers, large and tiny magnitudes."""
    v = RNG.standard_normal(n) * np.exp2(RNG.integers(-4, 12, n))
    v[: n // 8] = RNG.integers(-40, 40, n // 8) + 0.5
    v[n // 8: n // 4] = RNG.integers(-100, 100, n // 8)
    v[n // 4: n // 4 + 6] = [np.inf, -np.inf, 0.0, -0.0, 1e-6, -0.3]
    return v.astype(np.float32)


def test_the_kernel_has_each_frnd_of_halves(module):
    texts = sass_texts(module, "rounded_halves")
    for form in ("FRND.F16 ", "FRND.F16.TRUNC ", "FRND.F16.CEIL ", "FRND.F16.FLOOR ", "FRND.BF16 ",
                 "FRND.BF16.TRUNC ", "FRND.BF16.CEIL ", "FRND.BF16.FLOOR "):
        assert any(t.startswith(form) for t in texts), form
    assert any(t.startswith("FRND.F16") and t.rstrip(" ;").endswith(".H1") for t in texts)
    assert any(t.startswith("FRND.BF16") and t.rstrip(" ;").endswith(".H1") for t in texts)


def test_frnd_of_halves_beside_the_ptx_run(module):
    n = 256
    h = random_halves(n).astype(np.float16)
    b = bf16(random_halves(n))
    h2 = random_halves(2 * n).astype(np.float16)
    b2 = bf16(random_halves(2 * n))
    oh, ob = cp.zeros(4 * n, dtype=np.float16), cp.zeros(4 * n, dtype=np.uint16)
    oh2, ob2 = cp.zeros(4 * n, dtype=np.float16), cp.zeros(4 * n, dtype=np.uint16)
    run_beside(module, "rounded_halves", (n // 128,), (128,),
               tuple(cp.asarray(a) for a in (h, b, h2, b2)) + (oh, ob, oh2, ob2))
    rounding = (np.rint, np.trunc, np.ceil, np.floor)
    want_h = np.stack([f(h) for f in rounding], axis=1).ravel()
    want_b = np.stack([bf16(f(from_bf16(b))) for f in rounding], axis=1).ravel()
    np.testing.assert_array_equal(oh.get().view(np.uint16), want_h.view(np.uint16))
    np.testing.assert_array_equal(ob.get(), want_b)
    pairs_h, pairs_b = h2.reshape(n, 2), from_bf16(b2).reshape(n, 2)
    want_h2 = np.stack([np.rint(pairs_h), np.floor(pairs_h)], axis=1).ravel()
    want_b2 = np.stack([bf16(np.ceil(pairs_b)), bf16(np.trunc(pairs_b))], axis=1).ravel()
    np.testing.assert_array_equal(oh2.get().view(np.uint16), want_h2.view(np.uint16))
    np.testing.assert_array_equal(ob2.get(), want_b2)


# ------------------------------------------------------------------ ATOM.E.ADD.F16x2 / .BF16x2

def test_the_kernels_have_the_generic_packed_half_atomics(module):
    texts = sass_texts(module, "add_pairs")
    for form in ("ATOM.E.ADD.F16x2.RN", "ATOM.E.ADD.BF16x2.RN", "QSPC.E.S", "ATOMS.CAST.SPIN"):
        assert any(t.startswith(form) for t in texts), form
    assert any(t.startswith("ATOM.E.ADD.F16x2") and ", RZ, " not in t for t in sass_texts(module, "add_pairs_old"))


def test_packed_half_atomics_at_global_and_shared_addresses(module):
    """Many lanes a word, addends of quarters whose every partial sum is exact in f16 and bf16: the
    final words do not depend on the order lanes are served (the PTX and SASS runs' may differ)."""
    blocks, block, words = 2, 256, 96
    n = blocks * block
    x = (RNG.integers(-8, 9, 2 * n) * 0.25).astype(np.float16)
    y = bf16(RNG.integers(-8, 9, 2 * n) * 0.25)
    start_h = (RNG.integers(-64, 64, 2 * (words + 64 * blocks)) * 0.5).astype(np.float16)
    start_b = bf16(RNG.integers(-64, 64, 2 * (words + 64 * blocks)) * 0.5)
    h, b = cp.asarray(start_h), cp.asarray(start_b)
    start_h[2 * words:] = start_h[:2 * 64 * blocks]              # the CTAs' shared words start as h[64 c + t]
    start_b[2 * words:] = start_b[:2 * 64 * blocks]
    run_beside(module, "add_pairs", (blocks,), (block,), (h, b, cp.asarray(x), cp.asarray(y), np.int32(words)))
    lanes = np.arange(n)
    want_h, want_b = start_h.astype(np.float64), from_bf16(start_b).astype(np.float64)
    for half in (0, 1):
        np.add.at(want_h, 2 * (lanes % words) + half, x[2 * lanes + half])
        np.add.at(want_b, 2 * (lanes % words) + half, from_bf16(y[2 * lanes + half]))
        shared = 2 * (words + 64 * (lanes // block) + (lanes % block) % 64) + half
        np.add.at(want_h, shared, x[2 * lanes + half])
        np.add.at(want_b, shared, from_bf16(y[2 * lanes + half]))
    np.testing.assert_array_equal(h.get(), want_h.astype(np.float16))
    np.testing.assert_array_equal(b.get(), bf16(want_b))


def test_packed_half_atomics_round_each_half_and_return_the_old_word(module):
    """One lane a word, random halves: each half's sum rounded to nearest in its type, the old word back."""
    n = 256
    start_h = (RNG.standard_normal(2 * n) * 100).astype(np.float16)
    start_b = bf16(RNG.standard_normal(2 * n) * 100)
    x = (RNG.standard_normal(2 * n) * np.exp2(RNG.integers(-12, 4, 2 * n))).astype(np.float16)
    y = bf16(RNG.standard_normal(2 * n) * np.exp2(RNG.integers(-12, 4, 2 * n)))
    h, b = cp.asarray(start_h), cp.asarray(start_b)
    old_h, old_b = cp.zeros(2 * n, dtype=np.float16), cp.zeros(2 * n, dtype=np.uint16)
    run_beside(module, "add_pairs_old", (n // 128,), (128,), (h, b, cp.asarray(x), cp.asarray(y), old_h, old_b))
    np.testing.assert_array_equal(old_h.get(), start_h)
    np.testing.assert_array_equal(old_b.get(), start_b)
    np.testing.assert_array_equal(h.get(), (start_h.astype(np.float64) + x).astype(np.float16))
    np.testing.assert_array_equal(b.get(), bf16(from_bf16(start_b).astype(np.float64) + from_bf16(y)))
