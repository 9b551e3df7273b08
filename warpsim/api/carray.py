"""Arrays and indexers as CuPy's generated kernels take them: CArray<T, ndim> and CIndexer<ndim>.

A generated kernel receives each array as a struct by value (pointer, size,
shape, byte strides) and the loop's shape as an indexer that turns a flat
index into a multi-index. The C++ of both is warpsim's own cupy/carray.cuh
(warpsim/api/include, on every kernel's include path as CuPy's is), with the
members CuPy's kernels use (`x[i]`, `x[idx]`, `size()`, `shape()`,
`strides()`, `_ind.set(i)`, `_ind.get()`, `_ind.size()`); the host side packs
the same layout (pack_carray, pack_indexer). float16 is CUDA's __half and
complex<T> is cupy/complex.cuh's.
"""

from __future__ import annotations

import struct

import numpy as np

from .arrays import ndarray

__all__ = ["HEADER", "header_for", "pack_carray", "pack_indexer", "broadcast_shape",
           "broadcast_view", "collapse_dims", "may_share_memory"]

HEADER = "#include <cupy/carray.cuh>\n"     # warpsim/api/include/cupy/carray.cuh (see warpsim.api.headers)

_COMPLEX = "#include <cupy/complex.cuh>\n"


def header_for(dtypes) -> str:
    """HEADER, plus cupy/complex.cuh only when a complex dtype is used (it is slow to compile)."""
    uses_complex = any(np.dtype(d).kind == "c" for d in dtypes)
    return HEADER + (_COMPLEX if uses_complex else "")


def pack_carray(array: ndarray, shape=None, strides=None) -> bytes:
    """The bytes of CArray<T, ndim>: the array seen with `shape`/`strides` (default: its own)."""
    shape = tuple(array.shape if shape is None else shape)
    strides = tuple(array.strides if strides is None else strides)
    size = int(np.prod(shape, dtype=np.int64))
    return struct.pack(f"<Qq{len(shape)}q{len(strides)}q", array.data.ptr, size, *shape, *strides)


def pack_indexer(shape) -> bytes:
    """The bytes of CIndexer<ndim> for a loop over `shape` (the index slots start at zero)."""
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    return struct.pack(f"<q{len(shape)}q{len(shape)}q", size, *shape, *([0] * len(shape)))


def broadcast_shape(shapes) -> tuple[int, ...]:
    """NumPy's broadcast of the shapes (ValueError, as NumPy's, when they do not broadcast)."""
    return tuple(np.broadcast_shapes(*shapes))


def broadcast_view(array: ndarray, shape) -> tuple[tuple, tuple]:
    """(shape, strides) of `array` broadcast to `shape`: stride 0 along stretched axes."""
    shape = tuple(shape)
    lead = len(shape) - array.ndim
    strides = [0] * lead
    for axis, (dim, stride) in enumerate(zip(array.shape, array.strides)):
        strides.append(0 if dim == 1 and shape[lead + axis] != 1 else stride)
    return shape, tuple(strides)


def collapse_dims(shape, stride_lists):
    """Merge adjacent axes along which every array steps uniformly (CuPy's reduce_dims).

    Returns (shape, stride lists) with fewer axes and the same elements in the
    same C order; axes of length 1 are dropped.
    """
    keep = [axis for axis, dim in enumerate(shape) if dim != 1]
    shape = [shape[axis] for axis in keep]
    stride_lists = [[strides[axis] for axis in keep] for strides in stride_lists]
    axis = len(shape) - 1
    while axis > 0:
        if all(strides[axis - 1] == strides[axis] * shape[axis] for strides in stride_lists):
            shape[axis - 1] *= shape[axis]
            del shape[axis]
            for strides in stride_lists:
                strides[axis - 1] = strides[axis]
                del strides[axis]
        axis -= 1
    return tuple(shape), [tuple(strides) for strides in stride_lists]


def may_share_memory(a: ndarray, b: ndarray) -> bool:
    """Whether the byte ranges of two arrays overlap (same allocation, overlapping spans)."""
    if a.data.mem is not b.data.mem:
        return False
    a_low, a_high = a._span()
    b_low, b_high = b._span()
    return a.data.ptr + a_low < b.data.ptr + b_high and b.data.ptr + b_low < a.data.ptr + a_high
