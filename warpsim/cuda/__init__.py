"""`from warpsim import cuda`: the numba.cuda API, with kernels running on warpsim.

A Numba program runs on warpsim by changing `from numba import cuda` to
`from warpsim import cuda` (or, unchanged, under `warpsim run python
script.py`; see warpsim.cli.run). Kernels are compiled by
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
`warpsim run` (see warpsim.cli.run), where numba.cuda itself is redirected.

The implementation lives in warpsim.cuda.devicearray (device, pinned and mapped
arrays) and warpsim.cuda.driver (device, context, streams, events, CuPy's
cupy.cuda names); this module re-exports both and falls back to numba.cuda.
"""

from __future__ import annotations

from .. import api  # noqa: F401 (warpsim.cuda.api is warpsim's, not numba.cuda.api)
from ..frontends.numba import DEFAULT_CC  # noqa: F401 (the API)
from .dispatcher import Dispatcher, jit  # noqa: F401 (the API)
from .devicearray import (  # noqa: F401 (the API)
    DeviceNDArray, DevicePointer, MappedArray, as_cuda_array, device_array, device_array_like,
    from_cuda_array_interface, is_cuda_array, managed_array, mapped, mapped_array,
    mapped_array_like, pinned, pinned_array, pinned_array_like, to_device,
    _device_array, _host_like, _like_order, _strides_like,
)
from .driver import (  # noqa: F401 (the API)
    Context, Device, Event, MemoryInfo, SimulatedDevice, Stream, close, cuda_error,
    current_context, default_stream, defer_cleanup, detect, event, event_elapsed_time,
    external_stream, get_current_device, get_current_stream, get_elapsed_time, gpus,
    is_available, is_bfloat16_supported, is_float16_supported, is_supported_version,
    legacy_default_stream, list_devices, per_thread_default_stream, profile_start,
    profile_stop, profiling, runtime, select_device, stream, synchronize,
    _CONTEXT, _DEVICE, _Gpus, _Runtime,
)

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
