"""`cupy.cuda.runtime`: the CUDA runtime calls CuPy programs make around kernels, on one simulated GPU.

Devices, versions and properties answer as an H100-class sm_90 device
(CUDA 13.0); memory calls work on the simulated heap; a call warpsim has no
counterpart for raises AttributeError naming it.
"""

from __future__ import annotations

import numpy as np

from .._missing import missing_attribute
from ...cuda_errors import CUDARuntimeError  # noqa: F401 (cupy.cuda.runtime.CUDARuntimeError)
from ...memory import MemoryPointer, UnownedMemory, checked_size, current_device
from ...streams import Stream, get_current_stream  # noqa: F401
from ....frontends.nvrtc import nvrtc_version

is_hip = False
# The simulated driver runs the PTX of any NVRTC it is given: it answers for that NVRTC's CUDA.
CUDA_VERSION = nvrtc_version()[0] * 1000 + nvrtc_version()[1] * 10
cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost = 0, 1, 2
cudaMemcpyDeviceToDevice, cudaMemcpyDefault = 3, 4
streamLegacy, streamPerThread = 1, 2
errorInvalidValue, errorMemoryAllocation, errorInvalidDevice = 1, 2, 101
# Texture and surface objects (cupy.cuda.texture), with driver_types.h's values.
cudaChannelFormatKindSigned, cudaChannelFormatKindUnsigned, cudaChannelFormatKindFloat = 0, 1, 2
cudaChannelFormatKindNone = 3
cudaResourceTypeArray, cudaResourceTypeMipmappedArray = 0, 1
cudaResourceTypeLinear, cudaResourceTypePitch2D = 2, 3
cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror, cudaAddressModeBorder = 0, 1, 2, 3
cudaFilterModePoint, cudaFilterModeLinear = 0, 1
cudaReadModeElementType, cudaReadModeNormalizedFloat = 0, 1
cudaArrayDefault, cudaArrayLayered, cudaArraySurfaceLoadStore = 0, 1, 2
cudaArrayCubemap, cudaArrayTextureGather = 4, 8

DEVICE_ATTRIBUTES = {
    "MaxThreadsPerBlock": 1024, "MaxBlockDimX": 1024, "MaxBlockDimY": 1024, "MaxBlockDimZ": 64,
    "MaxGridDimX": 2 ** 31 - 1, "MaxGridDimY": 65535, "MaxGridDimZ": 65535,
    "MaxSharedMemoryPerBlock": 48 * 1024, "MaxSharedMemoryPerBlockOptin": 227 * 1024,
    "TotalConstantMemory": 64 * 1024, "WarpSize": 32, "MaxRegistersPerBlock": 65536,
    "MultiProcessorCount": 132, "MaxThreadsPerMultiProcessor": 2048,
    "ComputeCapabilityMajor": 9, "ComputeCapabilityMinor": 0, "ConcurrentKernels": 1,
    "UnifiedAddressing": 1, "ManagedMemory": 1, "CooperativeLaunch": 1, "L2CacheSize": 50 * 2 ** 20,
}


def getDeviceCount() -> int:
    return 1


def getDevice() -> int:
    return 0


def setDevice(device: int) -> None:
    if int(device) != 0:
        raise CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device} "
                               "(warpsim simulates one GPU, device 0)")


def deviceSynchronize() -> None:
    """Launches finish before they return."""


def runtimeGetVersion() -> int:
    return CUDA_VERSION


def driverGetVersion() -> int:
    return CUDA_VERSION


def deviceCanAccessPeer(device: int, peer_device: int) -> int:
    return 0


def getDeviceProperties(device: int = 0) -> dict:
    setDevice(device)
    memory = current_device().memory
    return {"name": b"warpsim simulated GPU (sm_90)", "major": 9, "minor": 0,
            "totalGlobalMem": memory.limit, "sharedMemPerBlock": 48 * 1024,
            "sharedMemPerBlockOptin": 227 * 1024, "regsPerBlock": 65536, "warpSize": 32,
            "maxThreadsPerBlock": 1024, "maxThreadsDim": (1024, 1024, 64),
            "maxGridSize": (2 ** 31 - 1, 65535, 65535), "multiProcessorCount": 132,
            "maxThreadsPerMultiProcessor": 2048, "totalConstMem": 64 * 1024,
            "l2CacheSize": 50 * 2 ** 20, "concurrentKernels": 1, "managedMemory": 1,
            "unifiedAddressing": 1, "cooperativeLaunch": 1}


def deviceGetAttribute(attribute, device: int = 0) -> int:
    setDevice(device)
    return DEVICE_ATTRIBUTES[attribute] if isinstance(attribute, str) else 0


def memGetInfo() -> tuple:
    memory = current_device().memory
    return memory.limit - memory.allocated, memory.limit


def malloc(size: int) -> int:
    """A raw device allocation's address; free it with runtime.free."""
    address = current_device().memory.allocate(max(int(size), 1))
    return address


def free(ptr: int) -> None:
    current_device().memory.free(int(ptr))


def memcpy(dst: int, src: int, size: int, kind: int) -> None:
    """Copies between raw addresses; host addresses are read and written through ctypes."""
    heap = current_device().memory
    size = checked_size(size, "memcpy", int(dst))
    if kind == cudaMemcpyDefault:
        kind = cudaMemcpyDeviceToDevice
    if kind in (cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost):
        data = np.array(heap.read_bytes(int(src), size), dtype=np.uint8)
    else:
        data = _host_bytes(src, size).copy()
    if kind in (cudaMemcpyDeviceToDevice, cudaMemcpyHostToDevice):
        heap.write_bytes(int(dst), data)
    else:
        _host_bytes(dst, size)[...] = data


def memcpyAsync(dst: int, src: int, size: int, kind: int, stream=0) -> None:
    memcpy(dst, src, size, kind)


def memset(ptr: int, value: int, size: int) -> None:
    size = checked_size(size, "memset", int(ptr))
    current_device().memory.memset(int(ptr), int(value) & 0xFF, size)


def memsetAsync(ptr: int, value: int, size: int, stream=0) -> None:
    memset(ptr, value, size)


def streamSynchronize(stream) -> None:
    pass


def pointer(ptr: int) -> MemoryPointer:
    return MemoryPointer(UnownedMemory(ptr, 0, None, current_device()))


def _host_bytes(address: int, size: int) -> np.ndarray:
    import ctypes
    return np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(int(address)))


def __getattr__(name):
    raise missing_attribute("cupy.cuda.runtime", name)
