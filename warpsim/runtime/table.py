"""The one table of CUDA runtime functions warpsim's libcudart.so.13 exports.

Each row is a C signature: return type, name, parameters. warpsim.runtime.native
generates the C stub of every row from it (each stub forwards its arguments to
the Python function of the same name in warpsim.runtime.calls, or, where there is
none, to `not_supported`), and the version script that gives every symbol
libcudart's version node. Parameter types are C spellings from ARGUMENT_TYPES:
pointers and handles reach Python as addresses (int), dim3 as an (x, y, z) tuple,
a cudaExtent as (width, height, depth), a cudaPitchedPtr as (ptr, pitch, xsize, ysize),
a cudaMemLocation as (type, id).

Functions of cuda_runtime_api.h that are not in this table still get a stub
(RUNTIME_HEADER_FUNCTIONS: every `cudaError_t cuda...(...)` declared there), one
that returns cudaErrorNotSupported and names itself once on stderr, so a
program never dies of an undefined symbol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# C parameter type -> how the stub hands it to Python: 'u' unsigned 64-bit, 'i' signed, 'd' dim3,
# 'e' cudaExtent, 'p' cudaPitchedPtr, 'l' cudaMemLocation (all by value).
ARGUMENT_TYPES = {
    "void *": "u", "const void *": "u", "void **": "u", "const char *": "u", "char *": "u",
    "size_t": "u", "size_t *": "u", "int *": "u", "unsigned int *": "u", "float *": "u",
    "int": "i", "unsigned int": "u", "unsigned long long": "u", "cudaStream_t": "u",
    "cudaStream_t *": "u", "cudaEvent_t": "u", "cudaEvent_t *": "u", "cudaKernel_t": "u",
    "cudaKernel_t *": "u", "dim3": "d", "dim3 *": "u", "uint3 *": "u", "cudaHostFn_t": "u",
    "cudaStreamCallback_t": "u", "unsigned long long *": "u", "cudaArray_t": "u", "cudaArray_t *": "u",
    "struct cudaExtent": "e", "struct cudaPitchedPtr": "p", "struct cudaMemLocation": "l",
    "cudaMemPool_t": "u", "cudaMemPool_t *": "u",
    # the driver table's (driver_table.py): handles and pointers as addresses, enums and CUdevice as ints
    "CUresult": "i", "CUdevice": "i", "CUdevice *": "u", "CUdeviceptr": "u", "CUdeviceptr *": "u",
    "CUcontext": "u", "CUcontext *": "u", "CUmodule": "u", "CUmodule *": "u", "CUfunction": "u",
    "CUfunction *": "u", "CUstream": "u", "CUstream *": "u", "CUevent": "u", "CUevent *": "u",
    "CUctxCreateParams *": "u", "CUjit_option *": "u", "CUtensorMap *": "u", "const char **": "u",
    "CUdriverProcAddressQueryResult *": "u", "unsigned char": "u", "unsigned short": "u",
    "cuuint32_t": "u", "cuuint64_t": "u", "const cuuint32_t *": "u", "const cuuint64_t *": "u",
    "const int *": "u", "CUdevice_attribute": "i", "CUfunction_attribute": "i", "CUpointer_attribute": "i",
    "CUtensorMapDataType": "i", "CUtensorMapInterleave": "i", "CUtensorMapSwizzle": "i",
    "CUtensorMapL2promotion": "i", "CUtensorMapFloatOOBfill": "i", "CUoccupancyB2DSize": "u",
    "const CUlaunchConfig *": "u", "const CUDA_MEMCPY2D *": "u", "const CUDA_MEMCPY3D *": "u", "CUarray": "u",
    "CUarray *": "u", "const CUDA_ARRAY_DESCRIPTOR *": "u", "CUDA_ARRAY_DESCRIPTOR *": "u",
    "const CUDA_ARRAY3D_DESCRIPTOR *": "u", "CUDA_ARRAY3D_DESCRIPTOR *": "u", "CUtexObject": "u",
    "CUtexObject *": "u", "CUsurfObject": "u", "CUsurfObject *": "u", "const CUDA_RESOURCE_DESC *": "u",
    "const CUDA_TEXTURE_DESC *": "u", "const CUDA_RESOURCE_VIEW_DESC *": "u", "CUmemLocation": "l",
}
# C return type -> how the stub reads Python's result.
RETURN_TYPES = {"cudaError_t": "int", "const char *": "pointer", "void **": "pointer",
                "void": "void", "unsigned int": "unsigned", "char": "int", "CUresult": "int"}


@dataclass(frozen=True)
class RuntimeFunction:
    returns: str
    name: str
    params: tuple        # ((C type, name), ...)


def _row(signature: str) -> RuntimeFunction:
    """'cudaError_t cudaMalloc(void ** devPtr, size_t size)' -> RuntimeFunction."""
    match = re.fullmatch(r"\s*(.+?)\s*\b(\w+)\((.*)\)\s*", signature)
    returns, name, params = match.groups()
    parsed = []
    for param in filter(None, (p.strip() for p in params.split(","))):
        type_, _, pname = param.rpartition(" ")
        type_ = type_.strip()
        if type_ not in ARGUMENT_TYPES:
            raise ValueError(f"{name}: parameter type '{type_}' is not in ARGUMENT_TYPES")
        parsed.append((type_, pname))
    if returns not in RETURN_TYPES:
        raise ValueError(f"{name}: return type '{returns}' is not in RETURN_TYPES")
    return RuntimeFunction(returns, name, tuple(parsed))


FUNCTIONS = tuple(_row(s) for s in """
void ** __cudaRegisterFatBinary(void * fatCubin)
void __cudaRegisterFatBinaryEnd(void ** handle)
void __cudaUnregisterFatBinary(void ** handle)
void __cudaRegisterFunction(void ** handle, const char * hostFun, char * deviceFun, const char * deviceName, int threadLimit, uint3 * tid, uint3 * bid, dim3 * bDim, dim3 * gDim, int * wSize)
void __cudaRegisterVar(void ** handle, char * hostVar, char * deviceAddress, const char * deviceName, int ext, size_t size, int constant, int global)
void __cudaRegisterManagedVar(void ** handle, void ** hostVarAddress, char * deviceAddress, const char * deviceName, int ext, size_t size, int constant, int global)
char __cudaInitModule(void ** handle)
unsigned int __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, void * stream)
cudaError_t __cudaPopCallConfiguration(dim3 * gridDim, dim3 * blockDim, size_t * sharedMem, void * stream)
cudaError_t __cudaGetKernel(cudaKernel_t * kernel, const void * hostFun)
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void ** args, size_t sharedMem, cudaStream_t stream)
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void ** args, size_t sharedMem, cudaStream_t stream)
cudaError_t cudaLaunchKernel(const void * func, dim3 gridDim, dim3 blockDim, void ** args, size_t sharedMem, cudaStream_t stream)
cudaError_t cudaLaunchKernelExC(const void * config, const void * func, void ** args)
cudaError_t cudaFuncGetAttributes(void * attr, const void * func)
cudaError_t cudaFuncGetName(void * name, const void * func)
cudaError_t cudaFuncSetAttribute(const void * func, int attr, int value)
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int * numBlocks, const void * func, int blockSize, size_t dynamicSMemSize)
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int * numBlocks, const void * func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
cudaError_t cudaMalloc(void ** devPtr, size_t size)
cudaError_t cudaMallocManaged(void ** devPtr, size_t size, unsigned int flags)
cudaError_t cudaMallocHost(void ** ptr, size_t size)
cudaError_t cudaHostAlloc(void ** ptr, size_t size, unsigned int flags)
cudaError_t cudaFree(void * devPtr)
cudaError_t cudaFreeHost(void * ptr)
cudaError_t cudaMemcpy(void * dst, const void * src, size_t count, int kind)
cudaError_t cudaMemcpyAsync(void * dst, const void * src, size_t count, int kind, cudaStream_t stream)
cudaError_t cudaMemset(void * devPtr, int value, size_t count)
cudaError_t cudaMemsetAsync(void * devPtr, int value, size_t count, cudaStream_t stream)
cudaError_t cudaMemcpyToSymbol(const void * symbol, const void * src, size_t count, size_t offset, int kind)
cudaError_t cudaMemcpyFromSymbol(void * dst, const void * symbol, size_t count, size_t offset, int kind)
cudaError_t cudaMemcpyToSymbolAsync(const void * symbol, const void * src, size_t count, size_t offset, int kind, cudaStream_t stream)
cudaError_t cudaMemcpyFromSymbolAsync(void * dst, const void * symbol, size_t count, size_t offset, int kind, cudaStream_t stream)
cudaError_t cudaGetSymbolAddress(void ** devPtr, const void * symbol)
cudaError_t cudaGetSymbolSize(size_t * size, const void * symbol)
cudaError_t cudaMemGetInfo(size_t * free, size_t * total)
cudaError_t cudaMallocPitch(void ** devPtr, size_t * pitch, size_t width, size_t height)
cudaError_t cudaMemcpy2D(void * dst, size_t dpitch, const void * src, size_t spitch, size_t width, size_t height, int kind)
cudaError_t cudaMemcpy2DAsync(void * dst, size_t dpitch, const void * src, size_t spitch, size_t width, size_t height, int kind, cudaStream_t stream)
cudaError_t cudaMemset2D(void * devPtr, size_t pitch, int value, size_t width, size_t height)
cudaError_t cudaMemset2DAsync(void * devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream)
cudaError_t cudaPointerGetAttributes(void * attributes, const void * ptr)
cudaError_t cudaMallocArray(cudaArray_t * array, const void * desc, size_t width, size_t height, unsigned int flags)
cudaError_t cudaMalloc3DArray(cudaArray_t * array, const void * desc, struct cudaExtent extent, unsigned int flags)
cudaError_t cudaFreeArray(cudaArray_t array)
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void * src, size_t spitch, size_t width, size_t height, int kind)
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void * src, size_t count, int kind)
cudaError_t cudaMemcpy2DFromArray(void * dst, size_t dpitch, cudaArray_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, int kind)
cudaError_t cudaCreateTextureObject(unsigned long long * pTexObject, const void * pResDesc, const void * pTexDesc, const void * pResViewDesc)
cudaError_t cudaDestroyTextureObject(unsigned long long texObject)
cudaError_t cudaCreateSurfaceObject(unsigned long long * pSurfObject, const void * pResDesc)
cudaError_t cudaDestroySurfaceObject(unsigned long long surfObject)
cudaError_t cudaMalloc3D(void * pitchedDevPtr, struct cudaExtent extent)
cudaError_t cudaMemcpy3D(const void * p)
cudaError_t cudaMemcpy3DAsync(const void * p, cudaStream_t stream)
cudaError_t cudaMemcpy3DPeer(const void * p)
cudaError_t cudaMemcpy3DPeerAsync(const void * p, cudaStream_t stream)
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent, cudaStream_t stream)
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void * src, size_t spitch, size_t width, size_t height, int kind, cudaStream_t stream)
cudaError_t cudaMemcpy2DFromArrayAsync(void * dst, size_t dpitch, cudaArray_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, int kind, cudaStream_t stream)
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height, int kind)
cudaError_t cudaMemcpyFromArray(void * dst, cudaArray_t src, size_t wOffset, size_t hOffset, size_t count, int kind)
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void * src, size_t count, int kind, cudaStream_t stream)
cudaError_t cudaMemcpyFromArrayAsync(void * dst, cudaArray_t src, size_t wOffset, size_t hOffset, size_t count, int kind, cudaStream_t stream)
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count, int kind)
cudaError_t cudaGetChannelDesc(void * desc, cudaArray_t array)
cudaError_t cudaArrayGetInfo(void * desc, void * extent, unsigned int * flags, cudaArray_t array)
cudaError_t cudaDeviceSetLimit(int limit, size_t value)
cudaError_t cudaDeviceGetLimit(size_t * pValue, int limit)
cudaError_t cudaDeviceGetCacheConfig(int * pCacheConfig)
cudaError_t cudaDeviceSetSharedMemConfig(int config)
cudaError_t cudaDeviceGetSharedMemConfig(int * pConfig)
cudaError_t cudaFuncSetSharedMemConfig(const void * func, int config)
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t * dynamicSmemSize, const void * func, int numBlocks, int blockSize)
cudaError_t cudaLaunchCooperativeKernel(const void * func, dim3 gridDim, dim3 blockDim, void ** args, size_t sharedMem, cudaStream_t stream)
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void * userData)
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void * userData, unsigned int flags)
cudaError_t cudaStreamCreateWithPriority(cudaStream_t * stream, unsigned int flags, int priority)
cudaError_t cudaDeviceGetStreamPriorityRange(int * leastPriority, int * greatestPriority)
cudaError_t cudaFuncSetCacheConfig(const void * func, int cacheConfig)
cudaError_t cudaDeviceSetCacheConfig(int cacheConfig)
cudaError_t cudaSetDeviceFlags(unsigned int flags)
cudaError_t cudaGetDeviceFlags(unsigned int * flags)
cudaError_t cudaProfilerStart()
cudaError_t cudaProfilerStop()
cudaError_t cudaMallocAsync(void ** devPtr, size_t size, cudaStream_t stream)
cudaError_t cudaFreeAsync(void * devPtr, cudaStream_t stream)
cudaError_t cudaMallocFromPoolAsync(void ** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t * memPool, int device)
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t * memPool, int device)
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
cudaError_t cudaMemPoolCreate(cudaMemPool_t * memPool, const void * poolProps)
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, int attr, void * value)
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, int attr, void * value)
cudaError_t cudaMemPrefetchAsync(const void * devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream)
cudaError_t cudaMemAdvise(const void * devPtr, size_t count, int advice, struct cudaMemLocation location)
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void * devPtr, size_t length, unsigned int flags)
cudaError_t cudaDeviceCanAccessPeer(int * canAccessPeer, int device, int peerDevice)
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
cudaError_t cudaMemcpyPeer(void * dst, int dstDevice, const void * src, int srcDevice, size_t count)
cudaError_t cudaMemcpyPeerAsync(void * dst, int dstDevice, const void * src, int srcDevice, size_t count, cudaStream_t stream)
cudaError_t cudaHostRegister(void * ptr, size_t size, unsigned int flags)
cudaError_t cudaHostUnregister(void * ptr)
cudaError_t cudaHostGetDevicePointer(void ** pDevice, void * pHost, unsigned int flags)
cudaError_t cudaDeviceSynchronize()
cudaError_t cudaDeviceReset()
cudaError_t cudaThreadSynchronize()
cudaError_t cudaGetLastError()
cudaError_t cudaPeekAtLastError()
const char * cudaGetErrorString(int error)
const char * cudaGetErrorName(int error)
cudaError_t cudaGetDeviceCount(int * count)
cudaError_t cudaGetDevice(int * device)
cudaError_t cudaSetDevice(int device)
cudaError_t cudaGetDeviceProperties(void * prop, int device)
cudaError_t cudaDeviceGetAttribute(int * value, int attr, int device)
cudaError_t cudaDriverGetVersion(int * version)
cudaError_t cudaRuntimeGetVersion(int * version)
cudaError_t cudaGetDriverEntryPoint(const char * symbol, void ** funcPtr, unsigned long long flags, int * driverStatus)
cudaError_t cudaGetDriverEntryPointByVersion(const char * symbol, void ** funcPtr, unsigned int cudaVersion, unsigned long long flags, int * driverStatus)
cudaError_t cudaStreamCreate(cudaStream_t * stream)
cudaError_t cudaStreamCreateWithFlags(cudaStream_t * stream, unsigned int flags)
cudaError_t cudaStreamDestroy(cudaStream_t stream)
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
cudaError_t cudaStreamQuery(cudaStream_t stream)
cudaError_t cudaEventCreate(cudaEvent_t * event)
cudaError_t cudaEventCreateWithFlags(cudaEvent_t * event, unsigned int flags)
cudaError_t cudaEventDestroy(cudaEvent_t event)
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
cudaError_t cudaEventSynchronize(cudaEvent_t event)
cudaError_t cudaEventQuery(cudaEvent_t event)
cudaError_t cudaEventElapsedTime(float * ms, cudaEvent_t start, cudaEvent_t end)
cudaError_t cudaGraphCreate(void * pGraph, unsigned int flags)
cudaError_t cudaGraphDestroy(void * graph)
cudaError_t cudaGraphGetNodes(void * graph, void * nodes, size_t * numNodes)
cudaError_t cudaGraphInstantiate(void * pGraphExec, void * graph, unsigned long long flags)
cudaError_t cudaGraphLaunch(void * graphExec, cudaStream_t stream)
cudaError_t cudaGraphExecDestroy(void * graphExec)
cudaError_t cudaGraphInstantiateWithFlags(void * pGraphExec, void * graph, unsigned long long flags)
cudaError_t cudaGraphClone(void * pGraphClone, void * originalGraph)
cudaError_t cudaGraphGetRootNodes(void * graph, void * pRootNodes, size_t * pNumRootNodes)
cudaError_t cudaGraphGetEdges(void * graph, void * from, void * to, void * edgeData, size_t * numEdges)
cudaError_t cudaGraphDebugDotPrint(void * graph, const char * path, unsigned int flags)
cudaError_t cudaGraphAddKernelNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, const void * pNodeParams)
cudaError_t cudaGraphAddMemsetNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, const void * pMemsetParams)
cudaError_t cudaGraphAddHostNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, const void * pNodeParams)
cudaError_t cudaGraphAddEmptyNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies)
cudaError_t cudaGraphAddMemcpyNode1D(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, void * dst, const void * src, size_t count, int kind)
cudaError_t cudaGraphAddMemcpyNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, const void * pCopyParams)
cudaError_t cudaGraphAddChildGraphNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, void * childGraph)
cudaError_t cudaGraphAddEventRecordNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, cudaEvent_t event)
cudaError_t cudaGraphAddEventWaitNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, cudaEvent_t event)
cudaError_t cudaGraphAddMemAllocNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, void * nodeParams)
cudaError_t cudaGraphAddMemFreeNode(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, void * dptr)
cudaError_t cudaGraphMemAllocNodeGetParams(void * node, void * params_out)
cudaError_t cudaGraphMemFreeNodeGetParams(void * node, void * dptr_out)
cudaError_t cudaDeviceGraphMemTrim(int device)
cudaError_t cudaDeviceGetGraphMemAttribute(int device, int attr, void * value)
cudaError_t cudaDeviceSetGraphMemAttribute(int device, int attr, void * value)
cudaError_t cudaGraphChildGraphNodeGetGraph(void * node, void * pGraph)
cudaError_t cudaGraphDestroyNode(void * node)
cudaError_t cudaGraphNodeGetType(void * node, int * pType)
cudaError_t cudaGraphAddDependencies(void * graph, const void * from, const void * to, const void * edgeData, size_t numDependencies)
cudaError_t cudaGraphRemoveDependencies(void * graph, const void * from, const void * to, const void * edgeData, size_t numDependencies)
cudaError_t cudaGraphNodeGetDependencies(void * node, void * pDependencies, void * edgeData, size_t * pNumDependencies)
cudaError_t cudaGraphNodeGetDependentNodes(void * node, void * pDependentNodes, void * edgeData, size_t * pNumDependentNodes)
cudaError_t cudaGraphKernelNodeGetParams(void * node, void * pNodeParams)
cudaError_t cudaGraphKernelNodeSetParams(void * node, const void * pNodeParams)
cudaError_t cudaGraphMemsetNodeGetParams(void * node, void * pNodeParams)
cudaError_t cudaGraphMemsetNodeSetParams(void * node, const void * pNodeParams)
cudaError_t cudaGraphHostNodeGetParams(void * node, void * pNodeParams)
cudaError_t cudaGraphHostNodeSetParams(void * node, const void * pNodeParams)
cudaError_t cudaGraphMemcpyNodeSetParams1D(void * node, void * dst, const void * src, size_t count, int kind)
cudaError_t cudaGraphUpload(void * graphExec, cudaStream_t stream)
cudaError_t cudaGraphExecKernelNodeSetParams(void * hGraphExec, void * node, const void * pNodeParams)
cudaError_t cudaGraphExecMemsetNodeSetParams(void * hGraphExec, void * node, const void * pNodeParams)
cudaError_t cudaGraphExecHostNodeSetParams(void * hGraphExec, void * node, const void * pNodeParams)
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(void * hGraphExec, void * node, void * dst, const void * src, size_t count, int kind)
cudaError_t cudaGraphExecUpdate(void * hGraphExec, void * hGraph, void * resultInfo)
cudaError_t cudaGraphAddNode(void * pGraphNode, void * graph, const void * pDependencies, const void * dependencyData, size_t numDependencies, void * nodeParams)
cudaError_t cudaGraphConditionalHandleCreate(void * pHandle_out, void * graph, unsigned int defaultLaunchValue, unsigned int flags)
cudaError_t cudaGraphConditionalHandleCreate_v2(void * pHandle_out, void * graph, void * ctx, unsigned int defaultLaunchValue, unsigned int flags)
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, int * captureStatus_out, unsigned long long * id_out, void * graph_out, void * dependencies_out, void * edgeData_out, size_t * numDependencies_out)
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode)
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, void * graph, const void * dependencies, const void * dependencyData, size_t numDependencies, int mode)
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, void * dependencies, const void * dependencyData, size_t numDependencies, unsigned int flags)
cudaError_t cudaStreamEndCapture(cudaStream_t stream, void * pGraph)
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int * pCaptureStatus)
cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int * flags)
cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int * priority)
cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int * device)
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long * streamId)
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, int attr, const void * value)
cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, int attr, void * value_out)
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
cudaError_t cudaThreadExchangeStreamCaptureMode(int * mode)
cudaError_t cudaChooseDevice(int * device, const void * prop)
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
cudaError_t cudaDeviceGetPCIBusId(char * pciBusId, int len, int device)
cudaError_t cudaDeviceGetByPCIBusId(int * device, const char * pciBusId)
cudaError_t cudaGraphNodeGetParams(void * node, void * nodeParams)
cudaError_t cudaGraphNodeSetParams(void * node, void * nodeParams)
cudaError_t cudaGraphExecNodeSetParams(void * graphExec, void * node, void * nodeParams)
cudaError_t cudaGraphMemcpyNodeGetParams(void * node, void * pNodeParams)
cudaError_t cudaGraphMemcpyNodeSetParams(void * node, const void * pNodeParams)
cudaError_t cudaGraphExecMemcpyNodeSetParams(void * hGraphExec, void * node, const void * pNodeParams)
cudaError_t cudaGraphAddMemcpyNodeToSymbol(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, const void * symbol, const void * src, size_t count, size_t offset, int kind)
cudaError_t cudaGraphAddMemcpyNodeFromSymbol(void * pGraphNode, void * graph, const void * pDependencies, size_t numDependencies, void * dst, const void * symbol, size_t count, size_t offset, int kind)
cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(void * node, const void * symbol, const void * src, size_t count, size_t offset, int kind)
cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(void * node, void * dst, const void * symbol, size_t count, size_t offset, int kind)
cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(void * hGraphExec, void * node, const void * symbol, const void * src, size_t count, size_t offset, int kind)
cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(void * hGraphExec, void * node, void * dst, const void * symbol, size_t count, size_t offset, int kind)
cudaError_t cudaGraphEventRecordNodeGetEvent(void * node, cudaEvent_t * event_out)
cudaError_t cudaGraphEventRecordNodeSetEvent(void * node, cudaEvent_t event)
cudaError_t cudaGraphEventWaitNodeGetEvent(void * node, cudaEvent_t * event_out)
cudaError_t cudaGraphEventWaitNodeSetEvent(void * node, cudaEvent_t event)
cudaError_t cudaGraphExecEventRecordNodeSetEvent(void * hGraphExec, void * hNode, cudaEvent_t event)
cudaError_t cudaGraphExecEventWaitNodeSetEvent(void * hGraphExec, void * hNode, cudaEvent_t event)
cudaError_t cudaGraphExecChildGraphNodeSetParams(void * hGraphExec, void * node, void * childGraph)
cudaError_t cudaGraphNodeSetEnabled(void * hGraphExec, void * hNode, unsigned int isEnabled)
cudaError_t cudaGraphNodeGetEnabled(void * hGraphExec, void * hNode, unsigned int * isEnabled)
cudaError_t cudaGraphNodeFindInClone(void * pNode, void * originalNode, void * clonedGraph)
cudaError_t cudaGraphNodeGetContainingGraph(void * hNode, void * phGraph)
cudaError_t cudaGraphNodeGetLocalId(void * hNode, unsigned int * nodeId)
cudaError_t cudaGraphNodeGetToolsId(void * hNode, unsigned long long * toolsNodeId)
cudaError_t cudaGraphGetId(void * hGraph, unsigned int * graphID)
cudaError_t cudaGraphExecGetId(void * hGraphExec, unsigned int * graphID)
cudaError_t cudaGraphExecGetFlags(void * graphExec, unsigned long long * flags)
cudaError_t cudaGraphInstantiateWithParams(void * pGraphExec, void * graph, void * instantiateParams)
cudaError_t cudaGraphKernelNodeGetAttribute(void * hNode, int attr, void * value_out)
cudaError_t cudaGraphKernelNodeSetAttribute(void * hNode, int attr, const void * value)
cudaError_t cudaGraphKernelNodeCopyAttributes(void * hDst, void * hSrc)
cudaError_t cudaUserObjectCreate(void * object_out, void * ptr, cudaHostFn_t destroy, unsigned int initialRefcount, unsigned int flags)
cudaError_t cudaUserObjectRetain(void * object, unsigned int count)
cudaError_t cudaUserObjectRelease(void * object, unsigned int count)
cudaError_t cudaGraphRetainUserObject(void * graph, void * object, unsigned int count, unsigned int flags)
cudaError_t cudaGraphReleaseUserObject(void * graph, void * object, unsigned int count)
cudaError_t cudaHostGetFlags(unsigned int * pFlags, void * pHost)
cudaError_t cudaMemRangeGetAttribute(void * data, size_t dataSize, int attribute, const void * devPtr, size_t count)
cudaError_t cudaMemRangeGetAttributes(void ** data, size_t * dataSizes, void * attributes, size_t numAttributes, const void * devPtr, size_t count)
cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t * memPool, void * location, int type)
cudaError_t cudaMemGetMemPool(cudaMemPool_t * memPool, void * location, int type)
cudaError_t cudaMemSetMemPool(void * location, int type, cudaMemPool_t memPool)
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const void * descList, size_t count)
cudaError_t cudaMemPoolGetAccess(int * flags, cudaMemPool_t memPool, void * location)
cudaError_t cudaGetFuncBySymbol(void ** functionPtr, const void * symbolPtr)
cudaError_t cudaFuncGetParamCount(const void * func, size_t * paramCount)
cudaError_t cudaFuncGetParamInfo(const void * func, size_t paramIndex, size_t * paramOffset, size_t * paramSize)
cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t * maxWidthInElements, const void * fmtDesc, int device)
cudaError_t cudaDeviceGetP2PAttribute(int * value, int attr, int srcDevice, int dstDevice)
cudaError_t cudaGetTextureObjectResourceDesc(void * pResDesc, unsigned long long texObject)
cudaError_t cudaGetTextureObjectTextureDesc(void * pTexDesc, unsigned long long texObject)
cudaError_t cudaGetTextureObjectResourceViewDesc(void * pResViewDesc, unsigned long long texObject)
cudaError_t cudaGetSurfaceObjectResourceDesc(void * pResDesc, unsigned long long surfObject)
""".strip().splitlines())

BY_NAME = {f.name: f for f in FUNCTIONS}


# What cuda_runtime_api.h calls a function under `--default-stream per-thread`: NAME_ptds
# (synchronous calls) or NAME_ptsz (calls that take a stream, whose NULL stream is then the
# calling thread's default stream, cudaStreamPerThread).
PER_THREAD_SUFFIXES = ("_ptds", "_ptsz")


def header_functions(header_text: str) -> list[str]:
    """Names of the `cudaError_t` functions a cuda_runtime_api.h declares (its host API), and
    the per-thread-default-stream names its macros give some of them (`#define cudaMemcpyAsync
    __CUDART_API_PTSZ(cudaMemcpyAsync)`: cudaMemcpyAsync_ptsz)."""
    found = re.findall(r"cudaError_t\s+CUDARTAPI\s+(cuda\w+)\s*\(", header_text)
    per_thread = re.findall(r"#\s*define\s+(cuda\w+)\s+__CUDART_API_PT(DS|SZ)\(\s*\1\s*\)", header_text)
    return sorted(set(found) | {f"{name}_pt{kind.lower()}" for name, kind in per_thread})


def per_thread_base(name: str) -> str | None:
    """'cudaMemcpyAsync_ptsz' -> 'cudaMemcpyAsync'; None for a name with no per-thread suffix."""
    return name[:-len("_ptsz")] if name.endswith(PER_THREAD_SUFFIXES) else None


def stream_parameter(function: RuntimeFunction) -> int | None:
    """The position of a table row's stream parameter (cudaStream_t, or the driver table's CUstream), or None."""
    return next((k for k, (type_, _) in enumerate(function.params) if type_ in ("cudaStream_t", "CUstream")), None)
