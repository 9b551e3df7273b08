"""What cudaGetDeviceProperties and cudaDeviceGetAttribute report: the chosen GPU preset's figures.

One dict of values by cudaDeviceProp field name serves both calls: the struct
is filled at the offsets the library was compiled with (native.DEVICE_PROP_FIELDS,
from the CUDA headers), and each cudaDevAttr* name maps to one field. Every
attribute an H200 reports through ncu has its value; the reserved codes, the codes
driver_types.h no longer defines and the CUDA 13 additions from 141 on (host NUMA
memory pools, locality domains, ...), which that list lacks, are cudaErrorInvalidValue.
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
    "GpuOverlap": "deviceOverlap", "SurfaceAlignment": "surfaceAlignment", "PciDeviceId": "pciDeviceID",
    "PciDomainId": "pciDomainID", "TexturePitchAlignment": "texturePitchAlignment",
    "MaxTexture1DWidth": "maxTexture1D", "MaxTexture1DMipmappedWidth": "maxTexture1DMipmap",
    "MaxTexture1DLinearWidth": "maxTexture1DLinear",
    "MaxTexture2DWidth": ("maxTexture2D", 0), "MaxTexture2DHeight": ("maxTexture2D", 1),
    "MaxTexture2DMipmappedWidth": ("maxTexture2DMipmap", 0), "MaxTexture2DMipmappedHeight": ("maxTexture2DMipmap", 1),
    "MaxTexture2DLinearWidth": ("maxTexture2DLinear", 0), "MaxTexture2DLinearHeight": ("maxTexture2DLinear", 1),
    "MaxTexture2DLinearPitch": ("maxTexture2DLinear", 2),
    "MaxTexture2DGatherWidth": ("maxTexture2DGather", 0), "MaxTexture2DGatherHeight": ("maxTexture2DGather", 1),
    "MaxTexture3DWidth": ("maxTexture3D", 0), "MaxTexture3DHeight": ("maxTexture3D", 1),
    "MaxTexture3DDepth": ("maxTexture3D", 2), "MaxTexture3DWidthAlt": ("maxTexture3DAlt", 0),
    "MaxTexture3DHeightAlt": ("maxTexture3DAlt", 1), "MaxTexture3DDepthAlt": ("maxTexture3DAlt", 2),
    "MaxTextureCubemapWidth": "maxTextureCubemap",
    "MaxTexture1DLayeredWidth": ("maxTexture1DLayered", 0), "MaxTexture1DLayeredLayers": ("maxTexture1DLayered", 1),
    "MaxTexture2DLayeredWidth": ("maxTexture2DLayered", 0), "MaxTexture2DLayeredHeight": ("maxTexture2DLayered", 1),
    "MaxTexture2DLayeredLayers": ("maxTexture2DLayered", 2),
    "MaxTextureCubemapLayeredWidth": ("maxTextureCubemapLayered", 0),
    "MaxTextureCubemapLayeredLayers": ("maxTextureCubemapLayered", 1),
    "MaxSurface1DWidth": "maxSurface1D", "MaxSurface2DWidth": ("maxSurface2D", 0),
    "MaxSurface2DHeight": ("maxSurface2D", 1), "MaxSurface3DWidth": ("maxSurface3D", 0),
    "MaxSurface3DHeight": ("maxSurface3D", 1), "MaxSurface3DDepth": ("maxSurface3D", 2),
    "MaxSurface1DLayeredWidth": ("maxSurface1DLayered", 0), "MaxSurface1DLayeredLayers": ("maxSurface1DLayered", 1),
    "MaxSurface2DLayeredWidth": ("maxSurface2DLayered", 0), "MaxSurface2DLayeredHeight": ("maxSurface2DLayered", 1),
    "MaxSurface2DLayeredLayers": ("maxSurface2DLayered", 2), "MaxSurfaceCubemapWidth": "maxSurfaceCubemap",
    "MaxSurfaceCubemapLayeredWidth": ("maxSurfaceCubemapLayered", 0),
    "MaxSurfaceCubemapLayeredLayers": ("maxSurfaceCubemapLayered", 1),
    "MultiGpuBoardGroupID": "multiGpuBoardGroupID",
    "SingleToDoublePrecisionPerfRatio": "singleToDoublePrecisionPerfRatio",
    "PageableMemoryAccessUsesHostPageTables": "pageableMemoryAccessUsesHostPageTables",
    "MaxAccessPolicyWindowSize": "accessPolicyMaxWindowSize", "SparseCudaArraySupported": "sparseCudaArraySupported",
    "HostRegisterReadOnlySupported": "hostRegisterReadOnlySupported",
    "TimelineSemaphoreInteropSupported": "timelineSemaphoreInteropSupported",
    "GPUDirectRDMASupported": "gpuDirectRDMASupported",
    "GPUDirectRDMAFlushWritesOptions": "gpuDirectRDMAFlushWritesOptions",
    "GPUDirectRDMAWritesOrdering": "gpuDirectRDMAWritesOrdering",
    "MemoryPoolSupportedHandleTypes": "memoryPoolSupportedHandleTypes",
    "DeferredMappingCudaArraySupported": "deferredMappingCudaArraySupported",
    "IpcEventSupport": "ipcEventSupported", "MemSyncDomainCount": "memSyncDomainCount",
    "NumaConfig": "deviceNumaConfig", "NumaId": "deviceNumaId", "MpsEnabled": "mpsEnabled",
    "HostNumaId": "hostNumaId", "GpuPciDeviceId": "gpuPciDeviceID", "GpuPciSubsystemId": "gpuPciSubsystemID",
    "CanFlushRemoteWrites": "canFlushRemoteWrites", "D3D12CigSupported": "d3d12CigSupported",
    "VulkanCigSupported": "vulkanCigSupported",
    "HostNumaMemoryPoolsSupported": "hostNumaMemoryPoolsSupported",
    "HostNumaMultinodeIpcSupported": "hostNumaMultinodeIpcSupported",
    "HostMemoryPoolsSupported": "hostMemoryPoolsSupported",
    "OnlyPartialHostNativeAtomicSupported": "onlyPartialHostNativeAtomicSupported",
}

# Attribute numbers the runtime's cudaDeviceAttr does not name (or reserves) that CUDA 13.0's
# CUdevice_attribute defines: an H100 answers both APIs alike for every number from 1 to 147
# (validation/runtime/driver_attributes_native.txt, against warpsim's: the numbers set to 0 below and
# the H200's own sizes differ). The H200's value (device_attributes.txt) where warpsim
# has what it names, else 0, so a program that checks first takes its other path (an H200 says 1 to
# the export handles, dma_buf and stream memory operations, none of which warpsim's driver has).
NUMBERED_ATTRIBUTES = {
    44: 1,          # CAN_TEX2D_GATHER (tex2Dgather runs)
    92: 0, 93: 0, 94: 0,        # the removed stream memory operation flags (_V1): an H100's 0
    96: 1,          # COOPERATIVE_MULTI_DEVICE_LAUNCH, deprecated: an H100's 1 in both APIs
    102: 1,         # VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (driver_vmm.py: one mapping a handle)
    103: 0, 104: 0, 105: 0,     # export to a POSIX fd, Win32 and KMT handles
    107: 0,         # GENERIC_COMPRESSION_SUPPORTED (cuMemCreate's)
    110: 0,         # GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
    122: 0, 123: 0,             # 64-bit stream memory operations, CU_STREAM_WAIT_VALUE_NOR
    124: 0,         # DMA_BUF_SUPPORTED
    127: 1,         # TENSOR_MAP_ACCESS_SUPPORTED (cuTensorMapEncode*, TMA)
    128: 0,         # HANDLE_TYPE_FABRIC_SUPPORTED
    129: 1,         # UNIFIED_FUNCTION_POINTERS (an H200's 1)
    132: 0,         # MULTICAST_SUPPORTED (an H200's 0 too)
    136: 0, 137: 0,             # memory decompression (none on Hopper)
    141: 0, 145: 0, 146: 0,     # host NUMA and host locations for virtual memory management, host dma_buf
}
LAST_ATTRIBUTE = 147            # CUDA 13.0's last CUdevice_attribute: a 13.0 driver refuses later ones

# cudaDeviceProp's size_t fields (the others are int, unsigned int or arrays of int)
SIZE_T_FIELDS = frozenset(("totalGlobalMem", "sharedMemPerBlock", "memPitch", "totalConstMem", "textureAlignment",
                           "texturePitchAlignment", "sharedMemPerMultiprocessor", "sharedMemPerBlockOptin",
                           "reservedSharedMemPerBlock", "surfaceAlignment"))

# The texture and surface limits and the feature flags an H200 reports (ncu's device__attribute_*
# values, validation/programs_timing/h200/device_attributes.txt). The limits are the CUDA programming
# guide's for every compute capability from 6.0 on, so they serve the other presets too.
ARCHITECTURE_LIMITS = {
    "maxTexture1D": 131072, "maxTexture1DMipmap": 32768, "maxTexture1DLinear": 268435456, "maxTexture2D": (131072, 65536),
    "maxTexture2DMipmap": (32768, 32768), "maxTexture2DLinear": (131072, 65000, 2097120),
    "maxTexture2DGather": (32768, 32768), "maxTexture3D": (16384, 16384, 16384),
    "maxTexture3DAlt": (8192, 8192, 32768), "maxTextureCubemap": 32768, "maxTexture1DLayered": (32768, 2048),
    "maxTexture2DLayered": (32768, 32768, 2048), "maxTextureCubemapLayered": (32768, 2046),
    "maxSurface1D": 32768, "maxSurface2D": (131072, 65536), "maxSurface3D": (16384, 16384, 16384),
    "maxSurface1DLayered": (32768, 2048), "maxSurface2DLayered": (32768, 32768, 2048), "maxSurfaceCubemap": 32768,
    "maxSurfaceCubemapLayered": (32768, 2046), "surfaceAlignment": 512, "deviceOverlap": 1,
    "pageableMemoryAccessUsesHostPageTables": 0, "sparseCudaArraySupported": 1, "hostRegisterReadOnlySupported": 1,
    "timelineSemaphoreInteropSupported": 1, "gpuDirectRDMASupported": 1, "gpuDirectRDMAFlushWritesOptions": 1,
    "gpuDirectRDMAWritesOrdering": 100, "deferredMappingCudaArraySupported": 1, "memSyncDomainCount": 4,
    # an H200's 9 (POSIX file descriptors and fabric handles) and 1: warpsim's runtime has no CUDA IPC
    # (cudaIpcGetMemHandle, cudaIpcGetEventHandle, cudaMemPoolExportToShareableHandle), so none, and
    # simpleIPC and streamOrderedAllocationIPC take their other path
    "memoryPoolSupportedHandleTypes": 0, "ipcEventSupported": 0, "unifiedFunctionPointers": 1, "deviceNumaConfig": 0,
    "deviceNumaId": -1, "mpsEnabled": 0, "hostNumaId": 0, "canFlushRemoteWrites": 0, "multiGpuBoardGroupID": 0,
    "d3d12CigSupported": 0, "vulkanCigSupported": 0, "hostNumaMultinodeIpcSupported": 0,
}
# The memory interface: (memory clock in kHz, bus width in bits). h200: measured as above; the others
# are the figures those parts' deviceQuery prints.
MEMORY_INTERFACES = {"h200": (3201000, 6016), "h100": (2619000, 5120), "a100": (1593000, 5120), "l4": (6251000, 192)}


# preset -> the name the GPU's driver gives it (cudaDeviceProp.name, nvidia-smi): what a program
# reads is the real GPU's name; warpsim says it is simulated elsewhere (stderr, its reports).
# h200: measured (validation/programs/h200/native.json, device.cu); the others are the names
# those parts' drivers report.
DEVICE_NAMES = {"h200": "NVIDIA H200", "h100": "NVIDIA H100 80GB HBM3", "a100": "NVIDIA A100-SXM4-80GB",
                "l4": "NVIDIA L4"}
# The share of L2 cudaLimitPersistingL2CacheSize may set aside (persistingL2CacheMaxSize): the H200
# reports 39,321,600 of 62,914,560 bytes (ncu, as above); the H100 is taken to set aside the same
# share (not measured); the CUDA programming guide's A100 figure (30 of 40 MB) for the others.
PERSISTING_L2_SHARES = {"h200": 0.625, "h100": 0.625}
PERSISTING_L2_SHARE = 0.75


def device_name(preset) -> str:
    return DEVICE_NAMES.get(preset.name, preset.full_name)


def device_properties(preset, memory_bytes: int, managed: bool) -> dict:
    """cudaDeviceProp field -> value for the preset (ints, tuples for arrays, str for name)."""
    major, minor = preset.compute_capability
    memory_clock_khz, bus_width = MEMORY_INTERFACES.get(preset.name, (0, 0))
    return {
        **ARCHITECTURE_LIMITS,
        "name": device_name(preset), "totalGlobalMem": memory_bytes,
        "sharedMemPerBlock": 48 * 1024, "regsPerBlock": preset.registers_per_sm,
        "warpSize": preset.warp_size, "memPitch": (1 << 31) - 1,
        "maxThreadsPerBlock": preset.max_threads_per_block, "maxThreadsDim": (1024, 1024, 64),
        "maxGridSize": ((1 << 31) - 1, 65535, 65535), "totalConstMem": 64 * 1024,
        "major": major, "minor": minor, "textureAlignment": 512, "texturePitchAlignment": 32,
        "multiProcessorCount": preset.sms, "integrated": 0, "canMapHostMemory": 1,
        "concurrentKernels": 1, "asyncEngineCount": 3, "unifiedAddressing": 1,
        "memoryBusWidth": bus_width, "l2CacheSize": preset.l2_bytes,
        "maxThreadsPerMultiProcessor": preset.max_warps_per_sm * preset.warp_size,
        "sharedMemPerMultiprocessor": preset.max_shared_per_sm,
        "regsPerMultiprocessor": preset.registers_per_sm, "managedMemory": int(managed),
        "concurrentManagedAccess": int(managed), "cooperativeLaunch": 1,
        "sharedMemPerBlockOptin": preset.max_shared_per_block,
        "maxBlocksPerMultiProcessor": preset.max_ctas_per_sm,
        "reservedSharedMemPerBlock": preset.shared_reserved_per_block, "pciBusID": 0, "pciDeviceID": 0,
        "pciDomainID": 0, "gpuPciDeviceID": 0, "gpuPciSubsystemID": 0,
        "clusterLaunch": int(major >= 9), "memoryPoolsSupported": 1, "ECCEnabled": 1,
        "persistingL2CacheMaxSize": int(preset.l2_bytes * PERSISTING_L2_SHARES.get(preset.name, PERSISTING_L2_SHARE)),
        # attributes only (cudaDeviceProp dropped these in CUDA 13)
        "clockRate": int(preset.boost_clock_mhz * 1000), "memoryClockRate": memory_clock_khz,
        "singleToDoublePrecisionPerfRatio": round(preset.fp32_lanes_per_clk / preset.fp64_lanes_per_clk),
        "accessPolicyMaxWindowSize": 134217728,
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
        # memory pools in host memory and host NUMA nodes: not in warpsim's pools (cudaMemPoolCreate
        # takes device locations); no host-native atomics at all, so none partial
        "hostNumaMemoryPoolsSupported": 0, "hostNumaMultinodeIpcSupported": 0, "hostMemoryPoolsSupported": 0,
        "onlyPartialHostNativeAtomicSupported": 0,
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
        return NUMBERED_ATTRIBUTES.get(code)
    if isinstance(field, tuple):
        return properties[field[0]][field[1]]
    return properties[field]
