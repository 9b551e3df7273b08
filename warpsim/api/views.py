"""Views that share memory with their array: broadcast_to and broadcast_arrays, as CuPy's.

A broadcast view steps with stride 0 along the stretched axes, so it costs no
memory and a kernel reading it (a RawKernel given its strides, or an
ElementwiseKernel) reads the same element for every index along them.
"""

from __future__ import annotations

from .arrays import asarray, ndarray
from .carray import broadcast_shape, broadcast_view

__all__ = ["broadcast_to", "broadcast_arrays"]


def broadcast_to(array, shape) -> ndarray:
    """A view of `array` with `shape` (zero strides where it is stretched); ValueError as NumPy's."""
    array = array if isinstance(array, ndarray) else asarray(array)
    shape = (int(shape),) if not isinstance(shape, (tuple, list)) else tuple(int(d) for d in shape)
    if broadcast_shape([array.shape, shape]) != shape:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {array.shape} and requested shape {shape}")
    shape, strides = broadcast_view(array, shape)
    return array._view(0, shape, strides)


def broadcast_arrays(*arrays) -> list:
    """Views of all the arrays broadcast to their common shape."""
    arrays = [a if isinstance(a, ndarray) else asarray(a) for a in arrays]
    shape = broadcast_shape([a.shape for a in arrays])
    return [broadcast_to(a, shape) for a in arrays]
