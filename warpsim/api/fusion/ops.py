"""The operations cupy.fuse compiles: NumPy ufunc name -> CUDA C++ for one element.

One table (UFUNCS) says how each ufunc is written in C++ for operands
already converted to the ufunc loop's input types, which NumPy resolves
(`ufunc.resolve_dtypes`, CuPy's promotion rules as NumPy 2 has them: Python
scalars are weak). Where C++ and NumPy disagree, a helper in PREAMBLE does
what NumPy does, with a line saying how they differ. float16 is computed in
float and rounded back, as NumPy computes it; `cast` is the one place values
change type.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from ..kernel_params import c_type_name

__all__ = ["UFUNCS", "PREAMBLE", "cast", "literal", "compute_dtype", "c_type"]

# Helpers for the operations whose C++ meaning differs from NumPy's.
PREAMBLE = r"""
// floor division and remainder: C++ truncates toward zero, NumPy rounds toward -inf, and an
// integer division by zero gives 0 (NumPy's result, with a warning), not a trap or garbage.
template <typename T> __device__ T _fuse_floor_divide_int(T a, T b) {
  if (b == 0) return 0;
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
template <typename T> __device__ T _fuse_remainder_int(T a, T b) {
  if (b == 0) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
// NumPy's float floor division and remainder come from one divmod (fmod, then corrected).
template <typename T> __device__ T _fuse_remainder_float(T a, T b) {
  if (b == 0) return fmod(a, b);
  T r = fmod(a, b);
  if (r != 0) { if ((b < 0) != (r < 0)) r += b; }
  else r = copysign(T(0), b);
  return r;
}
template <typename T> __device__ T _fuse_floor_divide_float(T a, T b) {
  if (b == 0) return a / b;
  T r = fmod(a, b);
  T d = (a - r) / b;
  if (r != 0 && ((b < 0) != (r < 0))) d -= T(1);
  if (d == 0) return copysign(T(0), a / b);
  T f = floor(d);
  if (d - f > T(0.5)) f += T(1);
  return f;
}
// integer power by squaring; a negative exponent gives 0 (NumPy refuses it, CuPy gives 0 too,
// except for a base of 1 or -1).
template <typename T> __device__ T _fuse_power_int(T a, T b) {
  if (b < 0) return a == 1 ? T(1) : (a == T(-1) ? ((b & 1) ? T(-1) : T(1)) : T(0));
  T result = 1;
  while (b) { if (b & 1) result *= a; a *= a; b >>= 1; }
  return result;
}
// maximum/minimum propagate a NaN from either side (fmax/fmin drop it).
template <typename T> __device__ T _fuse_maximum(T a, T b) { return (a >= b || a != a) ? a : b; }
template <typename T> __device__ T _fuse_minimum(T a, T b) { return (a <= b || a != a) ? a : b; }
// shifts by the type's width or more give 0 (or -1 for a right shift of a negative) in NumPy;
// in C++ they are undefined.
template <typename T> __device__ T _fuse_left_shift(T a, T b) {
  return (b < 0 || b >= T(sizeof(T) * 8)) ? T(0) : T(a << b);
}
template <typename T> __device__ T _fuse_right_shift(T a, T b) {
  return (b < 0 || b >= T(sizeof(T) * 8)) ? (a < 0 ? T(-1) : T(0)) : T(a >> b);
}
// sign of a NaN is NaN.
template <typename T> __device__ T _fuse_sign(T a) {
  return a > 0 ? T(1) : (a < 0 ? T(-1) : (a == 0 ? T(0) : a));
}
"""


def compute_dtype(dtype) -> np.dtype:
    """The type C++ computes a loop type in: float16 in float (NumPy rounds each result back)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def c_type(dtype) -> str:
    return c_type_name(dtype)


def _real_of(dtype) -> np.dtype:
    return np.dtype(np.float32) if np.dtype(dtype) == np.complex64 else np.dtype(np.float64)


def cast(expr: str, source, target) -> str:
    """C++ converting `expr` of dtype `source` to dtype `target` as NumPy's astype does
    (complex to real keeps the real part; to bool tests against zero)."""
    source, target = np.dtype(source), np.dtype(target)
    if source == target:
        return expr
    if source == np.float16:
        return cast(f"__half2float({expr})", np.float32, target)
    if target == np.float16:
        if source == np.float64:
            return f"__double2half({expr})"
        return f"__float2half_rn({cast(expr, source, np.float32)})"
    if source.kind == "c":
        if target.kind == "c":
            return f"{c_type(target)}({expr})"
        if target == np.bool_:
            return f"(({expr}) != {c_type(source)}(0))"
        return cast(f"({expr}).real()", _real_of(source), target)
    if target.kind == "c":
        return f"{c_type(target)}({cast(expr, source, _real_of(target))})"
    if target == np.bool_:
        return f"(({expr}) != 0)"
    return f"(({c_type(target)})({expr}))"


def literal(value, dtype) -> str:
    """A C++ expression of exactly `value` as `dtype` (bit patterns for inf and NaN)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "true" if value else "false"
    if dtype.kind in "iu":
        value = int(value)
        if dtype.kind == "u" or value > 2**63 - 1:
            return cast(f"{value}ULL", np.uint64, dtype)
        if value == -2**63:
            return cast("(-9223372036854775807LL - 1)", np.int64, dtype)
        return cast(f"{value}LL", np.int64, dtype)
    if dtype.kind == "c":
        real, imag = literal(value.real, np.float64), literal(value.imag, np.float64)
        return f"{c_type(dtype)}({cast(real, np.float64, _real_of(dtype))}, " \
               f"{cast(imag, np.float64, _real_of(dtype))})"
    value = float(value)
    if math.isfinite(value):
        text = repr(value)
    else:
        bits = struct.unpack("<q", struct.pack("<d", value))[0]
        text = f"__longlong_as_double({bits}LL)"
    return cast(text, np.float64, dtype)


def _function(name: str):
    """A C math function; float32 calls its `f` form (expf), as CUDA's float overloads do."""
    def emit(args, dtype):
        suffix = "f" if dtype == np.float32 else ""
        return f"{name}{suffix}({', '.join(args)})"
    return emit


def _template(text: str):
    return lambda args, dtype: text.format(*args, t=c_type(dtype))


def _by_kind(integer, floating, complex_=None):
    """Different C++ for integer (and bool), real floating and complex loop types."""
    def emit(args, dtype):
        kind = np.dtype(dtype).kind
        chosen = integer if kind in "biu" else (floating if kind == "f" else complex_)
        if chosen is None:
            raise TypeError(f"cupy.fuse on warpsim does not support this operation for {dtype}")
        return chosen(args, dtype)
    return emit


def _absolute(args, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return _function("fabs")(args, dtype)
    if dtype.kind == "c":
        return f"abs({args[0]})"
    if dtype.kind == "i":
        return f"({args[0]} < 0 ? -{args[0]} : {args[0]})"
    return args[0]


def _is_float_test(name: str, integer_answer: str):
    return _by_kind(lambda args, dtype: integer_answer, lambda args, dtype: f"{name}({args[0]})",
                    lambda args, dtype: f"{name}({args[0]})")


_ELEMENTARY = {
    "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "sin": "sin",
    "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint",
}
_COMPLEX_ELEMENTARY = {"exp", "log", "log10", "log2", "log1p", "expm1", "sqrt", "sin", "cos",
                       "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
                       "atanh"}


def _elementary(c_name: str):
    real = _function(c_name)
    complex_ = (lambda args, dtype: f"{c_name}({args[0]})") if c_name in _COMPLEX_ELEMENTARY else None
    return _by_kind(real, real, complex_)


# ufunc name -> emit(args, loop dtype) -> C++ expression of the loop's output (compute) type.
UFUNCS = {
    "add": _template("({0} + {1})"),
    "subtract": _template("({0} - {1})"),
    "multiply": _template("({0} * {1})"),
    "true_divide": _template("({0} / {1})"),
    "divide": _template("({0} / {1})"),
    "floor_divide": _by_kind(_template("_fuse_floor_divide_int<{t}>({0}, {1})"),
                             _template("_fuse_floor_divide_float<{t}>({0}, {1})")),
    "remainder": _by_kind(_template("_fuse_remainder_int<{t}>({0}, {1})"),
                          _template("_fuse_remainder_float<{t}>({0}, {1})")),
    "power": _by_kind(_template("_fuse_power_int<{t}>({0}, {1})"), _function("pow"),
                      _template("pow({0}, {1})")),
    "maximum": _template("_fuse_maximum<{t}>({0}, {1})"),
    "minimum": _template("_fuse_minimum<{t}>({0}, {1})"),
    "fmax": _by_kind(_template("_fuse_maximum<{t}>({0}, {1})"), _function("fmax")),
    "fmin": _by_kind(_template("_fuse_minimum<{t}>({0}, {1})"), _function("fmin")),
    "arctan2": _by_kind(None, _function("atan2")),
    "hypot": _by_kind(None, _function("hypot")),
    "copysign": _by_kind(None, _function("copysign")),
    "greater": _template("({0} > {1})"),
    "greater_equal": _template("({0} >= {1})"),
    "less": _template("({0} < {1})"),
    "less_equal": _template("({0} <= {1})"),
    "equal": _template("({0} == {1})"),
    "not_equal": _template("({0} != {1})"),
    "logical_and": _template("((bool)({0}) && (bool)({1}))"),
    "logical_or": _template("((bool)({0}) || (bool)({1}))"),
    "logical_xor": _template("((bool)({0}) != (bool)({1}))"),
    "logical_not": _template("(!(bool)({0}))"),
    "bitwise_and": _template("({0} & {1})"),
    "bitwise_or": _template("({0} | {1})"),
    "bitwise_xor": _template("({0} ^ {1})"),
    "invert": _by_kind(lambda args, dtype: (f"(!{args[0]})" if np.dtype(dtype) == np.bool_
                                            else f"(~{args[0]})"), None),
    "left_shift": _template("_fuse_left_shift<{t}>({0}, {1})"),
    "right_shift": _template("_fuse_right_shift<{t}>({0}, {1})"),
    "negative": _template("(-{0})"),
    "positive": _template("({0})"),
    "absolute": _absolute,
    "square": _template("({0} * {0})"),
    "reciprocal": _template("(({t})1 / {0})"),
    "sign": _by_kind(_template("(({0} > 0) - ({0} < 0))"), _template("_fuse_sign<{t}>({0})")),
    "isnan": _is_float_test("isnan", "false"),
    "isinf": _is_float_test("isinf", "false"),
    "isfinite": _is_float_test("isfinite", "true"),
    **{name: _elementary(c_name) for name, c_name in _ELEMENTARY.items()},
}
