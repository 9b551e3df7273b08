"""Complex division and absolute value as CuPy computes them: kernels on the simulated GPU.

Array arithmetic runs NumPy on the host (warpsim.api.host_calls), and for
most operations NumPy's bits are the GPU's. Not for complex `a / b` and
`abs(a)`: CuPy's ufuncs compute them on the GPU with cupy/complex.cuh
(thrust's scaled division, with the fused multiply-adds ptxas forms; CUDA's
hypot), NumPy on the host with Smith's division and libm's hypot, so about
three in four complex64 quotients differ in the last bit (measured against an
H200: validation/cupy_complex/). A test that compares a kernel's complex
result with `a / b` would fail on warpsim and pass on the GPU.

So `true_divide` with a complex result and `absolute` of a complex array run
here as ElementwiseKernels of warpsim's complex.cuh, as CuPy's ufuncs do
(`out0 = in0 / in1`, `out0 = abs(in0)`), and show in a profile as the
launches `cupy_true_divide` and `cupy_absolute`. Every way of asking goes
through here: `a / b`, `a /= b`, `abs(a)`, `cupy.true_divide`, `cupy.divide`,
`cupy.abs`, `cupy.absolute`, NumPy's ufuncs given device arrays, with `out=`.
Anything else about the call (where=, dtype=, casting=, a host array or a
list among the operands, an `out=` of another dtype) keeps NumPy's path.
"""

from __future__ import annotations

import operator

import numpy as np

from .arrays import ndarray
from .elementwise import ElementwiseKernel
from .host_calls import SIMULATED_CALLS

__all__ = ["simulated_call"]

_ABSOLUTE = {np.dtype(np.complex64): "float32", np.dtype(np.complex128): "float64"}
_kernels: dict = {}


def _ufunc_of(fn):
    """The NumPy ufunc a host call stands for (operators included), or None."""
    if fn in (operator.truediv, operator.itruediv):
        return np.true_divide
    if fn is operator.abs:
        return np.absolute
    if isinstance(fn, np.ufunc):
        return fn
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(fn, "__name__", "") == "__call__":
        return owner
    return None


def _kernel(key, make):
    if key not in _kernels:
        _kernels[key] = make()
    return _kernels[key]


def _as(value, dtype, kind):
    """An operand in the kernel's dtype: a device array (cast where it differs) or a scalar."""
    if isinstance(value, kind):
        return value if value.dtype == dtype else value.astype(dtype)
    return dtype.type(value)


def simulated_call(fn, args, kwargs, kind):
    """fn(*args, **kwargs) computed by a simulated kernel when it is a complex true_divide or
    absolute on device arrays of `kind` (warpsim.api.arrays.ndarray); NotImplemented otherwise."""
    ufunc = _ufunc_of(fn)
    if kind is not ndarray or ufunc not in (np.true_divide, np.absolute) or set(kwargs) - {"out"}:
        return NotImplemented
    if any(not isinstance(a, (ndarray, int, float, complex, np.number)) for a in args):
        return NotImplemented
    if not any(isinstance(a, ndarray) for a in args) or len(args) != ufunc.nin:
        return NotImplemented
    out = args[0] if fn is operator.itruediv else kwargs.get("out")
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else None
    if out is not None and not isinstance(out, ndarray):
        return NotImplemented
    with np.errstate(all="ignore"):         # the result dtype NumPy would give (NEP 50 scalars)
        probe = ufunc(*(np.empty(0, a.dtype) if isinstance(a, ndarray) else a for a in args))
    if ufunc is np.true_divide:
        dtype = probe.dtype
        if dtype.kind != "c" or (out is not None and out.dtype != dtype):
            return NotImplemented
        kernel = _kernel("divide", lambda: ElementwiseKernel(
            "T x, T y", "T z", "z = x / y", name="cupy_true_divide"))
        operands = [_as(a, dtype, ndarray) for a in args]
    else:
        (value,) = args
        if not isinstance(value, ndarray) or value.dtype not in _ABSOLUTE:
            return NotImplemented
        real = _ABSOLUTE[value.dtype]
        if out is not None and out.dtype != np.dtype(real):
            return NotImplemented
        kernel = _kernel(("absolute", real), lambda: ElementwiseKernel(
            f"{value.dtype.name} x", f"{real} z", "z = abs(x)", name="cupy_absolute"))
        operands = [value]
    result = kernel(*operands) if out is None else kernel(*operands, out)
    return out if out is not None else result


SIMULATED_CALLS.append(simulated_call)
