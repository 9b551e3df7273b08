"""Queries of what the program made: pinned memory's flags, kernels' parameters, texture and surface
objects' descriptions, and the device's 1D linear texture and peer limits.

- cudaHostGetFlags: the flags cudaHostAlloc was given (cudaMallocHost: cudaHostAllocDefault), with
  cudaHostAllocMapped, as unified addressing maps every pinned allocation (cudaGetDeviceFlags reports
  cudaDeviceMapHost the same way); memory not allocated pinned is cudaErrorInvalidValue.
- cudaGetFuncBySymbol gives a kernel's cudaFunction_t, which warpsim's runtime knows a kernel by:
  its host stub's address (as __cudaGetKernel). cudaFuncGetParamCount and cudaFuncGetParamInfo read
  the kernel's parameter layout from its loaded code (the offsets and sizes a launch packs).
- cudaGetTextureObjectResourceDesc, ...TextureDesc and cudaGetSurfaceObjectResourceDesc give back the
  structs the object was made from (calls._create_object keeps their bytes); a texture has no
  resource view (warpsim refuses to make one), so ...ResourceViewDesc is cudaErrorInvalidValue, as
  CUDA answers for an object made without one.
- cudaDeviceGetTexture1DLinearMaxWidth: the device's maxTexture1DLinear (properties.py), for any
  format a texture can have; cudaDeviceGetP2PAttribute: one device has no peer, so every pair is
  cudaErrorInvalidDevice (a device and itself too, as CUDA answers).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

import ctypes

from . import textures
from .calls import (CODES, INVALID_VALUE, MEMORY_HOST, SUCCESS, _allocation_start, _properties, _write, call)

INVALID_DEVICE_FUNCTION = CODES["cudaErrorInvalidDeviceFunction"]
HOST_ALLOC_MAPPED = 0x02                   # cudaHostAllocMapped
P2P_ATTRIBUTES = range(1, 6)               # cudaDevP2PAttrPerformanceRank .. OnlyPartialNativeAtomicSupported


@call()
def cudaHostGetFlags(context, out, pointer):
    start = _allocation_start(context, pointer)
    pinned = start is not None and context.memory_kinds.get(start) == MEMORY_HOST
    if not pinned and pointer in context.host_allocations:
        start, pinned = pointer, True          # pinned memory made outside the device heap (no host mapping)
    if not out or not pinned:
        return context.fail(INVALID_VALUE)
    _write(out, "I", context.__dict__.get("host_alloc_flags", {}).get(start, 0) | HOST_ALLOC_MAPPED)
    return SUCCESS


# --- kernels ---------------------------------------------------------------------------------------

def _parameters(context, function):
    """The kernel's parameter layout [(name, offset, bytes, ...), ...], or None for no kernel."""
    if function not in context.kernels:
        return None
    module, name = context.kernels[function]
    return context.loaded(module).params(name)


@call()
def cudaGetFuncBySymbol(context, out, symbol):
    if not out:
        return context.fail(INVALID_VALUE)
    if symbol not in context.kernels:
        return context.fail(INVALID_DEVICE_FUNCTION)
    _write(out, "Q", symbol)
    return SUCCESS


@call()
def cudaFuncGetParamCount(context, function, out):
    found = _parameters(context, function)
    if found is None:
        return context.fail(INVALID_DEVICE_FUNCTION)
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "Q", len(found))
    return SUCCESS


@call()
def cudaFuncGetParamInfo(context, function, index, offset_out, size_out):
    found = _parameters(context, function)
    if found is None:
        return context.fail(INVALID_DEVICE_FUNCTION)
    if index >= len(found) or not offset_out and not size_out:
        return context.fail(INVALID_VALUE)
    _, offset, nbytes = found[index][:3]
    if offset_out:
        _write(offset_out, "Q", offset)
    if size_out:
        _write(size_out, "Q", nbytes)
    return SUCCESS


# --- texture and surface objects ---------------------------------------------------------------------

def _description(context, handle: int, what: str, which: int, out: int) -> int:
    found = context.__dict__.get("object_descriptions", {}).get(handle)
    if not out or context.texture_objects.get(handle) != what or found is None or not found[which]:
        return context.fail(INVALID_VALUE)
    ctypes.memmove(out, found[which], len(found[which]))
    return SUCCESS


@call()
def cudaGetTextureObjectResourceDesc(context, out, handle):
    return _description(context, handle, "texture", 0, out)


@call()
def cudaGetTextureObjectTextureDesc(context, out, handle):
    return _description(context, handle, "texture", 1, out)


@call()
def cudaGetTextureObjectResourceViewDesc(context, out, handle):
    return context.fail(INVALID_VALUE)       # no texture of warpsim's has a resource view


@call()
def cudaGetSurfaceObjectResourceDesc(context, out, handle):
    return _description(context, handle, "surface", 0, out)


# --- device limits ---------------------------------------------------------------------------------

@call()
def cudaDeviceGetTexture1DLinearMaxWidth(context, out, desc, device):
    if device != 0:
        return context.fail(CODES["cudaErrorInvalidDevice"])
    if not out or not desc:
        return context.fail(INVALID_VALUE)
    try:
        textures.channel_format(desc)
    except textures.InvalidChannelDescriptor:
        return context.fail(CODES["cudaErrorInvalidChannelDescriptor"])
    _write(out, "Q", _properties(context)["maxTexture1DLinear"])
    return SUCCESS


@call()
def cudaDeviceGetP2PAttribute(context, out, attribute, source, destination):
    if not out or attribute not in P2P_ATTRIBUTES:
        return context.fail(INVALID_VALUE)
    return context.fail(CODES["cudaErrorInvalidDevice"])     # device 0 has no peer, itself included
