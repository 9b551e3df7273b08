"""cupy.linalg on warpsim: NumPy's values, CuPy's dtypes, device arrays, LinAlgError as CuPy's."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api import linalg

RNG = np.random.default_rng(20)


def _well_conditioned(n, dtype, batch=()):
    a = RNG.standard_normal(batch + (n, n)) + n * np.eye(n)
    return a.astype(dtype)


def _tolerance(dtype):
    return dict(rtol=2e-4, atol=2e-4) if np.dtype(dtype) in (np.float32, np.complex64) else \
        dict(rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype, expected", [(np.float32, np.float32), (np.float64, np.float64),
                                             (np.int32, np.float64), (np.complex64, np.complex64)])
def test_inv_solve_det_match_numpy_with_cupys_dtypes(dtype, expected):
    a = _well_conditioned(5, np.float64, (3,))
    a = (a * 3).astype(dtype) if np.dtype(dtype).kind == "i" else a.astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(a.shape).astype(dtype)
    b = RNG.standard_normal((3, 5, 2)).astype(dtype if np.dtype(dtype).kind != "i" else np.float64)
    da, db = cp.asarray(a), cp.asarray(b)
    inverse, solution, determinant = linalg.inv(da), linalg.solve(da, db), linalg.det(da)
    for got in (inverse, solution, determinant):
        assert isinstance(got, cp.ndarray) and got.dtype == expected
    np.testing.assert_allclose(inverse.get(), np.linalg.inv(a), **_tolerance(expected))
    np.testing.assert_allclose(solution.get(), np.linalg.solve(a, b), **_tolerance(expected))
    np.testing.assert_allclose(determinant.get(), np.linalg.det(a), rtol=_tolerance(expected)["rtol"])
    assert determinant.shape == (3,)


def test_decompositions_reconstruct_their_matrix():
    a = RNG.standard_normal((6, 4)).astype(np.float32)
    u, s, vh = linalg.svd(cp.asarray(a), full_matrices=False)
    assert (u.dtype, s.dtype, vh.dtype) == (np.float32,) * 3
    np.testing.assert_allclose((u.get() * s.get()) @ vh.get(), a, atol=1e-5)
    np.testing.assert_allclose(linalg.svd(cp.asarray(a), compute_uv=False).get(),
                               np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    q, r = linalg.qr(cp.asarray(a))
    np.testing.assert_allclose(q.get() @ r.get(), a, atol=1e-5)
    assert q.shape == (6, 4) and r.shape == (4, 4)
    spd = a.T @ a + np.eye(4, dtype=np.float32)
    low = linalg.cholesky(cp.asarray(spd))
    np.testing.assert_allclose(low.get() @ low.get().T, spd, rtol=1e-5, atol=1e-5)
    w, v = linalg.eigh(cp.asarray(spd))
    assert w.dtype == np.float32
    np.testing.assert_allclose(w.get(), np.linalg.eigvalsh(spd), rtol=1e-5)
    np.testing.assert_allclose(spd @ v.get(), v.get() * w.get(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(linalg.eigvalsh(cp.asarray(spd)).get(), w.get(), rtol=1e-6)


def test_complex_svd_and_eigh_give_real_values_of_the_matching_precision():
    a = (RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))).astype(np.complex64)
    hermitian = a @ a.conj().T
    assert linalg.svd(cp.asarray(a))[1].dtype == np.float32
    assert linalg.eigh(cp.asarray(hermitian))[0].dtype == np.float32
    sign, logdet = linalg.slogdet(cp.asarray(a))
    assert sign.dtype == np.complex64 and logdet.dtype == np.float32
    np.testing.assert_allclose(sign.get() * np.exp(logdet.get()), np.linalg.det(a), rtol=1e-4)


def test_norms_ranks_powers_pinv_lstsq():
    a = RNG.standard_normal((5, 3))
    da = cp.asarray(a)
    for ord_ in (None, "fro", "nuc", 1, 2, np.inf):
        np.testing.assert_allclose(linalg.norm(da, ord_).get(), np.linalg.norm(a, ord_))
    assert linalg.norm(da).shape == ()
    np.testing.assert_allclose(linalg.norm(da, axis=1).get(), np.linalg.norm(a, axis=1))
    assert linalg.norm(cp.asarray(a.astype(np.float32))).dtype == np.float32
    assert int(linalg.matrix_rank(cp.asarray(a @ a.T))) == 3
    np.testing.assert_allclose(linalg.pinv(da).get(), np.linalg.pinv(a), atol=1e-12)
    x, residuals, rank, s = linalg.lstsq(da, cp.asarray(a[:, 0] * 2 + 1e-3))
    np.testing.assert_allclose(x.get(), np.linalg.lstsq(a, a[:, 0] * 2 + 1e-3)[0])
    assert int(rank) == 3 and s.shape == (3,)
    m = RNG.integers(-3, 4, (3, 3))
    power = linalg.matrix_power(cp.asarray(m), 3)
    assert power.dtype == m.dtype
    np.testing.assert_array_equal(power.get(), m @ m @ m)


def test_errors_are_cupys():
    with pytest.raises(linalg.LinAlgError, match="only supports cupy.ndarray"):
        linalg.inv(np.eye(3))
    with pytest.raises(linalg.LinAlgError, match="must be square"):
        linalg.inv(cp.asarray(RNG.standard_normal((3, 2))))
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        linalg.solve(cp.asarray(np.eye(2, dtype=np.float16)), cp.asarray(np.ones(2, np.float16)))
    with pytest.raises(linalg.LinAlgError, match="Singular"):
        linalg.inv(cp.asarray(np.ones((3, 3))))
    assert cp.linalg.LinAlgError is np.linalg.LinAlgError
