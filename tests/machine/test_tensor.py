"""Warp matrix multiply-accumulate (nvcuda::wmma) on every supported shape and type."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <int M, int N, int K, typename T, typename Acc, typename LayoutB, int LDB>
__device__ void tile(const T* a, const T* b, const Acc* c, Acc* d, Acc scale) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LayoutB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, LDB);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] * scale;
    wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

extern "C" __global__ void f16_16x16x16(const half* a, const half* b, const float* c, float* d) {
    int w = blockIdx.x;
    tile<16, 16, 16, half, float, wmma::col_major, 16>(a + w * 256, b + w * 256, c + w * 256, d + w * 256, 2.0f);
}
extern "C" __global__ void f16_32x8x16(const half* a, const half* b, const float* c, float* d) {
    tile<32, 8, 16, half, float, wmma::row_major, 8>(a, b, c, d, 1.0f);
}
extern "C" __global__ void f16_8x32x16_acc16(const half* a, const half* b, const half* c, half* d) {
    tile<8, 32, 16, half, half, wmma::row_major, 32>(a, b, c, d, __float2half(1.0f));
}
extern "C" __global__ void bf16_16x16x16(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, float* d) {
    tile<16, 16, 16, __nv_bfloat16, float, wmma::row_major, 16>(a, b, c, d, 1.0f);
}
extern "C" __global__ void s8_16x16x16(const signed char* a, const signed char* b, const int* c, int* d) {
    tile<16, 16, 16, signed char, int, wmma::row_major, 16>(a, b, c, d, 1);
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE, options=("-std=c++17",))


def test_f16_with_f32_accumulator_col_major_b_two_warps(module):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 16, 16)).astype(np.float16)
    b = rng.standard_normal((2, 16, 16)).astype(np.float16)      # stored column-major
    c = rng.standard_normal((2, 16, 16)).astype(np.float32)
    d = cp.full((2, 16, 16), np.nan, dtype=cp.float32)
    assert "wmma.mma.sync" in module.ptx
    module.get_function("f16_16x16x16")((2,), (32,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), d))
    ref = 2 * (a.astype(np.float64) @ b.astype(np.float64).transpose(0, 2, 1) + c)
    assert np.allclose(d.get(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel, m, n, k, t, acc", [
    ("f16_32x8x16", 32, 8, 16, np.float16, np.float32),
    ("f16_8x32x16_acc16", 8, 32, 16, np.float16, np.float16),
    ("s8_16x16x16", 16, 16, 16, np.int8, np.int32),
])
def test_shapes_and_types(module, kernel, m, n, k, t, acc):
    rng = np.random.default_rng(2)
    if t == np.int8:
        a, b = (rng.integers(-128, 128, s).astype(np.int8) for s in ((m, k), (k, n)))
        c = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    else:
        a, b = (rng.standard_normal(s).astype(t) for s in ((m, k), (k, n)))
        c = rng.standard_normal((m, n)).astype(acc)
    d = cp.zeros((m, n), dtype=acc)
    module.get_function(kernel)((1,), (32,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), d))
    ref = a.astype(np.float64) @ b.astype(np.float64) + c
    got = d.get()
    if t == np.int8:
        assert np.array_equal(got, ref.astype(np.int64))
    else:
        assert np.allclose(got, ref, rtol=2e-3 if acc == np.float16 else 1e-5, atol=2e-2)


def test_bf16(module):
    rng = np.random.default_rng(3)
    a32, b32 = rng.standard_normal((16, 16)).astype(np.float32), rng.standard_normal((16, 16)).astype(np.float32)
    to_bf16 = lambda x: (x.view(np.uint32) >> 16).astype(np.uint16)       # truncation is exact enough here
    from_bf16 = lambda h: (h.astype(np.uint32) << 16).view(np.float32)
    a, b = to_bf16(a32), to_bf16(b32)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    d = cp.zeros((16, 16), dtype=cp.float32)
    module.get_function("bf16_16x16x16")((1,), (32,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), d))
    ref = from_bf16(a).astype(np.float64) @ from_bf16(b).astype(np.float64) + c
    assert np.allclose(d.get(), ref, rtol=1e-5, atol=1e-5)


MMA_SOURCE = r"""
#include <cuda_fp16.h>
// One m16n8k16 tile: A (16x16) and B^T (8x16) staged in shared memory, loaded
// with ldmatrix (B through .trans from a row-major 16x8 copy), multiplied with mma.sync.
extern "C" __global__ void mma_tile(const half* a, const half* b, const float* c, float* d) {
    __shared__ __align__(16) half sa[16 * 16];
    __shared__ __align__(16) half sb[16 * 8];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) sa[i] = a[i];
    for (int i = lane; i < 128; i += 32) sb[i] = b[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    // matrices 0..3 of A: rows 0-7/cols 0-7, rows 8-15/cols 0-7, rows 0-7/cols 8-15, rows 8-15/cols 8-15
    const half* arow = sa + (lane % 16) * 16 + (lane / 16) * 8;
    unsigned aaddr = (unsigned)__cvta_generic_to_shared(arow);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(aaddr));
    const half* brow = sb + (lane % 16) * 8;
    unsigned baddr = (unsigned)__cvta_generic_to_shared(brow);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(baddr));
    int g = lane / 4, t = lane % 4;
    float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1];
    float c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    d[g * 8 + 2 * t] = d0; d[g * 8 + 2 * t + 1] = d1;
    d[(g + 8) * 8 + 2 * t] = d2; d[(g + 8) * 8 + 2 * t + 1] = d3;
}
"""


def test_ldmatrix_and_mma_sync_in_the_manuals_layout():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = cp.full((16, 8), np.nan, dtype=cp.float32)
    cp.RawModule(code=MMA_SOURCE).get_function("mma_tile")((1,), (32,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), d))
    ref = a.astype(np.float64) @ b.astype(np.float64) + c
    assert np.allclose(d.get(), ref, rtol=1e-5, atol=1e-5)


DOUBLE_SOURCE = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void dgemm_tile(const double* a, const double* b, const double* c, double* d) {
    // D = A x B + C / 2 with double fragments (wmma m8n8k4: DMMA), B given column-major, D stored so
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a + 32 * blockIdx.x, 4);
    wmma::load_matrix_sync(fb, b + 32 * blockIdx.x, 4);
    wmma::load_matrix_sync(fc, c + 64 * blockIdx.x, 8, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 0.5;
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + 64 * blockIdx.x, fc, 8, wmma::mem_col_major);
}
"""


def test_double_fragments_m8n8k4():
    """wmma on doubles (cuda-samples' dmmaTensorCoreGemm ran as 'wmma shape not supported'): each
    product added with one rounding in k's order, as IEEE fmas; against exact sums."""
    from fractions import Fraction
    rng = np.random.default_rng(8)
    A, B, C = rng.standard_normal((3, 8, 4)), rng.standard_normal((3, 4, 8)), rng.standard_normal((3, 8, 8))
    d = cp.zeros(3 * 64, dtype=np.float64)
    module = cp.RawModule(code=DOUBLE_SOURCE, options=("-arch=sm_90",))
    module.get_function("dgemm_tile")((3,), (32,), (cp.asarray(A), cp.asarray(B.transpose(0, 2, 1).copy()),
                                                     cp.asarray(C), d))
    D = d.get().reshape(3, 8, 8).transpose(0, 2, 1)
    np.testing.assert_allclose(D, 0.5 * C + A @ B, rtol=0, atol=1e-14)
    w, i, j = 1, 2, 5                        # one element step by step: fma after fma, rounded each
    acc = 0.5 * C[w, i, j]
    for k in range(4):
        acc = float(Fraction(A[w, i, k]) * Fraction(B[w, k, j]) + Fraction(acc))
    assert D[w, i, j] == acc


MMA_DOUBLE_SOURCE = r"""
extern "C" __global__ void dmma_tile(const double* a, const double* b, const double* c, double* d) {
    // mma.sync.m8n8k4 .f64 in the PTX manual's layout: A (8x4) row-major, B (4x8) column-major, C/D 8x8
    int lane = threadIdx.x, group = lane >> 2, tig = lane & 3;
    double fa = a[group * 4 + tig], fb = b[group * 4 + tig], c0 = c[group * 8 + 2 * tig], c1 = c[group * 8 + 2 * tig + 1];
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(d0), "=d"(d1) : "d"(fa), "d"(fb), "d"(c0), "d"(c1));
    d[group * 8 + 2 * tig] = d0;
    d[group * 8 + 2 * tig + 1] = d1;
}
"""


@pytest.mark.parametrize("level", [None, "sass"])
def test_double_mma_sync_in_the_manuals_layout(level):
    """mma.sync.m8n8k4 .f64 on the PTX machine and as DMMA.884 on the SASS executor alone: equal to
    C + A @ B with each product added as an fma (exact sums, rounded step by step)."""
    from fractions import Fraction
    rng = np.random.default_rng(9)
    A, B, C = rng.standard_normal((8, 4)), rng.standard_normal((4, 8)), rng.standard_normal((8, 8))
    d = cp.zeros(64, dtype=np.float64)
    kernel = cp.RawModule(code=MMA_DOUBLE_SOURCE, options=("-arch=sm_90",)).get_function("dmma_tile")
    args = (cp.asarray(A), cp.asarray(B.T.copy()), cp.asarray(C), d)
    if level is None:
        kernel((1,), (32,), args)
    else:
        with cp.settings(sass_verify=False), cp.profile(level=level) as prof:
            kernel((1,), (32,), args)
        assert prof[0].execution == "sass"
    expected = np.empty((8, 8))
    for i in range(8):
        for j in range(8):
            acc = C[i, j]
            for k in range(4):
                acc = float(Fraction(A[i, k]) * Fraction(B[k, j]) + Fraction(acc))
            expected[i, j] = acc
    np.testing.assert_array_equal(d.get().reshape(8, 8), expected)
