"""tl.dot of f16 and bf16 tiles compiled by Triton for sm_90 gives the H200's f32 words, bit for bit.

The kernel is the one validation/hopper/tensor_core_rounding.py ran on an H200: a 64 x 64 tile
accumulated over K = 64 in four wgmma steps. Its recorded inputs go through warpsim's PTX
executor (wgmma.mma_async) and SASS executor (HGMMA); both must write the H200's results, which
are not the exact products rounded once (semantics.wgmma.aligned_sum says how they differ).
"""

import os

import numpy as np
import pytest

pytest.importorskip("triton")
ml_dtypes = pytest.importorskip("ml_dtypes")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import warpsim as cp  # noqa: E402
from warpsim.api import triton as wt  # noqa: E402

pytestmark = pytest.mark.triton

H200 = os.path.join(os.path.dirname(__file__), "..", "..", "validation", "hopper", "h200_tensor_core_rounding.npz")


@triton.jit
def dot_kernel(A, B, C, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


def inputs(recorded, name):
    dtype = np.float16 if name.startswith("f16") else ml_dtypes.bfloat16
    return recorded[f"{name}_a"].view(dtype), recorded[f"{name}_b"].view(dtype)


@pytest.mark.parametrize("name", ["f16_normal_64", "bf16_wide_64"])
@pytest.mark.parametrize("level", ["ptx", "sass"])
def test_tl_dot_writes_the_h200s_words(name, level):
    recorded = np.load(H200)
    a, b = inputs(recorded, name)
    k = a.shape[1]
    c = np.full((64, 64), np.nan, np.float32)
    with cp.profile(level=level) as prof:
        compiled = wt.launch(dot_kernel, (1,), a, b, c, k, 64, 64, 16, num_warps=4, arch=90)
    assert prof.launches[-1].level == level, prof.launches[-1].level_note
    assert "wgmma.mma_async" in compiled.ptx
    np.testing.assert_array_equal(c.view(np.uint32), recorded[f"{name}_c"].view(np.uint32))
    nearest = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    assert not np.array_equal(c, nearest)          # the test could tell a once-rounded product
