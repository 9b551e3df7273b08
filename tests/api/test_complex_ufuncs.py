"""Complex `a / b` and `abs(a)` give the H200's bits (CuPy 14 on the GPU computes them with kernels of
cupy/complex.cuh; warpsim runs its complex.cuh as kernels on the simulated GPU).

tests/api/complex_h200.npz: 2,048 operand pairs per dtype, half random over the whole exponent range,
half from every pair of hard parts (signed zeros, infinities, NaN, subnormals, the smallest normal,
the largest finite), with the H200's quotient and absolute value bits (a sample of
validation/cupy_complex/cupy_complex_gpu.npz, where all 109,720 pairs per dtype match).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import warpsim as cp
from warpsim.api.cupy import abs as cupy_abs, absolute, divide, true_divide
from warpsim.profiler import Profiler

pytestmark = [pytest.mark.nvrtc, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

H200 = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "complex_h200.npz"))
DTYPES = {"c64": np.complex64, "c128": np.complex128}


def bits(x):
    x = np.ascontiguousarray(cp.asnumpy(x) if isinstance(x, cp.ndarray) else x)
    return x.view({8: np.uint32, 16: np.uint64, 4: np.uint32}[x.dtype.itemsize]) if x.dtype.kind == "c" \
        else x.view({4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


def differing(got, want):
    wrong = np.nonzero(bits(got).reshape(-1) != want)[0]
    return f"{len(wrong)} of {want.size} words differ from the H200's (first at {wrong[:5]})" if len(wrong) else ""


@pytest.mark.parametrize("name", DTYPES)
def test_division_and_abs_are_the_h200s(name):
    a, b = cp.asarray(H200[f"{name}_a"]), cp.asarray(H200[f"{name}_b"])
    quotient = a / b
    assert quotient.dtype == DTYPES[name]
    assert not differing(quotient, H200[f"{name}_div"]), differing(quotient, H200[f"{name}_div"])
    magnitude = abs(a)
    assert magnitude.dtype == np.dtype(DTYPES[name]).type(0).real.dtype
    assert not differing(magnitude, H200[f"{name}_abs"]), differing(magnitude, H200[f"{name}_abs"])


@pytest.mark.parametrize("name", DTYPES)
def test_every_way_of_asking_gives_the_same_bits(name):
    a, b = cp.asarray(H200[f"{name}_a"][:300]), cp.asarray(H200[f"{name}_b"][:300])
    want_div, want_abs = H200[f"{name}_div"][:600], H200[f"{name}_abs"][:300]
    out = cp.empty_like(a)
    assert divide(a, b, out=out) is out and not differing(out, want_div)
    for quotient in (true_divide(a, b), np.true_divide(a, b), np.divide(a, b)):
        assert isinstance(quotient, cp.ndarray) and not differing(quotient, want_div)
    for magnitude in (cupy_abs(a), absolute(a), np.abs(a)):
        assert isinstance(magnitude, cp.ndarray) and not differing(magnitude, want_abs)
    c = a.copy()
    alias = c
    c /= b
    assert c is alias and not differing(c, want_div)


def test_the_kernels_are_simulated_launches():
    a = cp.asarray(np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
    with Profiler() as profiler:
        a / a
        abs(a)
    assert [launch.kernel_name for launch in profiler] == ["cupy_true_divide", "cupy_absolute"]


def test_scalars_mixed_types_and_broadcasting_follow_numpys_types():
    rng = np.random.default_rng(7)
    host = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    real = rng.standard_normal(4).astype(np.float32)
    a = cp.asarray(host)
    with np.errstate(all="ignore"):
        for got, want in ((a / (2 - 3j), host / (2 - 3j)), ((2 - 3j) / a, (2 - 3j) / host),
                          (a / cp.asarray(real), host / real), (cp.asarray(real) / a, real / host),
                          (a / cp.asarray(host.astype(np.complex128)), host / host.astype(np.complex128))):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-6)
    # real arrays keep NumPy's path (and its bits)
    x = rng.standard_normal(8)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(x) / cp.asarray(x + 1)), x / (x + 1))
