"""The one table of CUDA driver functions warpsim's libcuda.so.1 exports, and the names cuda.h gives them.

Each row is a C signature in the runtime table's format (warpsim.runtime.table:
its ARGUMENT_TYPES say how each C type reaches Python, one conversion for both
libraries). The name of a row is the symbol a program compiled against CUDA 13's
cuda.h calls: many functions are ABI versions of their name (`#define cuMemAlloc
cuMemAlloc_v2`, `#define cuCtxCreate cuCtxCreate_v4`), read from cuda.h by
`parse_header`. warpsim.runtime.native generates the stub of every row, and a
CUDA_ERROR_NOT_SUPPORTED stub (that names itself once on stderr) for every other
name cuda.h declares or maps to, so a program linked with `-lcuda` never dies of
an undefined symbol. The rows' Python functions are in warpsim.runtime.driver,
driver_memory, driver_modules and driver_arrays.

`entry_point` is the one rule by which a base name (`cuMemAlloc`), a CUDA version
and the per-thread flag pick the exported symbol, for cuGetProcAddress and the
runtime's cudaGetDriverEntryPoint[ByVersion]: the newest ABI version is what
cuda.h maps the name to; the versions come from cudaTypedefs.h's
`PFN_<name>_v<version>` typedefs, the N-th one being `<name>_vN` (the first, the
bare name), as the driver numbers them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .table import _row

FUNCTIONS = tuple(_row(s) for s in """
CUresult cuInit(unsigned int Flags)
CUresult cuDriverGetVersion(int * driverVersion)
CUresult cuGetErrorString(CUresult error, const char ** pStr)
CUresult cuGetErrorName(CUresult error, const char ** pStr)
CUresult cuGetProcAddress_v2(const char * symbol, void ** pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult * symbolStatus)
CUresult cuDeviceGet(CUdevice * device, int ordinal)
CUresult cuDeviceGetCount(int * count)
CUresult cuDeviceGetName(char * name, int len, CUdevice dev)
CUresult cuDeviceGetAttribute(int * pi, CUdevice_attribute attrib, CUdevice dev)
CUresult cuDeviceTotalMem_v2(size_t * bytes, CUdevice dev)
CUresult cuDeviceComputeCapability(int * major, int * minor, CUdevice dev)
CUresult cuDevicePrimaryCtxRetain(CUcontext * pctx, CUdevice dev)
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
CUresult cuCtxCreate_v4(CUcontext * pctx, CUctxCreateParams * ctxCreateParams, unsigned int flags, CUdevice dev)
CUresult cuCtxCreate_v2(CUcontext * pctx, unsigned int flags, CUdevice dev)
CUresult cuCtxDestroy_v2(CUcontext ctx)
CUresult cuCtxGetCurrent(CUcontext * pctx)
CUresult cuCtxSetCurrent(CUcontext ctx)
CUresult cuCtxPushCurrent_v2(CUcontext ctx)
CUresult cuCtxPopCurrent_v2(CUcontext * pctx)
CUresult cuCtxGetDevice(CUdevice * device)
CUresult cuCtxSynchronize()
CUresult cuMemAlloc_v2(CUdeviceptr * dptr, size_t bytesize)
CUresult cuMemFree_v2(CUdeviceptr dptr)
CUresult cuMemAllocHost_v2(void ** pp, size_t bytesize)
CUresult cuMemFreeHost(void * p)
CUresult cuMemGetInfo_v2(size_t * free, size_t * total)
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void * srcHost, size_t ByteCount)
CUresult cuMemcpyDtoH_v2(void * dstHost, CUdeviceptr srcDevice, size_t ByteCount)
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void * srcHost, size_t ByteCount, CUstream hStream)
CUresult cuMemcpyDtoHAsync_v2(void * dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
CUresult cuPointerGetAttribute(void * data, CUpointer_attribute attribute, CUdeviceptr ptr)
CUresult cuModuleLoad(CUmodule * module, const char * fname)
CUresult cuModuleLoadData(CUmodule * module, const void * image)
CUresult cuModuleLoadDataEx(CUmodule * module, const void * image, unsigned int numOptions, CUjit_option * options, void ** optionValues)
CUresult cuModuleUnload(CUmodule hmod)
CUresult cuModuleGetFunction(CUfunction * hfunc, CUmodule hmod, const char * name)
CUresult cuModuleGetGlobal_v2(CUdeviceptr * dptr, size_t * bytes, CUmodule hmod, const char * name)
CUresult cuFuncGetAttribute(int * pi, CUfunction_attribute attrib, CUfunction hfunc)
CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int * numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int * numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
CUresult cuOccupancyMaxPotentialBlockSize(int * minGridSize, int * blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int * minGridSize, int * blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags)
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void ** kernelParams, void ** extra)
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void ** kernelParams)
CUresult cuLaunchKernelEx(const CUlaunchConfig * config, CUfunction f, void ** kernelParams, void ** extra)
CUresult cuFuncGetName(const char ** name, CUfunction hfunc)
CUresult cuMemAllocPitch_v2(CUdeviceptr * dptr, size_t * pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes)
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D * pCopy)
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D * pCopy)
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D * pCopy, CUstream hStream)
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D * pCopy)
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D * pCopy, CUstream hStream)
CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height)
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height)
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height)
CUresult cuArrayCreate_v2(CUarray * pHandle, const CUDA_ARRAY_DESCRIPTOR * pAllocateArray)
CUresult cuArray3DCreate_v2(CUarray * pHandle, const CUDA_ARRAY3D_DESCRIPTOR * pAllocateArray)
CUresult cuArrayDestroy(CUarray hArray)
CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR * pArrayDescriptor, CUarray hArray)
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR * pArrayDescriptor, CUarray hArray)
CUresult cuTexObjectCreate(CUtexObject * pTexObject, const CUDA_RESOURCE_DESC * pResDesc, const CUDA_TEXTURE_DESC * pTexDesc, const CUDA_RESOURCE_VIEW_DESC * pResViewDesc)
CUresult cuTexObjectDestroy(CUtexObject texObject)
CUresult cuSurfObjectCreate(CUsurfObject * pSurfObject, const CUDA_RESOURCE_DESC * pResDesc)
CUresult cuSurfObjectDestroy(CUsurfObject surfObject)
CUresult cuMemHostRegister_v2(void * p, size_t bytesize, unsigned int Flags)
CUresult cuMemHostUnregister(void * p)
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr * pdptr, void * p, unsigned int Flags)
CUresult cuMemHostAlloc(void ** pp, size_t bytesize, unsigned int Flags)
CUresult cuMemHostGetFlags(unsigned int * pFlags, void * p)
CUresult cuMemAllocManaged(CUdeviceptr * dptr, size_t bytesize, unsigned int flags)
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream)
CUresult cuStreamCreate(CUstream * phStream, unsigned int Flags)
CUresult cuStreamDestroy_v2(CUstream hStream)
CUresult cuStreamSynchronize(CUstream hStream)
CUresult cuStreamQuery(CUstream hStream)
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
CUresult cuEventCreate(CUevent * phEvent, unsigned int Flags)
CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
CUresult cuEventQuery(CUevent hEvent)
CUresult cuEventSynchronize(CUevent hEvent)
CUresult cuEventElapsedTime_v2(float * pMilliseconds, CUevent hStart, CUevent hEnd)
CUresult cuEventDestroy_v2(CUevent hEvent)
CUresult cuTensorMapEncodeTiled(CUtensorMap * tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void * globalAddress, const cuuint64_t * globalDim, const cuuint64_t * globalStrides, const cuuint32_t * boxDim, const cuuint32_t * elementStrides, CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill)
CUresult cuTensorMapEncodeIm2col(CUtensorMap * tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void * globalAddress, const cuuint64_t * globalDim, const cuuint64_t * globalStrides, const int * pixelBoxLowerCorner, const int * pixelBoxUpperCorner, cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn, const cuuint32_t * elementStrides, CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill)
CUresult cuGetExportTable(void ** ppExportTable, const void * pExportTableId)
CUresult cuProfilerStart()
CUresult cuProfilerStop()
CUresult cuMemGetAllocationGranularity(size_t * granularity, const void * prop, int option)
CUresult cuMemAddressReserve(CUdeviceptr * ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
CUresult cuMemCreate(unsigned long long * handle, size_t size, const void * prop, unsigned long long flags)
CUresult cuMemRelease(unsigned long long handle)
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, unsigned long long handle, unsigned long long flags)
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const void * desc, size_t count)
CUresult cuMemGetAccess(unsigned long long * flags, const void * location, CUdeviceptr ptr)
CUresult cuMemRetainAllocationHandle(unsigned long long * handle, void * addr)
""".strip().splitlines())

BY_NAME = {f.name: f for f in FUNCTIONS}

# cuda.h's per-thread-default-stream macros: `#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)`
PER_THREAD = {"DS": "_ptds", "SZ": "_ptsz"}
PROC_LEGACY_STREAM, PROC_PER_THREAD_STREAM = 0x1, 0x2   # CU_GET_PROC_ADDRESS_* (cudaEnable* alike)
FOUND, NOT_FOUND, VERSION_NOT_SUFFICIENT = 0, 1, 2     # CUdriverProcAddressQueryResult (cudaDriverEntryPoint*)


@dataclass(frozen=True)
class DriverNames:
    """What a cuda.h declares and maps, and cudaTypedefs.h's ABI versions of each base name."""
    declared: frozenset             # names of `CUresult CUDAAPI cu...(` declarations, as written
    mapped: dict                    # name -> the symbol a default build calls (cuMemAlloc -> cuMemAlloc_v2)
    per_thread: dict                # name -> the symbol a --default-stream per-thread build calls
    versions: dict                  # base name -> CUDA versions of its ABI versions, ascending
    cuda_version: int               # the header's CUDA_VERSION: the newest ABI a driver of it has

    def exported(self) -> list[str]:
        """Every name libcuda.so.1 exports: the table's, the header's, the symbols its macros name."""
        names = set(self.declared) | set(self.mapped.values()) | set(self.per_thread.values()) | set(BY_NAME)
        return sorted(names)


def parse_header(cuda_h: str, typedefs_h: str) -> DriverNames:
    """cuda.h's and cudaTypedefs.h's texts -> DriverNames (native.driver_names reads PyPI's)."""
    declared = frozenset(re.findall(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(", cuda_h))
    mapped, per_thread = {}, {}
    for name, kind, inner, plain in re.findall(
            r"#\s*define\s+(cu\w+)\s+(?:__CUDA_API_PT(DS|SZ)\(\s*(cu\w+)\s*\)|(cu\w+))", cuda_h):
        mapped[name] = inner or plain
        if kind:
            per_thread[name] = inner + PER_THREAD[kind]
    versions: dict = {}
    for base, version, suffix in re.findall(r"\bPFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\)", typedefs_h):
        if not suffix:
            versions.setdefault(base, set()).add(int(version))
    version = re.search(r"#\s*define\s+CUDA_VERSION\s+(\d+)", cuda_h)
    return DriverNames(declared, mapped, per_thread, {base: sorted(v) for base, v in versions.items()},
                       int(version.group(1)) if version else 0)


def entry_point(names: DriverNames, symbol: str, cuda_version: int, per_thread: bool) -> tuple[str | None, int]:
    """(the exported symbol, CUdriverProcAddressQueryResult) for a base name asked for at a CUDA version.

    The newest ABI version is the symbol cuda.h maps the name to; an older one
    is `<name>_vN` by its place among cudaTypedefs.h's versions (the first is
    the bare name), exported by warpsim only as a CUDA_ERROR_NOT_SUPPORTED stub
    (the table has CUDA 13's signatures only). A name with no typedef is taken
    as present at every version. per_thread picks the _ptds/_ptsz symbol where
    cuda.h has one.
    """
    exported = set(names.exported())
    versions = names.versions.get(symbol)
    if symbol not in exported and symbol not in names.mapped and not versions:
        return None, NOT_FOUND
    newest = names.mapped.get(symbol, symbol)
    if versions:
        fitting = [v for v in versions if v <= cuda_version]
        if not fitting:
            return None, VERSION_NOT_SUFFICIENT
        place = versions.index(fitting[-1])
        if place != len(versions) - 1:
            older = symbol if place == 0 else f"{symbol}_v{place + 1}"
            return (older, FOUND) if older in exported else (None, NOT_FOUND)
    if per_thread and symbol in names.per_thread and names.per_thread[symbol] in exported:
        return names.per_thread[symbol], FOUND
    return (newest, FOUND) if newest in exported else (None, NOT_FOUND)

