"""CuPy's ElementwiseKernel: an operation written for one element, generated as a CUDA kernel.

As in CuPy, the kernel is CUDA C++ generated from the parameter lists and the
operation, compiled by NVRTC with CuPy's -ftz=true, once per combination of
argument types and dimensions, and launched with 128 threads a block over a
grid-stride loop. So it runs on the simulated machine like any RawKernel and
shows in `warpsim.profile()` under its `name`.

In the operation, each non-raw parameter is a reference to the current
element, a `raw` parameter is the whole CArray (`x[i]`, `x[_ind.get()]`,
`x.size()`), `i` is the flat loop index and `_ind` the loop's indexer.
Non-raw arrays broadcast against each other; outputs are allocated when not
given. Difference from CuPy: with reduce_dims=True, axes are merged only where
every array steps uniformly (CuPy merges the same ones), so `_ind.get()` sees
the same dimensions.
"""

from __future__ import annotations

import numpy as np

from . import carray
from .arrays import ndarray
from .kernel_params import decide_types, device_array_of, pack_argument, parse_parameters, typedefs
from .raw import RawModule

__all__ = ["ElementwiseKernel"]

BLOCK_SIZE = 128     # CuPy's default block for elementwise launches


class ElementwiseKernel:
    """ElementwiseKernel(in_params, out_params, operation, name='kernel', ...) as in CuPy."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel",
                 reduce_dims: bool = True, preamble: str = "", no_return: bool = False,
                 return_tuple: bool = False, loop_prep: str = "", after_loop: str = "", options=()):
        if not name.isidentifier():
            raise ValueError(f"Invalid kernel name {name!r}")
        self.in_params = parse_parameters(in_params, True)
        self.out_params = parse_parameters(out_params, False)
        names = [p.name for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise ValueError("Parameter names are not unique")
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.operation, self.name, self.reduce_dims = operation, name, reduce_dims
        self.preamble, self.loop_prep, self.after_loop = preamble, loop_prep, after_loop
        self.no_return, self.return_tuple = no_return, return_tuple
        self.options = tuple(options)
        self.params = self.in_params + self.out_params
        self._modules: dict = {}

    def __call__(self, *args, size=None, block_size=None, stream=None):
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name!r}: {self.nin} or "
                            f"{self.nargs} expected, {len(args)} given")
        if block_size is not None and not 1 <= int(block_size) <= 1024:
            raise ValueError(f"block_size must be 1 to 1024 threads, got {block_size}")
        args = [device_array_of(a) if not isinstance(a, np.ndarray) else _refuse_host(a) for a in args]
        loop_shape = self._loop_shape(args, size)
        in_args, out_args = list(args[:self.nin]), list(args[self.nin:])
        in_types, out_types, types = decide_types(self.in_params, self.out_params, in_args, out_args)
        out_args = self._outputs(out_args, out_types, loop_shape, size is not None)
        result = None if self.no_return else (
            out_args[0] if self.nout == 1 and not self.return_tuple else tuple(out_args))
        if 0 in loop_shape:
            return result
        in_args = [a.copy() if isinstance(a, ndarray) and any(
            a is not o and carray.may_share_memory(a, o) for o in out_args) else a for a in in_args]
        self._launch(in_args + out_args, in_types + out_types, types, loop_shape, block_size)
        return result

    # --- the call's pieces ----------------------------------------------------
    def _loop_shape(self, args, size) -> tuple:
        arrays = [a for a, p in zip(args, self.params) if isinstance(a, ndarray) and not p.raw]
        if size is not None:
            if arrays:
                raise ValueError("Specified 'size' can be used only if all of the ndarray are 'raw'.")
            return (int(size),)
        if not arrays:
            raise ValueError("Loop size is undecided.")
        return carray.broadcast_shape([a.shape for a in arrays])

    def _outputs(self, out_args, out_types, shape, size_given) -> list:
        if not out_args:
            if any(p.raw for p in self.out_params) and not size_given:
                raise ValueError("Output array size is Undecided")
            return [ndarray(shape, dtype) for dtype in out_types]
        for param, arg in zip(self.out_params, out_args):
            if not param.raw and arg.shape != shape:
                raise ValueError(f"Out shape is mismatched: {param.name} has shape {arg.shape}, "
                                 f"the loop is {shape}")
        return out_args

    def _launch(self, args, dtypes, types, loop_shape, block_size) -> None:
        views = [carray.broadcast_view(a, loop_shape)[1] if isinstance(a, ndarray) and not p.raw
                 else None for a, p in zip(args, self.params)]
        shape = tuple(loop_shape)
        strides = [v for v in views if v is not None]
        if self.reduce_dims:
            shape, strides = carray.collapse_dims(shape, strides)
        strides = iter(strides)
        values, signature = [], []
        for arg, dtype, view in zip(args, dtypes, views):
            value, entry = (pack_argument(arg, dtype, shape, next(strides)) if view is not None
                            else pack_argument(arg, dtype))
            values.append(value)
            signature.append(entry)
        values.append(carray.pack_indexer(shape))
        kernel = self._kernel(tuple(signature), types, len(shape))
        threads = int(block_size or BLOCK_SIZE)
        blocks = max(1, min((int(np.prod(shape, dtype=np.int64)) + threads - 1) // threads, 0x7FFFFFFF))
        kernel((blocks,), (threads,), tuple(values))

    @property
    def _cached_codes(self) -> dict:
        """The kernels compiled so far, one per (signature, types, dimensions), as CuPy's cache."""
        return self._modules

    def _kernel(self, signature, types, ndim):
        key = (signature, tuple(sorted(types.items())), ndim)
        if key not in self._modules:
            source = self.source(signature, types, ndim)
            self._modules[key] = RawModule(code=source, options=self.options).get_function(self.name)
        return self._modules[key]

    def source(self, signature, types, ndim) -> str:
        """The CUDA C++ of the kernel for one signature of (kind, dtype, ndim) per parameter."""
        declarations, bindings = [], []
        for param, (kind, dtype, dims) in zip(self.params, signature):
            const = "const " if param.is_const else ""
            if kind == "scalar":
                declarations.append(f"{const}{param.ctype} {param.name}")
            elif kind == "raw":
                declarations.append(f"CArray<{param.ctype}, {dims}> {param.name}")
            else:
                declarations.append(f"CArray<{param.ctype}, {dims}> _raw_{param.name}")
                bindings.append(f"{const}{param.ctype} &{param.name} = _raw_{param.name}[_ind.get()];")
        declarations.append(f"CIndexer<{ndim}> _ind")
        body = "\n    ".join(bindings)
        return (carray.header_for([d for _, d, _ in signature]) + typedefs(types) + self.preamble + "\n"
                f'extern "C" __global__ void {self.name}({", ".join(declarations)}) {{\n'
                f"  {self.loop_prep};\n"
                "  for (ptrdiff_t i = (ptrdiff_t)blockIdx.x * blockDim.x + threadIdx.x; i < _ind.size();\n"
                "       i += (ptrdiff_t)blockDim.x * gridDim.x) {\n"
                "    _ind.set(i);\n"
                f"    {body}\n"
                f"    {self.operation};\n"
                "  }\n"
                f"  {self.after_loop};\n"
                "}\n")

    def __repr__(self) -> str:
        return f"<warpsim ElementwiseKernel {self.name}>"


def _refuse_host(value):
    raise TypeError(f"Unsupported type {type(value)}: pass device arrays (warpsim.asarray(x)) "
                    "or scalars to an ElementwiseKernel")
