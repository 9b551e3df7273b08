"""Device arrays for `warpsim.cuda` (Numba's host array API), re-exported there.

DeviceNDArray is a warpsim.ndarray with Numba's DeviceNDArray methods;
to_device / device_array / device_array_like allocate on the simulated
device. Pinned, mapped and managed arrays are host NumPy arrays (mapped and
managed ones are marked device-accessible so a launch copies them without a
warning). The interop helpers wrap anything with `__cuda_array_interface__`.
"""

from __future__ import annotations

import contextlib
import ctypes

import numpy as np
from numba.cuda import types as _types

from .. import api
from ..errors import IncompatibleDtype, IncompatibleShape


_ARRAY_TYPES: dict = {}     # (dtype, shape, strides) -> Numba's Array type of a device array


class DeviceNDArray(api.ndarray):
    """A device array with Numba's DeviceNDArray methods (it is a warpsim.ndarray too)."""

    def _view(self, offset, shape, strides, dtype=None):
        plain = super()._view(offset, shape, strides, dtype)
        view = DeviceNDArray(plain.shape, plain.dtype, plain.data, plain.strides)
        view.base = plain.base
        return view

    @property
    def _numba_type_(self):
        key = (self._dtype, self._shape, self._strides)
        found = _ARRAY_TYPES.get(key)
        if found is None:                 # Numba builds a type in tens of µs; every launch asks
            from numba.cuda.np import numpy_support
            flags = self.flags
            layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
            found = _types.Array(numpy_support.from_dtype(self.dtype), self.ndim, layout)
            if len(_ARRAY_TYPES) > 1024:
                _ARRAY_TYPES.clear()
            _ARRAY_TYPES[key] = found
        return found

    @property
    def __cuda_array_interface__(self) -> dict:
        """As Numba's: a `stream` entry, and a null pointer for an empty array."""
        interface = dict(super().__cuda_array_interface__, stream=None)
        if self.size == 0:
            interface["data"] = (0, False)
        return interface

    _numpy_uses_host_copies = True     # np.add(d_ary, 1) is a host array, as with Numba's
    alloc_size = property(lambda self: self.nbytes)
    gpu_data = property(lambda self: DevicePointer(self.data.ptr, self.nbytes, self))
    device_ctypes_pointer = property(lambda self: ctypes.c_void_p(self.data.ptr))
    stream = 0

    def is_c_contiguous(self) -> bool:
        return self.flags.c_contiguous

    def is_f_contiguous(self) -> bool:
        return self.flags.f_contiguous

    def copy_to_host(self, ary=None, stream=0):
        """A host copy (or `ary` filled with the data and returned), as Numba's."""
        host = self.get()
        if self.flags.f_contiguous and not self.flags.c_contiguous:
            host = np.asfortranarray(host)
        if ary is None:
            return host
        _check_compatible(self, ary, "copy_to_host")
        ary.reshape(self.shape)[...] = host
        return ary

    def copy_to_device(self, ary, stream=0) -> None:
        """Overwrite this array from a host or device array of the same dtype and shape (a shape
        that differs only by axes of length 1 is the same, as in Numba)."""
        host = api.asnumpy(ary) if hasattr(ary, "__cuda_array_interface__") else np.asarray(ary)
        _check_compatible(self, host, "copy_to_device")
        self._write_host(host.reshape(self.shape))

    def split(self, section: int, stream=0):
        """Views of consecutive `section`-sized pieces of a 1-D array."""
        if self.ndim != 1:
            raise ValueError("only support splitting 1D array")
        return [self[begin:begin + section] for begin in range(0, self.size, section)]

    def squeeze(self, axis=None, stream=0):
        axes = [a for a, dim in enumerate(self.shape) if dim == 1] if axis is None else \
            [a % self.ndim for a in (axis if isinstance(axis, tuple) else (axis,))]
        keep = [a for a in range(self.ndim) if a not in axes]
        return self._view(0, tuple(self.shape[a] for a in keep),
                          tuple(self.strides[a] for a in keep))

    def bind(self, stream=0) -> "DeviceNDArray":
        return self

    def as_cuda_arg(self):
        return self.data

    def get_ipc_handle(self):
        raise NotImplementedError("warpsim has one simulated device in one process: no IPC")

    def __getitem__(self, key):
        """A view; a single element comes back to the host as a scalar (as in Numba)."""
        result = super().__getitem__(key)
        if isinstance(result, api.ndarray) and result.ndim == 0:
            return result.get()[()]
        return result

    def __array__(self, dtype=None, copy=None):
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype)

    def __repr__(self) -> str:
        return f"<warpsim.cuda.DeviceNDArray shape={self.shape} dtype={self.dtype}>"


class DevicePointer:
    """`DeviceNDArray.gpu_data`: the address, under the names Numba's MemoryPointer uses."""

    def __init__(self, pointer: int, size: int, owner=None):
        self.device_pointer = self.handle = int(pointer)
        self.size, self.owner = size, owner

    @property
    def device_pointer_value(self):
        return self.device_pointer or None

    def __int__(self) -> int:
        return self.device_pointer

    def __eq__(self, other) -> bool:
        return isinstance(other, DevicePointer) and other.device_pointer == self.device_pointer

    def __hash__(self) -> int:
        return hash(self.device_pointer)

    def __repr__(self) -> str:
        return f"<DevicePointer 0x{self.device_pointer:x} ({self.size} bytes)>"


def _check_compatible(device: DeviceNDArray, other, method: str) -> None:
    """Numba's refusals of a copy between arrays that differ: IncompatibleArrays, a TypeError for
    another dtype and a ValueError for another shape (once axes of length 1 are squeezed out),
    with Numba's message first and then both arrays' sizes and the device address."""
    if other.dtype != device.dtype:
        problem = f"incompatible dtype: {device.dtype} vs. {other.dtype}"
    elif _squeezed(device.shape) != _squeezed(other.shape):
        problem = f"incompatible shape: {device.shape} vs. {other.shape}"
    else:
        return
    kind = IncompatibleDtype if problem.startswith("incompatible dtype") else IncompatibleShape
    raise kind(f"{problem} ({method}: the device array at 0x{device.data.ptr:x} holds {device.size} "
               f"{device.dtype} elements, {device.nbytes} bytes; the other array {other.size} "
               f"{other.dtype} elements, {other.nbytes} bytes)")


def _squeezed(shape) -> tuple:
    return tuple(n for n in shape if n != 1)


def _device_array(shape, dtype, strides=None, order: str = "C") -> DeviceNDArray:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    dtype = np.dtype(dtype)
    if strides is not None:
        extent = dtype.itemsize + sum((dim - 1) * abs(stride)
                                      for dim, stride in zip(shape, strides))
        backing = DeviceNDArray((extent if 0 not in shape else 0,), np.uint8)
        array = DeviceNDArray(shape, dtype, backing.data, strides)
        array.base = backing
        return array
    return DeviceNDArray(shape, dtype, order=order)


def to_device(obj, stream=0, copy: bool = True, to=None):
    """Copy a host array (or record) to the device; a device array is returned as it is."""
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    if hasattr(obj, "__cuda_array_interface__"):
        return obj if isinstance(obj, DeviceNDArray) else as_cuda_array(obj)
    if isinstance(obj, np.ma.MaskedArray):
        raise NotImplementedError("Masked arrays are not supported")
    host = np.asarray(obj)
    device = DeviceNDArray(host.shape, host.dtype, order=_like_order(host))
    if copy:
        device.set(host)
    return device


def device_array(shape, dtype=np.float64, strides=None, order: str = "C",
                 stream=0) -> DeviceNDArray:
    """Uninitialized device memory, like numba.cuda.device_array."""
    return _device_array(shape, dtype, strides, order)


def device_array_like(ary, stream=0) -> DeviceNDArray:
    """A new contiguous device array with `ary`'s shape, dtype and axis order."""
    return _device_array(ary.shape, ary.dtype, _strides_like(ary), _like_order(ary))


class MappedArray(np.ndarray):
    """A host array the device can reach (mapped or managed memory): no copy warning."""

    _device_accessible = True


def _like_order(ary) -> str:
    flags = ary.flags
    return "F" if flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"] else "C"


def _strides_like(ary):
    """Contiguous strides for a copy of a non-contiguous `ary` that keep its axis order
    (NumPy's empty_like rule, which Numba follows); None when C or F order does."""
    flags = ary.flags
    if flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"] or ary.ndim <= 1:
        return None
    strides, step = [0] * ary.ndim, ary.dtype.itemsize
    for axis in sorted(range(ary.ndim), key=lambda a: ary.strides[a]):
        strides[axis] = step
        step *= ary.shape[axis]
    return tuple(strides)


def _host_like(ary, kind=np.ndarray) -> np.ndarray:
    strides = _strides_like(ary)
    if strides is None:
        return np.empty(ary.shape, ary.dtype, order=_like_order(ary)).view(kind)
    buffer = np.empty(max(1, int(np.prod(ary.shape)) * ary.dtype.itemsize), np.uint8)
    return np.ndarray(ary.shape, ary.dtype, buffer=buffer, strides=strides).view(kind)


def pinned_array(shape, dtype=np.float64, strides=None, order: str = "C") -> np.ndarray:
    """A host array (warpsim has no page-locked memory; copies behave the same)."""
    return np.empty(shape, dtype, order=order)


def mapped_array(shape, dtype=np.float64, strides=None, order: str = "C", stream=0,
                 portable: bool = False, wc: bool = False) -> np.ndarray:
    """A host array; passed to a kernel it is copied in and back out, as mapped memory behaves."""
    return np.empty(shape, dtype, order=order).view(MappedArray)


def managed_array(shape, dtype=np.float64, strides=None, order: str = "C", stream=0,
                  attach_global: bool = True) -> np.ndarray:
    """A host array standing in for managed memory (copied around each launch)."""
    return np.empty(shape, dtype, order=order).view(MappedArray)


def pinned_array_like(ary) -> np.ndarray:
    return _host_like(ary)


def mapped_array_like(ary, stream=0, portable: bool = False, wc: bool = False) -> np.ndarray:
    return _host_like(ary, MappedArray)


@contextlib.contextmanager
def pinned(*arrays):
    yield


@contextlib.contextmanager
def mapped(*arrays, **kwargs):
    yield arrays[0] if len(arrays) == 1 else list(arrays)


def is_cuda_array(obj) -> bool:
    return hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc: dict, owner=None, sync: bool = True) -> DeviceNDArray:
    """A DeviceNDArray over the memory an interface describes (no copy)."""
    shape, dtype = tuple(desc["shape"]), np.dtype(desc["typestr"])
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    memory = api.UnownedMemory(desc["data"][0], size, owner, api.current_device())
    return DeviceNDArray(shape, dtype, api.MemoryPointer(memory), desc.get("strides"))


def as_cuda_array(obj, sync: bool = True) -> DeviceNDArray:
    if not is_cuda_array(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)
