"""Tracing a Python function for cupy.fuse: symbolic values that record C++ statements.

The fused function is called once per combination of argument types with a
`Value` for each argument. Operators, NumPy's ufuncs (through
`__array_ufunc__`, so `cp.exp(x)` and `np.exp(x)` both work), `where`,
`clip`, `astype` and the reductions at the end (`sum`, `prod`, `max`, `min`,
through `__array_function__` or the methods) append statements to the
Trace; each result is a new Value naming a C++ variable. Types are NumPy's
loop types (ufunc.resolve_dtypes): a Python number in the function, or
passed as an argument, is weak (float32 array + 2.0 stays float32), as in
CuPy and NumPy 2. Python control flow on a Value is refused: the function
becomes one elementwise kernel, and a branch must be `where`.
"""

from __future__ import annotations

import numpy as np

from . import ops

__all__ = ["Value", "Trace", "Reduction", "FusionError"]


class FusionError(TypeError):
    """A fused function does something cupy.fuse cannot compile (a branch on a value, ...)."""


_PYTHON_TYPES = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
_WEAK_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


class Reduction:
    """A reduction at the end of the function: kind ('sum', ...), the reduced Value, options."""

    def __init__(self, kind, operand, axis, keepdims, dtype):
        self.kind, self.operand, self.axis, self.keepdims, self.dtype = \
            kind, operand, axis, keepdims, dtype


class Trace:
    """The statements one call of the fused function produced, in order."""

    def __init__(self):
        self.statements: list[str] = []
        self.written: list["Value"] = []      # array parameters assigned in place (x += 1)
        self.reduction: Reduction | None = None
        self._count = 0

    def assign(self, dtype, expr: str, weak=None) -> "Value":
        name = f"_v{self._count}"
        self._count += 1
        self.statements.append(f"const {ops.c_type(dtype)} {name} = {expr};")
        return Value(self, name, dtype, weak)

    def constant(self, value) -> "Value":
        """A number written in the function: weak for Python numbers, strong for NumPy's."""
        if isinstance(value, np.generic):
            return Value(self, ops.literal(value, value.dtype), value.dtype)
        kind = type(value) if type(value) in _PYTHON_TYPES else None
        if kind is None:
            raise FusionError(f"cupy.fuse cannot use {type(value).__name__} {value!r} in a kernel")
        dtype = np.dtype(_PYTHON_TYPES[kind])
        return Value(self, ops.literal(value, dtype), dtype, None if kind is bool else kind)

    def operand(self, value) -> "Value":
        if isinstance(value, Value):
            if value.trace is not self:
                raise FusionError("a value from another fused call was used")
            if value.reduced:
                raise FusionError("cupy.fuse on warpsim supports a reduction only as the value "
                                  "the function returns (no operations after it)")
            return value
        if isinstance(value, (np.ndarray,)) or hasattr(value, "__cuda_array_interface__"):
            raise FusionError("an array that is not an argument of the fused function was used "
                              "inside it; pass it as an argument")
        return self.constant(value)

    def ufunc(self, ufunc: np.ufunc, *inputs) -> "Value":
        if ufunc.__name__ not in ops.UFUNCS or ufunc.nout != 1:
            raise FusionError(f"cupy.fuse on warpsim does not support numpy.{ufunc.__name__}")
        operands = [self.operand(value) for value in inputs]
        if len(operands) != ufunc.nin:
            raise TypeError(f"{ufunc.__name__} takes {ufunc.nin} arguments, {len(operands)} given")
        loop = ufunc.resolve_dtypes(tuple(v.spec for v in operands) + (None,))
        in_types, out_type = loop[:-1], loop[-1]
        compute = [ops.compute_dtype(t) for t in in_types]
        args = [ops.cast(v.expr, v.dtype, c) for v, c in zip(operands, compute)]
        expr = ops.UFUNCS[ufunc.__name__](args, compute[0])
        weak = _WEAK_OF_KIND[out_type.kind] if all(v.weak for v in operands) else None
        return self.assign(out_type, ops.cast(expr, ops.compute_dtype(out_type), out_type), weak)

    def where(self, condition, x, y) -> "Value":
        condition, x, y = (self.operand(v) for v in (condition, x, y))
        dtype = np.result_type(x.spec if not x.weak else x.weak(0), y.spec if not y.weak else y.weak(0))
        weak = _WEAK_OF_KIND[dtype.kind] if x.weak and y.weak else None
        return self.assign(dtype, f"({ops.cast(condition.expr, condition.dtype, np.bool_)} ? "
                                  f"{ops.cast(x.expr, x.dtype, dtype)} : {ops.cast(y.expr, y.dtype, dtype)})",
                           weak)

    def astype(self, value, dtype) -> "Value":
        value = self.operand(value)
        return self.assign(np.dtype(dtype), ops.cast(value.expr, value.dtype, dtype))

    def reduce(self, kind: str, value, axis=None, *, dtype=None, keepdims=False) -> "Value":
        if self.reduction is not None:
            raise FusionError("cupy.fuse on warpsim supports one reduction per function")
        value = self.operand(value)
        reducer = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]
        result = np.dtype(dtype) if dtype is not None else \
            reducer(np.zeros(1, value.dtype)).dtype
        self.reduction = Reduction(kind, value, axis, keepdims, result)
        out = Value(self, "a", result)
        out.reduced = True
        return out

    def write(self, target: "Value", result: "Value") -> "Value":
        """`target op= other` on an array parameter: the argument is written, as in CuPy."""
        if not np.can_cast(result.dtype, target.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc output from {result.dtype} to {target.dtype} "
                            "with casting rule 'same_kind'")
        value = self.assign(target.dtype, ops.cast(result.expr, result.dtype, target.dtype))
        if not any(target is w for w in self.written):
            self.written.append(target)
        target.expr = value.expr          # every alias of the parameter now reads the new value
        return target


# Python operator -> NumPy ufunc; the reflected form swaps the operands.
_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
           "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "and": np.bitwise_and,
           "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
           "rshift": np.right_shift}
_COMPARISONS = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
                "eq": np.equal, "ne": np.not_equal}
_ARRAY_FUNCTIONS = {np.where: "where", np.clip: "clip", np.sum: "sum", np.prod: "prod",
                    np.max: "max", np.amax: "max", np.min: "min", np.amin: "min"}


class Value:
    """A value inside a fused function: a C++ expression (a variable, a parameter, a literal) of a
    dtype; `weak` is the Python type of a weak scalar (int, float, complex), else None."""

    __array_priority__ = 1000

    def __init__(self, trace: Trace, expr: str, dtype, weak=None, parameter: bool = False):
        self.trace, self.expr, self.dtype, self.weak = trace, expr, np.dtype(dtype), weak
        self.parameter, self.reduced = parameter, False

    @property
    def spec(self):
        """How NumPy's type resolution sees this value: its dtype, or its Python type if weak."""
        return self.weak if self.weak is not None else self.dtype

    # --- NumPy protocols ---------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            raise FusionError(f"cupy.fuse on warpsim does not support {ufunc.__name__}.{method} "
                              "or out= inside a fused function")
        result = self.trace.ufunc(ufunc, *inputs)
        dtype = kwargs.get("dtype")
        return result if dtype is None else self.trace.astype(result, dtype)

    def __array_function__(self, func, types, args, kwargs):
        name = _ARRAY_FUNCTIONS.get(func)
        if name is None:
            raise FusionError(f"cupy.fuse on warpsim does not support numpy.{func.__name__} inside "
                              "a fused function")
        if name == "where":
            if len(args) + len(kwargs) != 3:
                raise FusionError("where(condition) with one argument cannot be fused")
            return self.trace.where(*args, **kwargs)
        if name == "clip":
            return _clip(self.trace, *args, **kwargs)
        return self.trace.reduce(name, *args, **kwargs)

    def __array__(self, dtype=None, copy=None):
        raise FusionError("a fused value cannot become a NumPy array (only operations that "
                          "cupy.fuse compiles may be applied to it)")

    # --- methods ---------------------------------------------------------------------
    def astype(self, dtype, copy=True):
        return self.trace.astype(self, dtype)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return self.trace.reduce("sum", self, axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return self.trace.reduce("prod", self, axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return self.trace.reduce("max", self, axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return self.trace.reduce("min", self, axis, keepdims=keepdims)

    def __bool__(self):
        raise FusionError("a fused value has no truth value while the kernel is built: write "
                          "the branch with cupy.where(condition, a, b)")

    def __neg__(self):
        return self.trace.ufunc(np.negative, self)

    def __pos__(self):
        return self.trace.ufunc(np.positive, self)

    def __abs__(self):
        return self.trace.ufunc(np.absolute, self)

    def __invert__(self):
        return self.trace.ufunc(np.invert, self)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<cupy.fuse value {self.expr} {self.dtype}{' (weak)' if self.weak else ''}>"


def _clip(trace: Trace, a, a_min=None, a_max=None, out=None, **kwargs):
    if out is not None:
        raise FusionError("clip(out=) is not supported inside a fused function")
    value = trace.operand(a)
    if a_min is not None:
        value = trace.ufunc(np.maximum, value, a_min)
    if a_max is not None:
        value = trace.ufunc(np.minimum, value, a_max)
    return value


def _binary_methods(name, ufunc):
    def forward(self, other):
        return self.trace.ufunc(ufunc, self, other)

    def reflected(self, other):
        return self.trace.ufunc(ufunc, other, self)

    def in_place(self, other):
        result = self.trace.ufunc(ufunc, self, other)
        return self.trace.write(self, result) if self.parameter else result
    return forward, reflected, in_place


for _name, _ufunc in _BINARY.items():
    _forward, _reflected, _in_place = _binary_methods(_name, _ufunc)
    setattr(Value, f"__{_name}__", _forward)
    setattr(Value, f"__r{_name}__", _reflected)
    setattr(Value, f"__i{_name}__", _in_place)
for _name, _ufunc in _COMPARISONS.items():
    setattr(Value, f"__{_name}__", _binary_methods(_name, _ufunc)[0])
del _name, _ufunc, _forward, _reflected, _in_place
