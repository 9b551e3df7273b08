"""The driver API's memory, pointer attributes, streams and events, on the runtime's own functions.

A CUdeviceptr is a device heap address, as cudaMalloc's are; pinned memory from
cuMemAllocHost is cudaMallocHost's; a CUstream is a cudaStream_t (CU_STREAM_LEGACY
and CU_STREAM_PER_THREAD are the runtime's 1 and 2) and a CUevent a cudaEvent_t.
So each function here checks what the driver checks beyond the runtime (a size 0
allocation, a NULL free, the alignment of a 16- or 32-bit memset) and calls the
runtime's function, whose code driver.as_result turns into the CUresult. Copies
take their direction from the addresses (unified addressing), as the runtime's
do, whatever the function's name says.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from . import calls
from .driver import CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, driver_call, refuse, state
from .hoststructs import write as _write

MEMCPY_DEFAULT = 4                  # cudaMemcpyDefault: the direction from the addresses
EVENT_FLAGS = 0x1 | 0x2 | 0x4       # CU_EVENT_BLOCKING_SYNC, CU_EVENT_DISABLE_TIMING, CU_EVENT_INTERPROCESS


# --- allocation ----------------------------------------------------------------------------

@driver_call()
def cuMemAlloc_v2(context, out, size):
    if not size:                    # the driver refuses an empty allocation (cudaMalloc gives NULL)
        return CUDA_ERROR_INVALID_VALUE
    return calls._allocate(context, out, size)


@driver_call()
def cuMemFree_v2(context, address):
    return calls.cudaFree.__wrapped__(context, address)


@driver_call()
def cuMemAllocHost_v2(context, out, size):
    if not out or not size:
        return CUDA_ERROR_INVALID_VALUE
    return calls._allocate_host(context, out, size)


# --- copies ----------------------------------------------------------------------------------

def _registered(driver_name: str, function) -> None:
    """Register function(context, *args) as the driver function `driver_name`."""
    def forward(context, *args):
        return function(context, *args)
    forward.__name__ = forward.__qualname__ = driver_name
    driver_call()(forward)


def _copy_async(context, dst, src, count, stream) -> int:
    return calls.cudaMemcpyAsync.__wrapped__(context, dst, src, count, MEMCPY_DEFAULT, stream)


def _copy(context, dst, src, count) -> int:
    return calls.cudaMemcpy.__wrapped__(context, dst, src, count, MEMCPY_DEFAULT)


# Every direction of a copy is the runtime's cudaMemcpyDefault copy: unified addresses say which.
for _name in ("cuMemcpy", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2"):
    _registered(_name, _copy)
for _name in ("cuMemcpyAsync", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2"):
    _registered(_name, _copy_async)


# --- memsets -----------------------------------------------------------------------------------

def _fill(context, address: int, value: int, count: int, width: int) -> int:
    """count elements of `width` bytes, each `value`: cudaMemset where every byte of the value is the same."""
    if address % width:
        return CUDA_ERROR_INVALID_VALUE
    pattern = int(value).to_bytes(width, "little")
    if len(set(pattern)) == 1:
        return calls.cudaMemset.__wrapped__(context, address, pattern[0], count * width)
    if not count:
        return CUDA_SUCCESS
    try:
        context.device.memory.write_bytes(address, np.full(count, value, dtype=f"<u{width}").view(np.uint8))
    except ValueError as error:         # outside any allocation
        print(f"warpsim: {error}", file=sys.stderr)
        return CUDA_ERROR_INVALID_VALUE
    calls._time_memset(context, count * width)
    return CUDA_SUCCESS


def _fill_async(context, address, value, count, width, stream) -> int:
    if not calls._known_stream(context, stream):
        return calls.INVALID_HANDLE
    return calls._now_or_captured(context, stream, calls.NODE_MEMSET,
                                  functools.partial(_fill, context, address, value, count, width))


@driver_call()
def cuMemsetD8_v2(context, address, value, count):
    return _fill(context, address, value, count, 1)


@driver_call()
def cuMemsetD16_v2(context, address, value, count):
    return _fill(context, address, value, count, 2)


@driver_call()
def cuMemsetD32_v2(context, address, value, count):
    return _fill(context, address, value, count, 4)


@driver_call()
def cuMemsetD8Async(context, address, value, count, stream):
    return _fill_async(context, address, value, count, 1, stream)


@driver_call()
def cuMemsetD16Async(context, address, value, count, stream):
    return _fill_async(context, address, value, count, 2, stream)


@driver_call()
def cuMemsetD32Async(context, address, value, count, stream):
    return _fill_async(context, address, value, count, 4, stream)


# --- pointer attributes -------------------------------------------------------------------------

MEMORYTYPE_HOST, MEMORYTYPE_DEVICE = 1, 2          # CUmemorytype
# CUpointer_attribute -> (struct format of *data, what the value is); booleans are one byte
POINTER_ATTRIBUTES = {1: ("Q", "context"), 2: ("I", "memory type"), 3: ("Q", "device pointer"),
                      4: ("Q", "host pointer"), 6: ("?", "sync memops"), 7: ("Q", "buffer id"),
                      8: ("?", "managed"), 9: ("i", "device"), 11: ("Q", "range start"), 12: ("Q", "range size"),
                      13: ("?", "mapped")}
LAST_POINTER_ATTRIBUTE = 22                        # CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL


def _pointer_facts(context, pointer: int) -> dict | None:
    """What the driver knows of a pointer (the runtime's allocations, pinned and registered host
    memory), by POINTER_ATTRIBUTES' names; None for memory CUDA did not allocate or register."""
    start = calls._allocation_start(context, pointer)
    if start is not None:
        kind = context.memory_kinds.get(start, calls.MEMORY_DEVICE)
        size = context.device.memory.live[start - calls.GLOBAL_BASE]
        host = pointer if kind != calls.MEMORY_DEVICE else None
        memory_type = MEMORYTYPE_HOST if kind == calls.MEMORY_HOST else MEMORYTYPE_DEVICE
        return {"memory type": memory_type, "device pointer": pointer, "host pointer": host,
                "managed": kind == calls.MEMORY_MANAGED, "range start": start, "range size": size,
                "buffer id": start}
    ranges = [(address, len(buffer)) for address, buffer in context.host_allocations.items()]
    ranges += list(context.registered_host.items())
    for begin, size in ranges:
        if begin <= pointer < begin + size:
            registered = begin in context.registered_host
            return {"memory type": MEMORYTYPE_HOST, "device pointer": pointer if registered else None,
                    "host pointer": pointer, "managed": False, "range start": begin, "range size": size,
                    "buffer id": begin}
    return None


@driver_call()
def cuPointerGetAttribute(context, out, attribute, pointer):
    if not out or not 1 <= attribute <= LAST_POINTER_ATTRIBUTE:
        return CUDA_ERROR_INVALID_VALUE
    if attribute not in POINTER_ATTRIBUTES:
        return refuse(context, "cuPointerGetAttribute", f"pointer attribute {attribute} is not simulated")
    facts = _pointer_facts(context, pointer)
    if facts is None:               # not CUDA's memory
        return CUDA_ERROR_INVALID_VALUE
    facts.update({"context": state(context).primary, "sync memops": True, "device": 0, "mapped": True})
    fmt, name = POINTER_ATTRIBUTES[attribute]
    if facts[name] is None:         # device memory has no host pointer, pageable pinned none on the device
        return CUDA_ERROR_INVALID_VALUE
    _write(out, fmt, facts[name])
    return CUDA_SUCCESS


# --- streams and events ---------------------------------------------------------------------------

@driver_call()
def cuStreamCreate(context, out, flags):
    return calls._create_stream(context, out, flags, 0)


@driver_call()
def cuEventCreate(context, out, flags):
    if not out or flags & ~EVENT_FLAGS:
        return CUDA_ERROR_INVALID_VALUE
    return calls.cudaEventCreateWithFlags.__wrapped__(context, out, flags)


# Driver functions that are the runtime's function of the same arguments (their codes are the
# runtime's, turned into CUresults by driver_call).
RUNTIME_FORWARDS = {
    "cuMemFreeHost": "cudaFreeHost",
    "cuMemGetInfo_v2": "cudaMemGetInfo",
    "cuStreamDestroy_v2": "cudaStreamDestroy",
    "cuStreamSynchronize": "cudaStreamSynchronize",
    "cuStreamQuery": "cudaStreamQuery",
    "cuStreamWaitEvent": "cudaStreamWaitEvent",
    "cuEventRecord": "cudaEventRecord",
    "cuEventQuery": "cudaEventQuery",
    "cuEventSynchronize": "cudaEventSynchronize",
    "cuEventElapsedTime_v2": "cudaEventElapsedTime",
    "cuEventDestroy_v2": "cudaEventDestroy",
}


for _driver_name, _runtime_name in RUNTIME_FORWARDS.items():
    _registered(_driver_name, getattr(calls, _runtime_name).__wrapped__)
