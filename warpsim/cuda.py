"""`from warpsim import cuda`: the numba.cuda API, with kernels running on warpsim.

A Numba program runs on warpsim by changing `from numba import cuda` to
`from warpsim import cuda` (or, unchanged, under `warpsim run python
script.py`; see warpsim.frontends.numba_runner). Kernels are compiled by
numba-cuda itself, so everything Numba supports inside a kernel compiles:
`cuda.grid`, shared/local/const arrays, atomics, the warp intrinsics, fp16...
This module is typed as numba.cuda inside kernels, and every name it does
not define itself is numba.cuda's (the intrinsics, types, vector types).

The host side is warpsim's: `jit`, device arrays (`to_device`,
`device_array`, `device_array_like`, `DeviceNDArray.copy_to_host`, which
also speak `__cuda_array_interface__`, so CuPy-style warpsim arrays and
these mix freely), host NumPy arrays copied in and back out around a launch
(`cuda.In` / `cuda.Out` / `cuda.InOut` as in Numba), streams, events, and
a device that reports itself as a compute capability 9.0 GPU.

Limits: pinned, mapped and managed arrays are ordinary host NumPy arrays
(a kernel sees them through the same copy in / copy out); streams are
accepted and ignored, since every launch runs to completion in order;
events time the simulation on the host's clock; IPC, memory managers and
the CUDA driver/runtime objects are not provided (they raise Numba's own
"no CUDA driver" error); `cuda.random`'s host helpers work only under
`warpsim run` (see numba_runner), where numba.cuda itself is redirected.
"""

from __future__ import annotations

import contextlib
import ctypes
import time
from collections import namedtuple

import numpy as np

from . import api
from .frontends.numba import DEFAULT_CC, Dispatcher, jit  # noqa: F401 (the API)

import numba.cuda as _numba_cuda  # noqa: E402 (after warpsim's own imports)
from numba.cuda import types as _types  # noqa: E402
from numba.cuda.args import In, InOut, Out  # noqa: E402,F401

# Inside a kernel this module is numba.cuda: same typing, same intrinsics.
_numba_type_ = _types.Module(_numba_cuda)

# The host API this module implements; anything else is looked up in numba.cuda.
HOST_API = (
    "jit", "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "mapped_array_like", "managed_array", "pinned", "mapped", "synchronize",
    "is_available", "is_supported_version", "cuda_error", "detect", "get_current_device",
    "list_devices", "gpus", "select_device", "close", "current_context", "defer_cleanup",
    "stream", "default_stream", "legacy_default_stream", "per_thread_default_stream",
    "external_stream", "event", "event_elapsed_time", "profile_start", "profile_stop",
    "profiling", "as_cuda_array", "is_cuda_array", "from_cuda_array_interface",
    "is_float16_supported", "is_bfloat16_supported", "In", "Out", "InOut", "DeviceNDArray",
)


def __getattr__(name):  # PEP 562: the kernel-side names, types and the rest of numba.cuda
    try:
        return getattr(_numba_cuda, name)
    except AttributeError:
        raise AttributeError(f"module 'warpsim.cuda' has no attribute '{name}'") from None


# --- device arrays ---------------------------------------------------------------

class DeviceNDArray(api.ndarray):
    """A device array with Numba's DeviceNDArray methods (it is a warpsim.ndarray too)."""

    def _view(self, offset, shape, strides, dtype=None):
        plain = super()._view(offset, shape, strides, dtype)
        view = DeviceNDArray(plain.shape, plain.dtype, plain.data, plain.strides)
        view.base = plain.base
        return view

    @property
    def _numba_type_(self):
        from numba.cuda.np import numpy_support
        flags = self.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        return _types.Array(numpy_support.from_dtype(self.dtype), self.ndim, layout)

    @property
    def __cuda_array_interface__(self) -> dict:
        """As Numba's: a `stream` entry, and a null pointer for an empty array."""
        interface = dict(super().__cuda_array_interface__, stream=None)
        if self.size == 0:
            interface["data"] = (0, False)
        return interface

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
        if ary.shape != self.shape and ary.size != self.size or ary.dtype != self.dtype:
            raise TypeError(f"incompatible shape or dtype: {ary.shape} {ary.dtype} vs "
                            f"{self.shape} {self.dtype}")
        ary.reshape(self.shape)[...] = host
        return ary

    def copy_to_device(self, ary, stream=0) -> None:
        """Overwrite this array from a host or device array of the same size and dtype."""
        host = api.asnumpy(ary) if hasattr(ary, "__cuda_array_interface__") else np.asarray(ary)
        if host.dtype != self.dtype or host.size != self.size:
            raise TypeError(f"incompatible shape or dtype: {host.shape} {host.dtype} vs "
                            f"{self.shape} {self.dtype}")
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


# --- the device, its context, streams and events ------------------------------------

MemoryInfo = namedtuple("MemoryInfo", "free total")


class SimulatedDevice:
    """What numba.cuda.get_current_device() returns, for the simulated GPU (H100-like, sm_90)."""

    id = 0
    compute_capability = DEFAULT_CC
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    ATTRIBUTES = {
        "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
        "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2 ** 31 - 1, "MAX_GRID_DIM_Y": 65535,
        "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024, "TOTAL_CONSTANT_MEMORY": 64 * 1024,
        "WARP_SIZE": 32, "MAX_REGISTERS_PER_BLOCK": 65536, "MULTIPROCESSOR_COUNT": 132,
        "MAX_THREADS_PER_MULTI_PROCESSOR": 2048, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 228 * 1024,
        "COMPUTE_CAPABILITY_MAJOR": DEFAULT_CC[0], "COMPUTE_CAPABILITY_MINOR": DEFAULT_CC[1],
        "CLOCK_RATE": 1_980_000, "MEMORY_CLOCK_RATE": 2_619_000, "GLOBAL_MEMORY_BUS_WIDTH": 5120,
        "L2_CACHE_SIZE": 50 * 1024 * 1024, "ASYNC_ENGINE_COUNT": 1, "CONCURRENT_KERNELS": 1,
        "UNIFIED_ADDRESSING": 1, "CAN_MAP_HOST_MEMORY": 1, "MANAGED_MEMORY": 1,
        "COOPERATIVE_LAUNCH": 1, "ECC_ENABLED": 0, "PCI_BUS_ID": 0, "PCI_DEVICE_ID": 0,
        "PCI_DOMAIN_ID": 0, "INTEGRATED": 0,
    }

    supports_float16 = supports_bfloat16 = supports_fp8 = True

    @property
    def name(self) -> str:
        return f"warpsim simulated GPU (sm_{DEFAULT_CC[0]}{DEFAULT_CC[1]})"

    def __getattr__(self, attribute):
        try:
            return SimulatedDevice.ATTRIBUTES[attribute]
        except KeyError:
            raise AttributeError(f"the simulated device has no attribute {attribute}") from None

    def reset(self) -> None:
        synchronize()

    def get_primary_context(self) -> "Context":
        return current_context()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self) -> str:
        return f"<CUDA device 0 '{self.name}'>"


_DEVICE = SimulatedDevice()


class Context:
    """The one context of the simulated device."""

    device = _DEVICE

    def get_memory_info(self) -> MemoryInfo:
        memory = api.current_device().memory
        total = 80 * 1024 ** 3
        return MemoryInfo(total - sum(memory.live.values()), total)

    def synchronize(self) -> None:
        synchronize()

    def reset(self) -> None:
        synchronize()

    def get_default_stream(self) -> "Stream":
        return default_stream()

    @contextlib.contextmanager
    def defer_cleanup(self):
        yield

    def __getattr__(self, name):
        raise AttributeError(f"warpsim's simulated CUDA context has no '{name}' (it offers the "
                             "device, memory info, synchronize and reset, not the driver API)")

    def __repr__(self) -> str:
        return "<warpsim CUDA context on the simulated device>"


_CONTEXT = Context()


class Stream:
    """Accepted everywhere Numba or CuPy takes a stream; launches run to completion in order anyway."""

    null: "Stream"

    def __init__(self, handle: int = 0, non_blocking: bool = False, null: bool = False):
        self.handle = handle

    def use(self) -> "Stream":
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def synchronize(self) -> None:
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def add_callback(self, callback, arg=None) -> None:
        callback(self, None, arg)

    def __int__(self) -> int:
        return self.handle

    def __repr__(self) -> str:
        return "<warpsim CUDA stream (launches run in order)>"


class Event:
    """Records the host clock: elapsed_time is the simulation's wall time in milliseconds."""

    def __init__(self, timing: bool = True):
        self.timing, self.time = timing, None

    def record(self, stream=0) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def wait(self, stream=0) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, evtend: "Event") -> float:
        return event_elapsed_time(self, evtend)


Stream.null = Stream()


# --- CuPy's cupy.cuda names (`import warpsim as cp; cp.cuda.Device().synchronize()`) ---

class Device:
    """CuPy's `cupy.cuda.Device`: the one simulated device, id 0."""

    def __init__(self, device: int = 0):
        if int(device) != 0:
            raise ValueError(f"warpsim simulates one device (id 0), not {device}")
        self.id = 0

    compute_capability = property(lambda self: "90")

    def synchronize(self) -> None:
        pass

    def use(self) -> "Device":
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __int__(self) -> int:
        return 0


def get_current_stream() -> Stream:
    return Stream.null


def get_elapsed_time(start: Event, end: Event) -> float:
    """Milliseconds between two recorded events (host time spent simulating)."""
    return event_elapsed_time(start, end)


class _Runtime:
    """CuPy's `cupy.cuda.runtime`: the calls scripts make around kernels."""

    @staticmethod
    def deviceSynchronize() -> None:
        pass

    @staticmethod
    def getDeviceCount() -> int:
        return 1

    @staticmethod
    def getDevice() -> int:
        return 0

    @staticmethod
    def getDeviceProperties(device: int = 0) -> dict:
        d = _DEVICE
        return {"name": d.name.encode() if isinstance(d.name, str) else d.name,
                "major": 9, "minor": 0, "multiProcessorCount": d.MULTIPROCESSOR_COUNT,
                "maxThreadsPerBlock": 1024, "warpSize": 32, "sharedMemPerBlock": 48 * 1024,
                "regsPerBlock": 65536, "totalGlobalMem": 80 * 2**30}


runtime = _Runtime()


class _Gpus:
    """`cuda.gpus`: the one simulated device."""

    current = property(lambda self: _DEVICE)

    def __getitem__(self, index: int):
        if index != 0:
            raise IndexError(f"device {index} does not exist: warpsim simulates one GPU")
        return _DEVICE

    def __len__(self) -> int:
        return 1

    def __iter__(self):
        return iter([_DEVICE])


gpus = _Gpus()


def synchronize() -> None:
    """Launches finish before they return, so there is never anything to wait for."""


def is_available() -> bool:
    return True


def is_supported_version() -> bool:
    return True


def cuda_error():
    return None


def is_float16_supported() -> bool:
    return True


def is_bfloat16_supported() -> bool:
    return True


def detect() -> bool:
    print("Found 1 CUDA devices (simulated by warpsim)")
    print(f"id 0    {_DEVICE.name}                              [SUPPORTED]")
    print(f"                      Compute Capability: {DEFAULT_CC[0]}.{DEFAULT_CC[1]}")
    print("Summary:\n\t1/1 devices are supported")
    return True


def get_current_device() -> SimulatedDevice:
    return _DEVICE


def list_devices() -> list:
    return [_DEVICE]


def select_device(device_id: int) -> SimulatedDevice:
    return gpus[device_id]


def close() -> None:
    pass


def current_context(devnum=None) -> Context:
    return _CONTEXT


@contextlib.contextmanager
def defer_cleanup():
    yield


def stream() -> Stream:
    return Stream()


default_stream = legacy_default_stream = per_thread_default_stream = stream


def external_stream(ptr) -> Stream:
    return Stream(int(ptr))


def event(timing: bool = True) -> Event:
    return Event(timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    if evtstart.time is None or evtend.time is None:
        raise RuntimeError("both events must be recorded before elapsed_time")
    return (evtend.time - evtstart.time) * 1000.0


def profile_start() -> None:
    pass


def profile_stop() -> None:
    pass


@contextlib.contextmanager
def profiling():
    yield
