"""`cupy.cuda` under `warpsim run`: the one simulated device, its streams, events and memory.

Device 0 is an sm_90 GPU; launches run to completion in order, so streams and
events never have work in flight (events time the simulation on the host's
clock). Memory comes from warpsim.api.memory: `alloc`, the default pool
(`used_bytes`, `set_limit`), `set_allocator`, managed and pinned memory.
Libraries behind cupy.cuda (cublas, cufft, curand, cusolver, nccl, ...) and
anything else not here raise AttributeError naming the missing name.
"""

from __future__ import annotations

import os

from .._missing import missing_attribute
from ...memory import (ManagedMemory, Memory, MemoryPointer, MemoryPool,  # noqa: F401
                       PinnedMemory, PinnedMemoryPointer, PinnedMemoryPool, UnownedMemory, alloc,
                       alloc_pinned_memory, get_allocator, malloc_managed, set_allocator,
                       set_pinned_memory_allocator, using_allocator)
from ...streams import Event, ExternalStream, Stream, get_current_stream, get_elapsed_time  # noqa: F401
from . import _compiler_cache, compiler, device, driver, memory, nvrtc, runtime, stream, texture  # noqa: F401
from .device import Device, get_compute_capability, get_device_id  # noqa: F401
from .compiler import get_nvcc_path  # noqa: F401


def is_available() -> bool:
    return True


def get_cuda_path() -> str | None:
    nvcc = get_nvcc_path()
    return os.path.dirname(os.path.dirname(nvcc)) if nvcc else None


def get_local_runtime_version() -> int:
    return runtime.CUDA_VERSION


def __getattr__(name):
    raise missing_attribute("cupy.cuda", name)
