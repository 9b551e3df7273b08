"""cupy.fuse: a Python function of arrays compiled into one kernel that runs on warpsim.

    @cp.fuse()
    def squared_diff(x, y):
        return (x - y) * (x - y)

    z = squared_diff(a, b)          # one ElementwiseKernel launch named 'squared_diff'

As CuPy does, the function is traced once per combination of argument types
(warpsim.api.fusion.trace) into CUDA C++ for one element (the operators,
NumPy's ufuncs as far as fusion.ops writes them, where, clip, astype), which
becomes an ElementwiseKernel: compiled by NVRTC, simulated, and shown by
`warpsim profile` under the function's name (or `kernel_name=`). Arguments
broadcast; Python numbers are kernel scalars with weak types; `x += y` on an
argument writes the argument. A function that returns a reduction of its
elementwise expression (`cp.sum(x * y, axis=1)`, `.max()`, `prod`, `min`)
becomes one ReductionKernel whose map is the expression. A call with no
device array among its arguments runs the Python function as it is, as
CuPy's does.

Differences from CuPy: one reduction, and only as the returned value; no
`out=` or ufunc methods inside the function; the integer and float rules of
NumPy 2 (weak Python scalars), which CuPy 14 follows.
"""

from __future__ import annotations

import functools

import numpy as np

from ..arrays import ndarray
from ..carray import broadcast_shape
from ..elementwise import ElementwiseKernel
from ..kernel_params import device_array_of
from ..reduction import ReductionKernel
from . import ops
from .trace import FusionError, Trace, Value

__all__ = ["fuse", "Fusion", "FusionError"]

_WEAK_TYPES = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}

_REDUCE = {"sum": ("a + b", "0"), "prod": ("a * b", "1"),
           "max": ("_fuse_maximum<_type_reduce>(a, b)", None),
           "min": ("_fuse_minimum<_type_reduce>(a, b)", None)}


def _argument_kind(value) -> tuple:
    """(kind, type) of one argument: an array's dtype, a NumPy scalar's, a Python number's type."""
    if isinstance(value, ndarray):
        return "array", value.dtype
    if isinstance(value, np.ndarray):
        raise TypeError("a fused function takes device arrays (cupy.ndarray) and scalars, not "
                        "numpy.ndarray")
    if isinstance(value, np.generic):
        return "scalar", value.dtype
    if type(value) in _WEAK_TYPES:
        return "weak", type(value)
    raise TypeError(f"a fused function cannot take {type(value).__name__} arguments")


class Fusion:
    """The fused function: call it like the Python function it wraps."""

    def __init__(self, func, kernel_name: str | None = None):
        self.func = func
        name = kernel_name or getattr(func, "__name__", "fused_kernel")
        self.name = name if name.isidentifier() else "fused_kernel"
        self._compiled: dict = {}
        functools.update_wrapper(self, func)

    def __call__(self, *args):
        args = [device_array_of(a) for a in args]
        if not any(isinstance(a, ndarray) for a in args):
            return self.func(*args)
        key = tuple(_argument_kind(a) for a in args)
        if key not in self._compiled:
            self._compiled[key] = self._compile(key)
        return self._compiled[key](args)

    # --- building the kernel ------------------------------------------------------
    def _compile(self, key):
        trace = Trace()
        names = [f"in{i}" for i in range(len(key))]
        dtypes = [np.dtype(_WEAK_TYPES[t]) if kind == "weak" else np.dtype(t) for kind, t in key]
        params = [Value(trace, name, dtype, weak=(t if kind == "weak" and t is not bool else None),
                        parameter=kind == "array")
                  for name, dtype, (kind, t) in zip(names, dtypes, key)]
        result = self.func(*params)
        if trace.reduction is not None:
            return self._reduction(trace, result, names, dtypes)
        outputs = () if result is None else (result if isinstance(result, tuple) else (result,))
        outputs = [trace.operand(value) for value in outputs]
        written = [names[next(i for i, q in enumerate(params) if q is p)] for p in trace.written]
        in_params = [f"{d.name} {n}" for n, d in zip(names, dtypes) if n not in written]
        out_params = [f"{dtypes[names.index(n)].name} {n}" for n in written]
        out_params += [f"{v.dtype.name} out{k}" for k, v in enumerate(outputs)]
        lines = trace.statements + [f"{n} = {p.expr};" for n, p in zip(written, trace.written)]
        lines += [f"out{k} = {v.expr};" for k, v in enumerate(outputs)]
        if not out_params:
            raise FusionError(f"fused function {self.name!r} returns nothing and writes no argument")
        kernel = ElementwiseKernel(", ".join(in_params), ", ".join(out_params),
                                   "\n    ".join(lines), self.name, preamble=ops.PREAMBLE)
        read = [i for i, n in enumerate(names) if n not in written]
        write = [names.index(n) for n in written]
        out_dtypes = [v.dtype for v in outputs]
        single = result is not None and not isinstance(result, tuple)

        def launch(args):
            shape = broadcast_shape([a.shape for a in args if isinstance(a, ndarray)])
            fresh = [ndarray(shape, dtype) for dtype in out_dtypes]
            kernel(*[args[i] for i in read], *[args[i] for i in write], *fresh)
            if result is None:
                return None
            return fresh[0] if single else tuple(fresh)
        return launch

    def _reduction(self, trace, result, names, dtypes):
        reduction = trace.reduction
        if not (isinstance(result, Value) and result.reduced):
            raise FusionError("cupy.fuse on warpsim supports a reduction only as the value the "
                              "function returns (no operations after it)")
        if trace.written:
            raise FusionError("cupy.fuse on warpsim cannot write an argument in a function that "
                              "ends in a reduction")
        accumulate = ops.compute_dtype(reduction.dtype)
        declarations = ", ".join(f"const {ops.c_type(d)} &{n}" for n, d in zip(names, dtypes))
        operand = reduction.operand
        body = "\n  ".join(trace.statements)
        preamble = (ops.PREAMBLE + f"\n__device__ {ops.c_type(accumulate)} _fused_map({declarations}) {{\n"
                    f"  {body}\n  return {ops.cast(operand.expr, operand.dtype, accumulate)};\n}}\n")
        reduce_expr, identity = _REDUCE[reduction.kind]
        kernel = ReductionKernel(", ".join(f"{d.name} {n}" for n, d in zip(names, dtypes)),
                                 f"{reduction.dtype.name} out0", f"_fused_map({', '.join(names)})",
                                 reduce_expr, f"out0 = {ops.cast('a', accumulate, reduction.dtype)}",
                                 identity, self.name, reduce_type=ops.c_type(accumulate),
                                 preamble=preamble)

        def launch(args):
            return kernel(*args, axis=reduction.axis, keepdims=reduction.keepdims)
        return launch

    def __repr__(self) -> str:
        return f"<warpsim Fusion {self.name}>"


def fuse(*args, **kwargs):
    """`@fuse`, `@fuse()` or `@fuse(kernel_name='name')`: compile the function into one kernel."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return Fusion(args[0])
    if args:
        raise TypeError("fuse() takes the function, or keyword arguments (kernel_name=)")
    return lambda func: Fusion(func, **kwargs)
