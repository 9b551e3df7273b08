"""NumPy arrays as Triton kernel arguments under the warpsim backend, addressed in place.

Triton's argument binder (its native specialize_impl) takes an object as a
tensor only if it has `data_ptr()` and a `dtype`; a NumPy array has neither,
so on a GPU it is refused ("failed to specialize argument of type: ndarray").
On warpsim host memory is device memory (docs/triton.md, "Memory"), so while
the backend is active an array is specialized as the tensor over its own
bytes (`TensorView`: the array's address and dtype name) and launched in
place, as a torch CPU tensor is; kernels write the array itself.
"""

from __future__ import annotations

import numpy as np

_ORIGINAL: dict = {}


class TritonDtype(str):
    """A dtype's name (what Triton's specializer maps to a Triton type) that also carries its
    size and kind, as torch dtypes do."""

    def __new__(cls, dtype):
        dtype = np.dtype(dtype)
        name = super().__new__(cls, dtype.name)
        name.itemsize = dtype.itemsize
        name.is_floating_point = dtype.kind == "f"
        return name


class TensorView:
    """What Triton's specializer reads of a tensor (data_ptr and dtype), for a NumPy array."""

    def __init__(self, array: np.ndarray):
        self.array = array
        self.dtype = TritonDtype(array.dtype)

    def data_ptr(self) -> int:
        return int(self.array.__array_interface__["data"][0])


def array_block(array: np.ndarray) -> tuple[int, int, int]:
    """(block base, block bytes, pointer) of an array: the memory of the array it views, so views of
    one buffer share one registered range."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    pointer = int(array.__array_interface__["data"][0])
    base = int(owner.__array_interface__["data"][0])
    nbytes = owner.nbytes
    if not base <= pointer < base + max(nbytes, 1):       # a view over foreign memory: its own bytes
        return pointer, array.nbytes, pointer
    return base, nbytes, pointer


def _specialize(original):
    def specialize_impl(backend, arg, *rest):
        return original(backend, TensorView(arg) if isinstance(arg, np.ndarray) else arg, *rest)
    return specialize_impl


def install() -> None:
    """Let Triton's binders specialize NumPy arrays (for binders made while the backend is active)."""
    import triton.runtime.jit as jit
    if "native_specialize_impl" not in _ORIGINAL:
        _ORIGINAL["native_specialize_impl"] = jit.native_specialize_impl
        jit.native_specialize_impl = _specialize(jit.native_specialize_impl)


def uninstall() -> None:
    import triton.runtime.jit as jit
    if "native_specialize_impl" in _ORIGINAL:
        jit.native_specialize_impl = _ORIGINAL.pop("native_specialize_impl")
