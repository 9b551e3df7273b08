"""cupy.linalg, computed on the host with NumPy: device arrays in, device arrays out.

CuPy calls cuSOLVER and cuBLAS; warpsim does not simulate those libraries, so
each function downloads its operands, calls numpy.linalg and uploads the
result (warpsim.api.host_library). What a program sees is CuPy's:

- dtypes: integer and bool inputs give float64, float32 gives float32,
  complex64 gives complex64 (singular values and eigenvalues of complex
  input are real), float16 is a TypeError ('float16 is unsupported in
  linalg'), as CuPy's linalg_common_type decides. NumPy computes float32 in
  float64 and rounds the result; CuPy computes it in float32, so the last
  bits of a float32 result differ (warpsim's are the closer to exact);
- shapes, and plain tuples where NumPy returns named ones;
- det, slogdet, norm and matrix_rank as 0-d device arrays, as CuPy returns them;
- errors: numpy.linalg.LinAlgError (CuPy's cupy.linalg.LinAlgError is the
  same class), for a non-square or non-2-D matrix and for an input that is
  not a device array ('cupy.linalg only supports cupy.ndarray'). One
  difference: a singular matrix in inv/solve, or a matrix that is not
  positive definite in cholesky, raises LinAlgError here whatever the
  error mode; CuPy, under its default cupyx.errstate(linalg='ignore'),
  returns cuSOLVER's invalid values without an error.
"""

from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError

from .host_library import download, is_device_array, upload

__all__ = ["LinAlgError", "norm", "det", "slogdet", "matrix_rank", "solve", "tensorsolve",
           "lstsq", "inv", "pinv", "tensorinv", "cholesky", "qr", "svd", "eig", "eigvals",
           "eigh", "eigvalsh", "matrix_power", "cross"]


def _operands(*arrays):
    """Host copies of the operands, refused as CuPy refuses them (not device arrays, float16)."""
    for array in arrays:
        if not is_device_array(array):
            raise LinAlgError("cupy.linalg only supports cupy.ndarray")
    hosts = [download(array) for array in arrays]
    if any(host.dtype == np.float16 for host in hosts):
        raise TypeError("float16 is unsupported in linalg")
    return hosts


def result_dtype(*dtypes) -> np.dtype:
    """The dtype CuPy's linalg returns for these inputs: integers and bool count as float64."""
    return np.result_type(*[d if np.dtype(d).kind in "fc" else np.float64 for d in dtypes])


def _real(dtype) -> np.dtype:
    return np.dtype(dtype).type(0).real.dtype


def _square(host) -> None:
    if host.ndim < 2:
        raise LinAlgError(f"{host.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if host.shape[-1] != host.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


# --- norms and other numbers ---------------------------------------------------

def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Matrix or vector norm (a 0-d device array for a whole-array norm)."""
    (host,) = _operands(x) if is_device_array(x) else (np.asarray(x),)
    return upload(np.asarray(np.linalg.norm(host, ord, axis, keepdims)))


def det(a):
    (host,) = _operands(a)
    _square(host)
    return upload(np.asarray(np.linalg.det(host)), result_dtype(host.dtype))


def slogdet(a):
    """(sign, logabsdet), each a device array; logabsdet is real."""
    (host,) = _operands(a)
    _square(host)
    sign, logdet = np.linalg.slogdet(host)
    dtype = result_dtype(host.dtype)
    return upload(np.asarray(sign), dtype), upload(np.asarray(logdet), _real(dtype))


def matrix_rank(M, tol=None, hermitian: bool = False):
    (host,) = _operands(M)
    return upload(np.asarray(np.linalg.matrix_rank(host, tol, hermitian)))


# --- solving and inverting -----------------------------------------------------

def solve(a, b):
    host_a, host_b = _operands(a, b)
    _square(host_a)
    return upload(np.linalg.solve(host_a, host_b), result_dtype(host_a.dtype, host_b.dtype))


def tensorsolve(a, b, axes=None):
    host_a, host_b = _operands(a, b)
    return upload(np.linalg.tensorsolve(host_a, host_b, axes),
                  result_dtype(host_a.dtype, host_b.dtype))


def lstsq(a, b, rcond=None):
    """(x, residuals, rank, s) as device arrays (rank a 0-d int array)."""
    host_a, host_b = _operands(a, b)
    dtype = result_dtype(host_a.dtype, host_b.dtype)
    x, residuals, rank, s = np.linalg.lstsq(host_a, host_b, rcond=rcond)
    return (upload(x, dtype), upload(np.asarray(residuals), _real(dtype)),
            upload(np.asarray(rank)), upload(s, _real(dtype)))


def inv(a):
    (host,) = _operands(a)
    _square(host)
    return upload(np.linalg.inv(host), result_dtype(host.dtype))


def pinv(a, rcond=1e-15, hermitian: bool = False):
    (host,) = _operands(a)
    return upload(np.linalg.pinv(host, rcond=rcond, hermitian=hermitian), result_dtype(host.dtype))


def tensorinv(a, ind: int = 2):
    (host,) = _operands(a)
    return upload(np.linalg.tensorinv(host, ind), result_dtype(host.dtype))


def matrix_power(M, n: int):
    """M to the integer power n (integer matrices stay integer for n >= 0, as in CuPy)."""
    (host,) = _operands(M)
    _square(host)
    return upload(np.linalg.matrix_power(host, n))


# --- decompositions --------------------------------------------------------------

def cholesky(a):
    (host,) = _operands(a)
    _square(host)
    return upload(np.linalg.cholesky(host), result_dtype(host.dtype))


def qr(a, mode: str = "reduced"):
    (host,) = _operands(a)
    if host.ndim < 2:
        raise LinAlgError(f"{host.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    dtype = result_dtype(host.dtype)
    result = np.linalg.qr(host, mode=mode)
    return upload(tuple(result) if isinstance(result, tuple) else result, dtype)


def svd(a, full_matrices: bool = True, compute_uv: bool = True):
    """(u, s, vh), or s alone with compute_uv=False; s is real."""
    (host,) = _operands(a)
    dtype = result_dtype(host.dtype)
    if not compute_uv:
        return upload(np.linalg.svd(host, compute_uv=False), _real(dtype))
    u, s, vh = np.linalg.svd(host, full_matrices=full_matrices)
    return upload(u, dtype), upload(s, _real(dtype)), upload(vh, dtype)


def eigh(a, UPLO: str = "L"):
    """(eigenvalues, eigenvectors) of a Hermitian matrix; eigenvalues are real."""
    (host,) = _operands(a)
    _square(host)
    dtype = result_dtype(host.dtype)
    w, v = np.linalg.eigh(host, UPLO)
    return upload(w, _real(dtype)), upload(v, dtype)


def eigvalsh(a, UPLO: str = "L"):
    (host,) = _operands(a)
    _square(host)
    return upload(np.linalg.eigvalsh(host, UPLO), _real(result_dtype(host.dtype)))


def _complex(dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)


def eig(a):
    """(eigenvalues, eigenvectors) of a general matrix, always complex (CuPy's rule; NumPy
    returns real arrays when every eigenvalue is real)."""
    (host,) = _operands(a)
    _square(host)
    dtype = _complex(result_dtype(host.dtype))
    w, v = np.linalg.eig(host)
    return upload(w, dtype), upload(v, dtype)


def eigvals(a):
    (host,) = _operands(a)
    _square(host)
    return upload(np.linalg.eigvals(host), _complex(result_dtype(host.dtype)))


def cross(x1, x2, /, *, axis: int = -1):
    host_1, host_2 = _operands(x1, x2)
    return upload(np.linalg.cross(host_1, host_2, axis=axis))
