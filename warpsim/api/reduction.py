"""CuPy's ReductionKernel: map each element, reduce along axes, post-map into the outputs.

As in CuPy, the kernel is CUDA C++ generated from the expressions and compiled
by NVRTC with -ftz=true (once per combination of types and dimensions), laid
out as CuPy lays it out: a power of two of threads (1 to 256) per output
element, each folding a strided share of the reduced elements with
`reduce_expr`, then a tree in shared memory; a block holds as many outputs
as fit in 256 threads. Expressions
use CuPy's names: `a` and `b` in reduce_expr, `a` in post_map_expr (of type
`_type_reduce`, the reduce_type, default the first output's type), the input
parameter names in map_expr, and `_in_ind`, `_out_ind`, `_J` (elements per
output), `_j` (this element's place among them).

Without an identity, a thread that has seen no element contributes nothing
(a flag travels with each partial), and reducing zero elements is an error.
Reduction order differs from CuPy's, so floating-point sums differ in the last
bits, as they do between GPUs.
"""

from __future__ import annotations

import operator

import numpy as np

from . import carray
from .arrays import ndarray
from .kernel_params import decide_types, device_array_of, pack_argument, parse_parameters, typedefs
from .raw import RawModule

__all__ = ["ReductionKernel"]

MAX_BLOCK = 256


def _power_of_two_at_least(n: int, limit: int) -> int:
    value = 1
    while value < limit and value < n:
        value *= 2
    return value


def _layout(reduced: int, outputs: int) -> tuple[int, int]:
    """(threads per output, outputs per block), as CuPy lays a reduction out: a power of two of
    threads (1 to MAX_BLOCK) shares each output's elements, and a block holds as many outputs
    as fit in MAX_BLOCK threads, so a short reduction over many outputs is not one block each."""
    stride = _power_of_two_at_least(reduced, MAX_BLOCK)
    return stride, _power_of_two_at_least(outputs, MAX_BLOCK // stride)


def _axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    normalized = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(f"axis {a} is out of bounds for array of dimension {ndim}")
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(normalized))


class ReductionKernel:
    """ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, ...)."""

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity, name: str = "reduce_kernel", reduce_type=None,
                 reduce_dims: bool = True, preamble: str = "", options=()):
        if not name.isidentifier():
            raise ValueError(f"Invalid kernel name {name!r}")
        self.in_params = parse_parameters(in_params, True)
        self.out_params = parse_parameters(out_params, False)
        if any(p.raw for p in self.out_params):
            raise NotImplementedError("raw output parameters are not supported in ReductionKernel")
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = None if identity is None else str(identity)
        self.name, self.reduce_dims, self.preamble = name, reduce_dims, preamble
        self.reduce_type = reduce_type if reduce_type is not None else self.out_params[0].ctype
        self.options = tuple(options)
        self._modules: dict = {}

    def __call__(self, *args, out=None, axis=None, keepdims: bool = False, stream=None):
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name!r}: {self.nin} or "
                            f"{self.nargs} expected, {len(args)} given")
        if out is not None:
            if len(args) == self.nargs:
                raise ValueError("cannot specify 'out' as both a positional and keyword argument")
            args = tuple(args) + (out if isinstance(out, tuple) else (out,))
        args = [device_array_of(a) for a in args]
        in_args, out_args = list(args[:self.nin]), list(args[self.nin:])
        arrays = [a for a, p in zip(in_args, self.in_params) if isinstance(a, ndarray) and not p.raw]
        if not arrays:
            raise ValueError("Loop size is undecided.")
        in_shape = carray.broadcast_shape([a.shape for a in arrays])
        axes = _axes(axis, len(in_shape))
        kept = [d for d in range(len(in_shape)) if d not in axes]
        out_shape = tuple(in_shape[d] for d in kept)
        result_shape = tuple(1 if d in axes else in_shape[d] for d in range(len(in_shape))) \
            if keepdims else out_shape
        in_types, out_types, types = decide_types(self.in_params, self.out_params, in_args, out_args)
        if out_args:
            for param, arg in zip(self.out_params, out_args):
                if arg.shape != result_shape:
                    raise ValueError(f"Out shape is mismatched: {param.name} has shape {arg.shape}, "
                                     f"the result is {result_shape}")
        else:
            out_args = [ndarray(result_shape, dtype) for dtype in out_types]
        result = out_args[0] if self.nout == 1 else tuple(out_args)
        reduced = int(np.prod([in_shape[d] for d in axes], dtype=np.int64))
        outputs = int(np.prod(out_shape, dtype=np.int64))
        if outputs == 0:
            return result
        if reduced == 0 and self.identity is None:
            raise ValueError(f"zero-size array to reduction operation {self.name} which has no identity")
        self._launch(in_args, out_args, in_types + out_types, types, in_shape, axes, kept, keepdims)
        return result

    def _launch(self, in_args, out_args, dtypes, types, in_shape, axes, kept, keepdims) -> None:
        order = kept + list(axes)                      # kept axes first: flat index = out * _J + j
        loop_shape = tuple(in_shape[d] for d in order)
        out_shape = tuple(in_shape[d] for d in kept)
        in_strides = []
        for arg, param in zip(in_args, self.in_params):
            if isinstance(arg, ndarray) and not param.raw:
                strides = carray.broadcast_view(arg, in_shape)[1]
                in_strides.append(tuple(strides[d] for d in order))
        out_strides = [tuple(o.strides[d] for d in kept) if o.ndim == len(in_shape) and keepdims
                       else o.strides for o in out_args]
        in_loop, out_loop = loop_shape, out_shape
        if self.reduce_dims:
            in_loop, in_strides = _collapse_within(loop_shape, len(kept), in_strides)
            out_loop, out_strides = carray.collapse_dims(out_shape, out_strides)
        values, signature = [], []
        strides_in = iter(in_strides)
        packed = [pack_argument(arg, dtype, in_loop, next(strides_in))
                  if isinstance(arg, ndarray) and not param.raw else pack_argument(arg, dtype)
                  for arg, param, dtype in zip(in_args, self.in_params, dtypes)]
        packed += [pack_argument(arg, dtype, out_loop, strides)
                   for arg, strides, dtype in zip(out_args, out_strides, dtypes[self.nin:])]
        for value, entry in packed:
            values.append(value)
            signature.append(entry)
        reduced = int(np.prod([in_shape[d] for d in axes], dtype=np.int64))
        values += [carray.pack_indexer(in_loop), carray.pack_indexer(out_loop), np.int64(reduced)]
        outputs = int(np.prod(out_shape, dtype=np.int64))
        stride, per_block = _layout(reduced, outputs)
        kernel = self._kernel(tuple(signature), types, len(in_loop), len(out_loop), (stride, per_block))
        blocks = min(-(-outputs // per_block), 0x7FFFFFFF)
        kernel((blocks,), (stride * per_block,), tuple(values))

    @property
    def _cached_codes(self) -> dict:
        """The kernels compiled so far, one per (signature, types, dimensions), as CuPy's cache."""
        return self._modules

    def _kernel(self, signature, types, in_ndim, out_ndim, layout):
        key = (signature, tuple(sorted(types.items())), in_ndim, out_ndim, layout)
        if key not in self._modules:
            source = self.source(signature, types, in_ndim, out_ndim, layout)
            self._modules[key] = RawModule(code=source, options=self.options).get_function(self.name)
        return self._modules[key]

    def source(self, signature, types, in_ndim, out_ndim, layout) -> str:
        """The CUDA C++ of the kernel for one signature of (kind, dtype, ndim) per parameter and a
        layout of (threads per output, outputs per block)."""
        stride, per_block = layout
        block = stride * per_block
        declarations, inputs, outputs = [], [], []
        for param, (kind, dtype, dims) in zip(self.params, signature):
            const = "const " if param.is_const else ""
            if kind == "scalar":
                declarations.append(f"{const}{param.ctype} {param.name}")
            elif kind == "raw":
                declarations.append(f"CArray<{param.ctype}, {dims}> {param.name}")
            else:
                declarations.append(f"CArray<{param.ctype}, {dims}> _raw_{param.name}")
                index = "_in_ind" if param.is_const else "_out_ind"
                line = f"{const}{param.ctype} &{param.name} = _raw_{param.name}[{index}.get()];"
                (inputs if param.is_const else outputs).append(line)
        declarations += [f"CIndexer<{in_ndim}> _in_ind", f"CIndexer<{out_ndim}> _out_ind",
                         "const ptrdiff_t _J"]
        has_identity = self.identity is not None
        start = f"_type_reduce({self.identity})" if has_identity else "_type_reduce()"
        fold = ("_s = REDUCE(_s, _m);" if has_identity else
                "_s = _seen ? REDUCE(_s, _m) : _m; _seen = true;")
        combine = ("_s = REDUCE(_s, _sdata[threadIdx.x + _k]);" if has_identity else
                   "if (_sseen[threadIdx.x + _k]) { _s = _seen ? REDUCE(_s, _sdata[threadIdx.x + _k])"
                   " : _sdata[threadIdx.x + _k]; _seen = true; }")
        n = "\n"
        return (carray.header_for([d for _, d, _ in signature]) + typedefs(types)
                + f"typedef {self.reduce_type} _type_reduce;\n" + self.preamble + "\n"
                + f"#define REDUCE(a, b) ({self.reduce_expr})\n"
                + f"#define POST_MAP(a) ({self.post_map_expr})\n"
                + f'extern "C" __global__ void {self.name}({", ".join(declarations)}) {{\n'
                + f"  __shared__ _type_reduce _sdata[{block}];\n"
                + f"  __shared__ bool _sseen[{block}];\n"
                + f"  const ptrdiff_t _tid = threadIdx.x % {stride}, _group = threadIdx.x / {stride};\n"
                + f"  for (ptrdiff_t _base = (ptrdiff_t)blockIdx.x * {per_block}; _base < _out_ind.size();"
                + f" _base += (ptrdiff_t)gridDim.x * {per_block}) {{\n"
                + "    const ptrdiff_t _out = _base + _group;\n"
                + "    const bool _valid = _out < _out_ind.size();\n"
                + f"    _type_reduce _s = {start};\n"
                + "    bool _seen = false;\n"
                + f"    for (ptrdiff_t _j = _tid; _valid && _j < _J; _j += {stride}) {{\n"
                + "      _in_ind.set(_out * _J + _j);\n"
                + "".join(f"      {line}{n}" for line in inputs)
                + f"      _type_reduce _m = static_cast<_type_reduce>({self.map_expr});\n"
                + f"      {fold}\n"
                + "    }\n"
                + "    _sdata[threadIdx.x] = _s;\n"
                + "    _sseen[threadIdx.x] = _seen;\n"
                + "    __syncthreads();\n"
                + f"    for (int _k = {stride // 2}; _k > 0; _k >>= 1) {{\n"
                + "      if (_tid < _k) {\n"
                + f"        {combine}\n"
                + "        _sdata[threadIdx.x] = _s;\n"
                + "        _sseen[threadIdx.x] = _seen;\n"
                + "      }\n"
                + "      __syncthreads();\n"
                + "    }\n"
                + "    if (_tid == 0 && _valid) {\n"
                + "      _out_ind.set(_out);\n"
                + "      _type_reduce a = _sdata[threadIdx.x];\n"
                + "".join(f"      {line}{n}" for line in outputs)
                + "      POST_MAP(a);\n"
                + "    }\n"
                + "    __syncthreads();\n"
                + "  }\n"
                + "}\n")

    def __repr__(self) -> str:
        return f"<warpsim ReductionKernel {self.name}>"


def _collapse_within(loop_shape, kept: int, stride_lists):
    """collapse_dims over the kept axes and over the reduced axes separately (never across)."""
    outer, outer_strides = carray.collapse_dims(loop_shape[:kept], [s[:kept] for s in stride_lists])
    inner, inner_strides = carray.collapse_dims(loop_shape[kept:], [s[kept:] for s in stride_lists])
    return outer + inner, [o + i for o, i in zip(outer_strides, inner_strides)]
