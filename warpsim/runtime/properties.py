"""What cudaGetDeviceProperties and cudaDeviceGetAttribute report: the chosen GPU preset's figures.

One dict of values by cudaDeviceProp field name serves both calls: the struct
is filled at the offsets the library was compiled with (native.DEVICE_PROP_FIELDS,
from the CUDA headers), and each cudaDevAttr* name maps to one field.
"""

from __future__ import annotations

import re

from .native import cuda_include_dir

# cudaDevAttr<Name> -> the cudaDeviceProp field (or element of one) with the same value
ATTRIBUTE_FIELDS = {
    "MaxThreadsPerBlock": "maxThreadsPerBlock", "MaxBlockDimX": ("maxThreadsDim", 0),
    "MaxBlockDimY": ("maxThreadsDim", 1), "MaxBlockDimZ": ("maxThreadsDim", 2),
    "MaxGridDimX": ("maxGridSize", 0), "MaxGridDimY": ("maxGridSize", 1), "MaxGridDimZ": ("maxGridSize", 2),
    "MaxSharedMemoryPerBlock": "sharedMemPerBlock", "TotalConstantMemory": "totalConstMem",
    "WarpSize": "warpSize", "MaxPitch": "memPitch", "MaxRegistersPerBlock": "regsPerBlock",
    "ClockRate": "clockRate", "TextureAlignment": "textureAlignment",
    "MultiProcessorCount": "multiProcessorCount", "Integrated": "integrated",
    "CanMapHostMemory": "canMapHostMemory", "ConcurrentKernels": "concurrentKernels",
    "EccEnabled": "ECCEnabled", "PciBusId": "pciBusID", "AsyncEngineCount": "asyncEngineCount",
    "UnifiedAddressing": "unifiedAddressing", "GlobalMemoryBusWidth": "memoryBusWidth",
    "L2CacheSize": "l2CacheSize", "MaxThreadsPerMultiProcessor": "maxThreadsPerMultiProcessor",
    "ComputeCapabilityMajor": "major", "ComputeCapabilityMinor": "minor",
    "MaxSharedMemoryPerMultiprocessor": "sharedMemPerMultiprocessor",
    "MaxRegistersPerMultiprocessor": "regsPerMultiprocessor", "ManagedMemory": "managedMemory",
    "ConcurrentManagedAccess": "concurrentManagedAccess", "CooperativeLaunch": "cooperativeLaunch",
    "MaxSharedMemoryPerBlockOptin": "sharedMemPerBlockOptin",
    "MaxBlocksPerMultiprocessor": "maxBlocksPerMultiProcessor",
    "ReservedSharedMemoryPerBlock": "reservedSharedMemPerBlock", "ClusterLaunch": "clusterLaunch",
    "MemoryClockRate": "memoryClockRate", "MemoryPoolsSupported": "memoryPoolsSupported",
    "MaxPersistingL2CacheSize": "persistingL2CacheMaxSize",
    "ComputeMode": "computeMode", "KernelExecTimeout": "kernelExecTimeoutEnabled",
    "TccDriver": "tccDriver", "StreamPrioritiesSupported": "streamPrioritiesSupported",
    "GlobalL1CacheSupported": "globalL1CacheSupported", "LocalL1CacheSupported": "localL1CacheSupported",
    "IsMultiGpuBoard": "isMultiGpuBoard", "HostNativeAtomicSupported": "hostNativeAtomicSupported",
    "PageableMemoryAccess": "pageableMemoryAccess",
    "ComputePreemptionSupported": "computePreemptionSupported",
    "CanUseHostPointerForRegisteredMem": "canUseHostPointerForRegisteredMem",
    "HostRegisterSupported": "hostRegisterSupported",
    "DirectManagedMemAccessFromHost": "directManagedMemAccessFromHost",
}


# preset -> the name the GPU's driver gives it (cudaDeviceProp.name, nvidia-smi): what a program
# reads is the real GPU's name; warpsim says it is simulated elsewhere (stderr, its reports).
# h200: measured (validation/programs/h200/native.json, device.cu); the others are the names
# those parts' drivers report.
DEVICE_NAMES = {"h200": "NVIDIA H200", "h100": "NVIDIA H100 80GB HBM3", "a100": "NVIDIA A100-SXM4-80GB",
                "l4": "NVIDIA L4"}
# The share of L2 cudaLimitPersistingL2CacheSize may set aside (persistingL2CacheMaxSize): the
# CUDA programming guide's A100 figure (30 of 40 MB); not measured on the others.
PERSISTING_L2_SHARE = 0.75


def device_name(preset) -> str:
    return DEVICE_NAMES.get(preset.name, preset.full_name)


def device_properties(preset, memory_bytes: int, managed: bool) -> dict:
    """cudaDeviceProp field -> value for the preset (ints, tuples for arrays, str for name)."""
    major, minor = preset.compute_capability
    return {
        "name": device_name(preset), "totalGlobalMem": memory_bytes,
        "sharedMemPerBlock": 48 * 1024, "regsPerBlock": preset.registers_per_sm,
        "warpSize": preset.warp_size, "memPitch": (1 << 31) - 1,
        "maxThreadsPerBlock": preset.max_threads_per_block, "maxThreadsDim": (1024, 1024, 64),
        "maxGridSize": ((1 << 31) - 1, 65535, 65535), "totalConstMem": 64 * 1024,
        "major": major, "minor": minor, "textureAlignment": 512, "texturePitchAlignment": 32,
        "multiProcessorCount": preset.sms, "integrated": 0, "canMapHostMemory": 1,
        "concurrentKernels": 1, "asyncEngineCount": 2, "unifiedAddressing": 1,
        "memoryBusWidth": 0, "l2CacheSize": preset.l2_bytes,
        "maxThreadsPerMultiProcessor": preset.max_warps_per_sm * preset.warp_size,
        "sharedMemPerMultiprocessor": preset.max_shared_per_sm,
        "regsPerMultiprocessor": preset.registers_per_sm, "managedMemory": int(managed),
        "concurrentManagedAccess": int(managed), "cooperativeLaunch": 1,
        "sharedMemPerBlockOptin": preset.max_shared_per_block,
        "maxBlocksPerMultiProcessor": preset.max_ctas_per_sm,
        "reservedSharedMemPerBlock": preset.shared_reserved_per_block, "pciBusID": 0,
        "clusterLaunch": int(major >= 9), "memoryPoolsSupported": 1, "ECCEnabled": 1,
        "persistingL2CacheMaxSize": int(preset.l2_bytes * PERSISTING_L2_SHARE),
        # attributes only (cudaDeviceProp dropped these in CUDA 13)
        "clockRate": int(preset.boost_clock_mhz * 1000), "memoryClockRate": 0,
        # as the H200 reports them (ncu's device__attribute_* values,
        # validation/programs_timing/h200/device_attributes.txt): a discrete board in the default
        # compute mode, no watchdog, no host-native atomics or pageable access. The CUDA samples'
        # findCudaDevice reads the compute mode first and stops at an error. The first two are
        # attributes only (not in CUDA 13's cudaDeviceProp).
        "computeMode": 0, "kernelExecTimeoutEnabled": 0, "tccDriver": 0, "streamPrioritiesSupported": 1,
        "globalL1CacheSupported": 1, "localL1CacheSupported": 1, "isMultiGpuBoard": 0,
        "hostNativeAtomicSupported": 0, "pageableMemoryAccess": 0, "computePreemptionSupported": 1,
        "canUseHostPointerForRegisteredMem": 1, "hostRegisterSupported": 1,
        "directManagedMemAccessFromHost": 0,
    }


_ATTRIBUTE_CODES: dict | None = None


def attribute_codes() -> dict:
    """cudaDevAttr enum value -> name (without the prefix), read from driver_types.h."""
    global _ATTRIBUTE_CODES
    if _ATTRIBUTE_CODES is None:
        text = (cuda_include_dir() / "driver_types.h").read_text(errors="replace")
        _ATTRIBUTE_CODES = {int(value): name for name, value in
                            re.findall(r"cudaDevAttr(\w+)\s*=\s*(\d+)", text)}
    return _ATTRIBUTE_CODES


def attribute_value(properties: dict, code: int):
    """The value of cudaDevAttr `code`, or None where warpsim does not know it."""
    field = ATTRIBUTE_FIELDS.get(attribute_codes().get(code, ""))
    if field is None:
        return None
    if isinstance(field, tuple):
        return properties[field[0]][field[1]]
    return properties[field]
