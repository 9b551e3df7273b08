"""Device arrays in the simulated GPU's global memory, CuPy's way.

Arrays live at real 64-bit device addresses, so a kernel receives the same
kind of pointer it would on a GPU. Creation and transfer (asarray, zeros,
empty, get, asnumpy, ...), basic slicing (views) and the array's layout are
here. Arithmetic, in-place operators, reductions and the methods NumPy
arrays have (warpsim.api.host_math), NumPy's functions and ufuncs
(warpsim.api.host_functions) and advanced indexing run NumPy on host images
of device memory (warpsim.api.host_calls): values are NumPy's, memory
behaves as on the device (views alias their base, `out=` fills the array
given), and none of it is simulated.

Which device: the one installed by `use_device(device)` around the call, else
`warpsim.machine.device.default_device()`. An array remembers its device and
a launch refuses arrays from another.
"""

from __future__ import annotations

import operator

import numpy as np

from .host_calls import call_on_host
from .host_functions import host_function as _host_function
from .host_functions import ufunc
from .host_math import HostArithmetic
from .streams import get_current_stream
from .memory import (Memory, MemoryPointer, UnownedMemory, alloc, current_device,  # noqa: F401
                     use_device)
dtype = np.dtype
newaxis = None
bool_, int8, int16, int32, int64 = np.bool_, np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64, complex64, complex128 = np.float16, np.float32, np.float64, np.complex64, np.complex128
intp, uintp, byte, ubyte, short, ushort = np.intp, np.uintp, np.byte, np.ubyte, np.short, np.ushort
intc, uintc, longlong, ulonglong = np.intc, np.uintc, np.longlong, np.ulonglong
half, single, double, csingle, cdouble = np.half, np.single, np.double, np.csingle, np.cdouble



# --- shapes and indexing -----------------------------------------------------

def _normalize_shape(shape) -> tuple[int, ...]:
    try:
        dims = (operator.index(shape),)
    except TypeError:
        dims = tuple(operator.index(dim) for dim in shape)
    if any(dim < 0 for dim in dims):
        raise ValueError(f"negative dimensions are not allowed: {dims}")
    return dims


def contiguous_strides(shape, itemsize: int, order: str = "C") -> tuple[int, ...]:
    strides, step = [], itemsize
    for dim in (reversed(shape) if order == "C" else shape):
        strides.append(step)
        step *= max(dim, 1)
    return tuple(reversed(strides)) if order == "C" else tuple(strides)


def _is_contiguous(shape, strides, itemsize: int, order: str) -> bool:
    if 0 in shape:
        return True
    expected = itemsize
    for dim, stride in (zip(reversed(shape), reversed(strides)) if order == "C" else zip(shape, strides)):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


def _resolve_reshape(shape, size: int) -> tuple[int, ...]:
    """The target shape of a reshape, with at most one -1 worked out from `size`."""
    try:
        dims = [operator.index(shape)]
    except TypeError:
        dims = [operator.index(dim) for dim in shape]
    if dims.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(dim < -1 for dim in dims):
        raise ValueError(f"negative dimensions not allowed: {tuple(dims)}")
    known = int(np.prod([dim for dim in dims if dim != -1], dtype=np.int64))
    if -1 in dims and known and size % known == 0:
        dims[dims.index(-1)] = size // known
    if -1 in dims or int(np.prod(dims, dtype=np.int64)) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {tuple(dims)}")
    return tuple(dims)


def _is_basic_key(item) -> bool:
    if item is None or item is Ellipsis or isinstance(item, slice):
        return True
    if isinstance(item, (bool, np.bool_)):
        return False
    try:
        operator.index(item)
        return not isinstance(item, (ndarray, np.ndarray))
    except TypeError:
        return False


def _basic_index(shape, strides, key):
    """(byte offset, shape, strides) of the view `key` selects, or None if key is not basic."""
    key = key if isinstance(key, tuple) else (key,)
    if not all(_is_basic_key(item) for item in key):
        return None
    if sum(item is Ellipsis for item in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(item is not None and item is not Ellipsis for item in key)
    if consumed > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {consumed} were indexed")
    fill = (slice(None),) * (len(shape) - consumed)
    if any(item is Ellipsis for item in key):
        key = tuple(item for part in key for item in (fill if part is Ellipsis else (part,)))
    else:
        key = key + fill
    offset, new_shape, new_strides, axis = 0, [], [], 0
    for item in key:
        if item is None:
            new_shape.append(1)
            new_strides.append(0)
            continue
        size, stride = shape[axis], strides[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            length = len(range(start, stop, step))
            offset += start * stride if length else 0
            new_shape.append(length)
            new_strides.append(stride * step)
        else:
            index = operator.index(item)
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
            offset += (index % size) * stride
        axis += 1
    return offset, tuple(new_shape), tuple(new_strides)


def _check_get_out(array: "ndarray", out) -> None:
    """CuPy's refusals of get(out=...): TypeError for a non-NumPy or other-dtype out, ValueError
    for another shape (a smaller one would be broadcast into, a silent wrong result)."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"Only numpy.ndarray can be obtained from cupy.ndarray, got {type(out).__name__}")
    if out.dtype != array.dtype:
        raise TypeError(f"{out.dtype} array cannot be obtained from {array.dtype} array")
    if out.shape != array.shape:
        raise ValueError(f"Shape mismatch. Expected shape: {array.shape}, actual shape: {out.shape}")


def _host_value(value):
    """A right-hand side or index as host data (device arrays are downloaded)."""
    if isinstance(value, ndarray):
        return value.get()
    if hasattr(value, "__cuda_array_interface__"):
        return asnumpy(value)
    if isinstance(value, tuple):
        return tuple(_host_value(item) for item in value)
    return value


class _Flags:
    def __init__(self, array: "ndarray"):
        self.c_contiguous = _is_contiguous(array.shape, array.strides, array.itemsize, "C")
        self.f_contiguous = _is_contiguous(array.shape, array.strides, array.itemsize, "F")
        self.owndata = array.base is None

    def __getitem__(self, name: str) -> bool:
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[name.upper()]

    def __repr__(self) -> str:
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}")


# --- the device array --------------------------------------------------------

class ndarray(HostArithmetic):
    """An array in simulated device memory, like cupy.ndarray.

    Data moves to the host only through explicit calls (get, asnumpy, repr),
    as on a GPU: np.asarray(device_array) raises TypeError, as CuPy does.
    Arithmetic and reductions (a + b, a.sum()) are computed on the host
    (warpsim.api.host_math), not simulated.
    """

    def __init__(self, shape, dtype=float, memptr: MemoryPointer | None = None, strides=None,
                 order: str = "C"):
        self._shape = _normalize_shape(shape)
        self._dtype = np.dtype(dtype)
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', got {order!r}")
        self._strides = (tuple(int(s) for s in strides) if strides is not None
                         else contiguous_strides(self._shape, self._dtype.itemsize, order))
        if len(self._strides) != len(self._shape):
            raise ValueError(f"strides {self._strides} do not match shape {self._shape}")
        if memptr is None:
            memptr = alloc(self.nbytes)
        self.data = memptr
        self.base: ndarray | None = None

    def _view(self, offset: int, shape, strides, dtype=None) -> "ndarray":
        view = ndarray(shape, dtype or self._dtype, MemoryPointer(self.data.mem, self._offset + offset),
                       strides)
        view.base = self.base if self.base is not None else self
        return view

    # Attributes ------------------------------------------------------------
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    strides = property(lambda self: self._strides)
    ndim = property(lambda self: len(self._shape))
    itemsize = property(lambda self: self._dtype.itemsize)
    size = property(lambda self: int(np.prod(self._shape, dtype=np.int64)))
    nbytes = property(lambda self: self.size * self.itemsize)
    device = property(lambda self: self.data.mem.device)
    flags = property(lambda self: _Flags(self))
    _offset = property(lambda self: self.data.ptr - self.data.mem.ptr)
    _memory = property(lambda self: self.device.memory)

    @property
    def _c_contiguous(self) -> bool:
        return _is_contiguous(self._shape, self._strides, self.itemsize, "C")

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self._shape, "typestr": self._dtype.str, "descr": self._dtype.descr,
                "data": (self.data.ptr, False), "version": 3,
                "strides": None if self._c_contiguous else self._strides,
                "stream": get_current_stream().exported_ptr}

    def _span(self) -> tuple[int, int]:
        """Byte range [low, high) relative to data.ptr that the elements occupy."""
        low, high = 0, self.itemsize
        for dim, stride in zip(self._shape, self._strides):
            extent = (dim - 1) * stride
            low, high = low + min(0, extent), high + max(0, extent)
        return low, high

    # Host transfers ---------------------------------------------------------
    @staticmethod
    def from_host(value: np.ndarray) -> "ndarray":
        """A new device array holding a host result (HostArithmetic's way back)."""
        return asarray(value)

    def get(self, stream=None, order: str = "C", out: np.ndarray | None = None, blocking: bool = True):
        """A NumPy copy of the array (downloads from the simulated device); `out` is checked as
        CuPy checks it (a NumPy array of the same dtype and shape), never broadcast into."""
        if out is not None:
            _check_get_out(self, out)
        if self.size == 0:
            host = np.empty(self._shape, self._dtype)
        else:
            low, high = self._span()
            raw = np.asarray(self._memory.read_bytes(self.data.ptr + low, high - low), dtype=np.uint8)
            host = np.ndarray(self._shape, self._dtype, buffer=raw, offset=-low, strides=self._strides)
            if not (self._c_contiguous and host.flags.writeable):
                host = np.array(host, order="C")
        if out is not None:
            out[...] = host
            return out
        return np.asarray(host, order=order) if order != "C" else host

    def set(self, arr, stream=None) -> None:
        """Upload a NumPy array of the same shape and dtype (as cupy.ndarray.set)."""
        host = np.asarray(arr)
        if host.dtype != self._dtype:
            raise TypeError(f"{host.dtype} array cannot be set to {self._dtype} array")
        if host.shape != self._shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._shape}, new shape: {host.shape}")
        self._write_host(host)

    def _write_host(self, host: np.ndarray) -> None:
        """Store host data already shaped and typed like self (non-contiguous: read-modify-write)."""
        if self.size == 0:
            return
        if self._c_contiguous:
            self._memory.write_bytes(self.data.ptr, np.ascontiguousarray(host).reshape(-1).view(np.uint8))
            return
        low, high = self._span()
        raw = np.array(self._memory.read_bytes(self.data.ptr + low, high - low), dtype=np.uint8)
        np.ndarray(self._shape, self._dtype, buffer=raw, offset=-low, strides=self._strides)[...] = host
        self._memory.write_bytes(self.data.ptr + low, raw)

    def fill(self, value) -> None:
        """Set every element to `value` (a memset when all its bytes are equal)."""
        pattern = np.array(_host_value(value)).astype(self._dtype).tobytes()
        if self._c_contiguous and self.size and len(set(pattern)) == 1:
            self._memory.memset(self.data.ptr, pattern[0], self.nbytes)
        else:
            self._write_host(np.full(self._shape, _host_value(value), self._dtype))

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    # NumPy's ufuncs and functions given a device array compute as cp.<name> does and give
    # device arrays (CuPy's __array_ufunc__ and __array_function__), so `np.float64(2) * a` and
    # `np.concatenate([a, b])` work. A subclass whose arrays NumPy may copy to the host
    # (Numba's DeviceNDArray) sets _numpy_uses_host_copies and gets NumPy's results instead.
    _numpy_uses_host_copies = False

    def __array_ufunc__(self, numpy_ufunc, method, *inputs, **kwargs):
        if self._numpy_uses_host_copies:
            host = [np.asarray(x) if isinstance(x, ndarray) else x for x in inputs]
            return getattr(numpy_ufunc, method)(*host, **kwargs)
        writes = method == "at" or kwargs.get("out") is not None
        return call_on_host(getattr(numpy_ufunc, method), inputs, kwargs, ndarray, may_write=writes)

    def __array_function__(self, func, types, args, kwargs):
        if self._numpy_uses_host_copies:
            return func._implementation(*args, **kwargs)
        return call_on_host(func, args, kwargs, ndarray)

    # Copies, shapes, views --------------------------------------------------
    def copy(self, order: str = "C") -> "ndarray":
        return _from_host(self.get(), order)

    def astype(self, dtype, order: str = "K", casting=None, subok=None, copy: bool = True) -> "ndarray":
        if np.dtype(dtype) == self._dtype and not copy:
            return self
        return _from_host(self.get().astype(dtype))

    def reshape(self, *shape, order: str = "C") -> "ndarray":
        """A view with a new shape (a copy first when self is not C-contiguous)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        new_shape = _resolve_reshape(shape, self.size)
        if order in ("C", "A") and self._c_contiguous:
            return self._view(0, new_shape, contiguous_strides(new_shape, self.itemsize))
        # NumPy decides whether the result can be a view (it then is one of self's memory)
        return call_on_host(np.reshape, (self, new_shape), {"order": order}, ndarray, may_write=False)

    def ravel(self, order: str = "C") -> "ndarray":
        return self.reshape(-1, order=order)

    def flatten(self, order: str = "C") -> "ndarray":
        return call_on_host(np.ravel, (self,), {"order": order}, ndarray, may_write=False).copy()

    def view(self, dtype=None) -> "ndarray":
        """The same bytes read as another dtype (last axis rescaled when item sizes differ)."""
        new = self._dtype if dtype is None else np.dtype(dtype)
        if new.itemsize == self.itemsize:
            return self._view(0, self._shape, self._strides, new)
        if self.ndim == 0 or not self._c_contiguous:
            raise ValueError("To change to a dtype of a different size, the array must be "
                             "C-contiguous and at least 1-dimensional")
        last_bytes = self._shape[-1] * self.itemsize
        if last_bytes % new.itemsize:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                             "total size in bytes of the last axis of the array.")
        shape = self._shape[:-1] + (last_bytes // new.itemsize,)
        return self._view(0, shape, contiguous_strides(shape, new.itemsize), new)

    def transpose(self, *axes) -> "ndarray":
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)) else axes
        order = list(range(self.ndim))[::-1] if not axes else [operator.index(a) % self.ndim for a in axes]
        if sorted(order) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        return self._view(0, tuple(self._shape[a] for a in order), tuple(self._strides[a] for a in order))

    T = property(lambda self: self.transpose())

    # Indexing ---------------------------------------------------------------
    def __getitem__(self, key) -> "ndarray":
        basic = _basic_index(self._shape, self._strides, key)
        if basic is not None:
            return self._view(*basic)
        return asarray(self.get()[_host_value(key)])  # advanced indexing copies, in NumPy too

    def __setitem__(self, key, value) -> None:
        basic = _basic_index(self._shape, self._strides, key)
        if basic is None:       # fancy or boolean index: NumPy's assignment on the host image
            call_on_host(operator.setitem, (self, key, value), {}, ndarray)
            return
        target = self._view(*basic)
        host = np.empty(target.shape, self._dtype)
        host[...] = _host_value(value)       # NumPy's casting and broadcasting; a copy, so overlap is safe
        target._write_host(host)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[index] for index in range(self._shape[0]))

    # Scalars and printing ---------------------------------------------------
    def item(self, *args):
        return self.get().item(*args)

    def tolist(self):
        return self.get().tolist()

    def __bool__(self) -> bool:
        return bool(self.get())

    def __int__(self) -> int:
        return int(self.get())

    def __float__(self) -> float:
        return float(self.get())

    def __complex__(self) -> complex:
        return complex(self.get())

    def __index__(self) -> int:
        if self.ndim or self._dtype.kind not in "iub":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return operator.index(self.get().item())

    def __format__(self, spec: str) -> str:
        return format(self.get(), spec)

    def __reduce__(self):
        return _from_host, (self.get(),)

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())


ndarray._device_kind = ndarray     # what host_calls makes results of (see HostArithmetic)
ndarray._upload = staticmethod(lambda host, order="C": _from_host(np.asarray(host), order))
ndarray._adopt = staticmethod(lambda obj: _wrap_foreign(obj))


# --- creating arrays ---------------------------------------------------------

def _from_host(host: np.ndarray, order: str = "C") -> ndarray:
    if host.dtype.hasobject:
        raise TypeError(f"Unsupported dtype {host.dtype}: device arrays hold numbers, not Python objects")
    out = ndarray(host.shape, host.dtype, order=order if order in ("C", "F") else "C")
    out._write_host(host)
    return out


def _wrap_foreign(obj) -> ndarray:
    """A view of another library's device array (its __cuda_array_interface__), kept alive by it."""
    interface = obj.__cuda_array_interface__
    shape, element = tuple(interface["shape"]), np.dtype(interface["typestr"])
    if interface.get("descr") and len(interface["descr"]) > 1:
        element = np.dtype([tuple(field) for field in interface["descr"]])
    size = int(np.prod(shape, dtype=np.int64)) * element.itemsize
    memory = UnownedMemory(interface["data"][0], size, obj, current_device())
    return ndarray(shape, element, MemoryPointer(memory), interface.get("strides"))


def asarray(a, dtype=None, order=None, *, blocking: bool = False) -> ndarray:
    """A device array of `a`: itself when it already is one of the right dtype, else an upload."""
    if not isinstance(a, ndarray) and hasattr(a, "__cuda_array_interface__"):
        a = _wrap_foreign(a)
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    if isinstance(a, (list, tuple)):        # may hold device arrays: NumPy stacks their images
        return call_on_host(np.asarray, (a,), {"dtype": dtype}, ndarray, may_write=False)
    return _from_host(np.asarray(a, dtype=dtype), order or "C")


def array(obj, dtype=None, copy: bool = True, order: str = "K", subok: bool = False, ndmin: int = 0,
          *, blocking: bool = False) -> ndarray:
    """Like cupy.array: a new device array unless copy=False lets it reuse `obj`."""
    if isinstance(obj, ndarray) or hasattr(obj, "__cuda_array_interface__"):
        source = asarray(obj)
        out = source.astype(dtype or source.dtype, copy=bool(copy))
    elif isinstance(obj, (list, tuple)):    # may hold device arrays: NumPy stacks their images
        out = call_on_host(np.array, (obj,), {"dtype": dtype}, ndarray, may_write=False)
    else:
        out = _from_host(np.array(obj, dtype=dtype), order if order in ("C", "F") else "C")
    if out.ndim < ndmin:
        out = out.reshape((1,) * (ndmin - out.ndim) + out.shape)
    return out


def asnumpy(a, stream=None, order: str = "C", out=None, *, blocking: bool = True) -> np.ndarray:
    """A NumPy array of `a` (downloaded when it is on the device)."""
    if isinstance(a, ndarray) or hasattr(a, "__cuda_array_interface__"):
        return asarray(a).get(order=order, out=out)
    host = np.asarray(a, order=order)
    if out is not None:
        out[...] = host
        return out
    return host


def ascontiguousarray(a, dtype=None) -> ndarray:
    a = asarray(a, dtype)
    return a if a.flags.c_contiguous else a.copy()


def get_array_module(*args):
    """The module users import as cupy when any argument is a device array, else numpy.

    Under `warpsim run` that is `cupy` (warpsim.api.cupy), else the warpsim package.
    """
    import sys
    if any(isinstance(arg, ndarray) for arg in args):
        cupy = sys.modules.get("cupy")
        if getattr(cupy, "__name__", "") == "warpsim.api.cupy":
            return cupy
        return sys.modules[__name__.split(".")[0]]
    return np


def empty(shape, dtype=float, order: str = "C") -> ndarray:
    """Uninitialized device memory: whatever the heap held there (initcheck can flag reads)."""
    return ndarray(shape, dtype, order=order)


def zeros(shape, dtype=float, order: str = "C") -> ndarray:
    out = ndarray(shape, dtype, order=order)
    if out.nbytes:
        out._memory.memset(out.data.ptr, 0, out.nbytes)
    return out


def full(shape, fill_value, dtype=None, order: str = "C") -> ndarray:
    fill_value = _host_value(fill_value)
    out = ndarray(shape, np.array(fill_value).dtype if dtype is None else dtype, order=order)
    out.fill(fill_value)
    return out


def ones(shape, dtype=float, order: str = "C") -> ndarray:
    return full(shape, 1, dtype, order)


def _like(a, dtype, shape):
    return (a.shape if shape is None else shape), (a.dtype if dtype is None else dtype)


def empty_like(a, dtype=None, order: str = "K", subok=None, shape=None) -> ndarray:
    return empty(*_like(a, dtype, shape))


def zeros_like(a, dtype=None, order: str = "K", subok=None, shape=None) -> ndarray:
    return zeros(*_like(a, dtype, shape))


def ones_like(a, dtype=None, order: str = "K", subok=None, shape=None) -> ndarray:
    return ones(*_like(a, dtype, shape))


def full_like(a, fill_value, dtype=None, order: str = "K", subok=None, shape=None) -> ndarray:
    shape, dtype = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def arange(start, stop=None, step=1, dtype=None) -> ndarray:
    host = np.arange(start, step=step, dtype=dtype) if stop is None else \
        np.arange(start, stop, step, dtype=dtype)
    return _from_host(host)


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None,
             axis: int = 0):
    host = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
    return (_from_host(host[0]), host[1]) if retstep else _from_host(host)


# ---------------------------------------------------------------- NumPy on the host

def host_function(fn):
    """Wrap a NumPy function so device arrays go in and come out (see warpsim.api.host_functions)."""
    return _host_function(fn, ndarray)


class HostRandom:
    """`cupy.random`-style generators whose results land on the device.

    CuPy's generators take `dtype=` (random(size, dtype=float32), uniform(...,
    dtype=...)) where NumPy's do not: the values are drawn by NumPy and cast.
    """

    def __getattr__(self, name):
        draw = host_function(getattr(np.random, name))

        def call(*args, dtype=None, **kwargs):
            values = draw(*args, **kwargs)
            return values.astype(dtype) if dtype is not None else values
        call.__name__ = name
        return call


_FALLBACKS: dict = {}      # name -> wrapper, so that cupy.add is cupy.add (as CuPy's ufuncs are)


def numpy_fallback(name: str):
    """warpsim.<name> for a NumPy function, ufunc, type or constant not defined by warpsim itself.

    Functions and ufuncs take and give device arrays (computed on the host);
    types (np.integer, np.floating, ...) and constants are NumPy's own.
    """
    if name == "ufunc":
        return ufunc
    value = getattr(np, name)
    if isinstance(value, np.ufunc):
        return _FALLBACKS.setdefault(name, ufunc(value, ndarray))
    if isinstance(value, type) or not callable(value):
        return value
    return _FALLBACKS.setdefault(name, host_function(value))
