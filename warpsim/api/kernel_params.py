"""Parameters of CuPy's generated kernels: 'T x, raw T y, float32 z' -> types, C names, arguments.

ElementwiseKernel and ReductionKernel (warpsim.api.elementwise, .reduction)
declare their parameters as CuPy does: a NumPy dtype name or a type
placeholder (any other identifier, conventionally one capital letter), an
optional `raw`, and a name. Placeholders are bound to the dtypes of the array
arguments; arrays must match a fixed dtype exactly and agree on a placeholder
(TypeError 'Type is mismatched' otherwise, as in CuPy); scalars are cast to
the type their parameter ends up with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import carray
from .arrays import _wrap_foreign, ndarray

__all__ = ["Parameter", "parse_parameters", "decide_types", "c_type_name", "scalar_argument",
           "pack_argument", "device_array_of"]

C_TYPE_NAMES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float16): "float16", np.dtype(np.float32): "float", np.dtype(np.float64): "double",
    np.dtype(np.complex64): "complex<float>", np.dtype(np.complex128): "complex<double>",
}


def c_type_name(dtype) -> str:
    """The C++ type CuPy names a dtype by in generated kernels (float16 and complex from the header)."""
    dtype = np.dtype(dtype)
    if dtype not in C_TYPE_NAMES:
        raise TypeError(f"dtype {dtype} cannot be used in an ElementwiseKernel or ReductionKernel")
    return C_TYPE_NAMES[dtype]


@dataclass(frozen=True)
class Parameter:
    """One declared parameter: `dtype` for a fixed type, else `placeholder` names its type."""

    name: str
    dtype: np.dtype | None
    placeholder: str | None
    raw: bool
    is_const: bool

    @property
    def ctype(self) -> str:
        """The type's name in the generated source: the placeholder (typedef'd) or the C type."""
        return self.placeholder if self.dtype is None else c_type_name(self.dtype)


def _parse_one(text: str, is_const: bool) -> Parameter:
    words = text.split()
    if len(words) < 2:
        raise ValueError(f"Syntax error: {text!r} (a parameter is '[raw] TYPE NAME')")
    type_word, name = words[-2:]
    for keyword in words[:-2]:
        if keyword != "raw":
            raise ValueError(f"Unknown keyword {keyword!r} in parameter {text!r}")
    if not name.isidentifier():
        raise ValueError(f"Syntax error: {name!r} is not a parameter name")
    dtype = None
    if len(type_word) > 1:
        try:
            dtype = np.dtype(type_word)
        except TypeError:
            dtype = None
        if dtype is not None and dtype.name != type_word:
            raise ValueError(f"Wrong type {type_word}: write the dtype's name ({dtype.name})")
    return Parameter(name, dtype, None if dtype is not None else type_word, "raw" in words[:-2], is_const)


def parse_parameters(text: str, is_const: bool) -> tuple[Parameter, ...]:
    """'T x, raw T y' -> Parameters; in-parameters are const, as in CuPy."""
    text = text.strip()
    if not text:
        return ()
    return tuple(_parse_one(part, is_const) for part in text.split(","))


def _bind(types: dict, param: Parameter, dtype, role: str) -> None:
    dtype = np.dtype(dtype)
    if param.dtype is not None:
        if dtype != param.dtype:
            raise TypeError(f"Type is mismatched. {param.name} {dtype} {param.dtype} ({role} argument)")
    elif param.placeholder in types:
        if types[param.placeholder] != dtype:
            raise TypeError(f"Type is mismatched. {param.name} {dtype} {types[param.placeholder]} "
                            f"{param.placeholder} ({role} argument)")
    else:
        types[param.placeholder] = dtype


def decide_types(in_params, out_params, in_args, out_args) -> tuple[list, list, dict]:
    """(in dtypes, out dtypes, placeholder -> dtype) from the arrays given, as CuPy decides them.

    Output arrays bind first, then input arrays; scalars bind nothing unless a
    placeholder is known from nothing else (then their NumPy dtype, a warpsim
    choice where CuPy fails).
    """
    types: dict = {}
    for param, arg in zip(out_params, out_args):
        if not isinstance(arg, ndarray):
            raise TypeError("Output arguments must be cupy.ndarray")
        _bind(types, param, arg.dtype, "output")
    for param, arg in zip(in_params, in_args):
        if isinstance(arg, ndarray):
            _bind(types, param, arg.dtype, "input")
    for param, arg in zip(in_params, in_args):
        if param.dtype is None and param.placeholder not in types and not isinstance(arg, ndarray):
            types[param.placeholder] = np.asarray(arg).dtype
    def resolve(param):
        if param.dtype is not None:
            return param.dtype
        if param.placeholder not in types:
            raise TypeError(f"the type {param.placeholder} of parameter '{param.name}' is decided by "
                            "no argument: pass an output array of that type")
        return types[param.placeholder]
    return [resolve(p) for p in in_params], [resolve(p) for p in out_params], types


def device_array_of(value):
    """A CuPy-like argument as a device array: `__cupy_get_ndarray__()` or a view through
    `__cuda_array_interface__` (Numba's arrays, PyTorch's); a texture or surface object as its
    64-bit handle (cudaTextureObject_t is unsigned long long); anything else as it is."""
    if isinstance(value, ndarray):
        return value
    if hasattr(value, "__warpsim_handle__"):
        return np.uint64(value.__warpsim_handle__)
    if hasattr(value, "__cupy_get_ndarray__"):
        return value.__cupy_get_ndarray__()
    if hasattr(value, "__cuda_array_interface__"):
        return _wrap_foreign(value)
    return value


def scalar_argument(value, dtype) -> np.generic:
    """A scalar argument as its parameter's type (the bytes the kernel reads)."""
    if isinstance(value, ndarray):
        raise TypeError("an array cannot be passed as a scalar")
    return np.asarray(value).astype(dtype)[()]


def pack_argument(arg, dtype, loop_shape=None, strides=None) -> tuple:
    """(value, signature entry) of one argument: an array indexed by the loop as a CArray over the
    loop shape (with its strides), any other device array raw, anything else a scalar of `dtype`."""
    if loop_shape is not None:
        return carray.pack_carray(arg, loop_shape, strides), ("array", dtype, len(loop_shape))
    if isinstance(arg, ndarray):
        return carray.pack_carray(arg), ("raw", dtype, arg.ndim)
    return scalar_argument(arg, dtype), ("scalar", dtype, 0)


def typedefs(types: dict) -> str:
    """`typedef float T;` for each placeholder, sorted by name as CuPy writes them."""
    return "".join(f"typedef {c_type_name(dtype)} {name};\n" for name, dtype in sorted(types.items()))
