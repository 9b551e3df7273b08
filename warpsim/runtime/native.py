"""warpsim's libcudart.so.13: C stubs generated from the runtime table, built with the system C compiler.

A CUDA program built with `-cudart shared` loads libcudart.so.13 and calls its C
functions. warpsim's library of that name is a thin C layer over the CPython
API: every stub starts (once) an interpreter in the program's process, if the
program is not Python already, then hands its arguments to the Python function
of the same name in warpsim.runtime.handlers (which gathers every API
group's functions) and returns what that gives back.
Everything the runtime does is Python; the C is generated here from
warpsim.runtime.table, never written per function.

Why a C layer over the CPython API rather than cffi's embedding mode: it needs
nothing but a C compiler and Python's headers (cffi would be one more
dependency, and its embedding init runs the same Py_Initialize), and the
stubs need only ints in and out.

The interpreter starts at the program's first runtime call, not at the
registration calls nvcc's static constructors make before `main`: those
(DEFERRED) are queued in static C arrays and handed to Python, in order, when
it starts, and the module handle the program keeps is a C cell that later calls
translate to Python's. Starting Python allocates and frees many megabytes of
the process's malloc heap; started before `main`, that left recycled, non-zero
blocks where a program's first `malloc`s get fresh zero pages on a GPU machine,
so a program that reads a buffer it never wrote (HeCBench asmooth's reference)
printed a different result under warpsim.

The driver API's libcuda.so.1 is generated the same way from
warpsim.runtime.driver_table (a `Library` says what the two differ in): its
stubs call the Python functions of warpsim.runtime.driver, driver_memory,
driver_modules and driver_arrays, which share the runtime's context, so memory, streams, events
and kernels are one set of objects for both APIs. Both libraries are built on
first use into the cache (warpsim.cache.cache_dir('runtime')), in one folder
keyed by warpsim's version, the Python version and a hash of the generated
sources, so no compiler runs at import and a changed table rebuilds them.
Without a C compiler (`cc`, or $CC) or Python's headers and shared libpython,
`build_runtime` raises RuntimeBuildError saying what to install.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..cache import cache_dir
from ..errors import WarpsimError
from . import driver_table
from .table import ARGUMENT_TYPES, FUNCTIONS, RETURN_TYPES, RuntimeFunction, header_functions, per_thread_base

LIBRARY = "libcudart.so.13"
VERSION_NODE = "libcudart.so.13"
DRIVER_LIBRARY = "libcuda.so.1"        # the driver API's (driver_table.py), built beside it
CUDA_ERROR_INITIALIZATION = 3          # what every stub returns when Python could not be started
# Registration calls made before the interpreter starts: queued in C, replayed at its start.
# __cudaRegisterManagedVar and __cudaInitModule are not deferred: the host may read a
# __managed__ variable's pointer, set by Python, right after them.
DEFERRED = ("__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaRegisterFunction",
            "__cudaRegisterVar", "__cudaUnregisterFatBinary")
# cudaDeviceProp fields whose offsets the library reports (ws_device_prop_layout), for
# cudaGetDeviceProperties to fill the struct as the program's header lays it out.
DEVICE_PROP_FIELDS = (
    "name", "totalGlobalMem", "sharedMemPerBlock", "regsPerBlock", "warpSize", "memPitch",
    "maxThreadsPerBlock", "maxThreadsDim", "maxGridSize", "totalConstMem", "major", "minor",
    "textureAlignment", "texturePitchAlignment", "multiProcessorCount", "integrated",
    "canMapHostMemory", "concurrentKernels", "asyncEngineCount", "unifiedAddressing",
    "memoryBusWidth", "l2CacheSize", "maxThreadsPerMultiProcessor", "sharedMemPerMultiprocessor",
    "regsPerMultiprocessor", "managedMemory", "concurrentManagedAccess", "cooperativeLaunch",
    "sharedMemPerBlockOptin", "maxBlocksPerMultiProcessor", "reservedSharedMemPerBlock",
    "pciBusID", "clusterLaunch", "memoryPoolsSupported", "ECCEnabled", "persistingL2CacheMaxSize",
    "tccDriver", "streamPrioritiesSupported", "globalL1CacheSupported", "localL1CacheSupported",
    "isMultiGpuBoard", "hostNativeAtomicSupported", "pageableMemoryAccess", "computePreemptionSupported",
    "canUseHostPointerForRegisteredMem", "directManagedMemAccessFromHost", "hostRegisterSupported",
    "maxTexture1D", "maxTexture1DMipmap", "maxTexture2D", "maxTexture2DMipmap", "maxTexture2DLinear",
    "maxTexture2DGather", "maxTexture3D", "maxTexture3DAlt", "maxTextureCubemap", "maxTexture1DLayered",
    "maxTexture2DLayered", "maxTextureCubemapLayered", "maxSurface1D", "maxSurface2D", "maxSurface3D",
    "maxSurface1DLayered", "maxSurface2DLayered", "maxSurfaceCubemap", "maxSurfaceCubemapLayered",
    "surfaceAlignment", "pciDeviceID", "pciDomainID", "multiGpuBoardGroupID",
    "pageableMemoryAccessUsesHostPageTables", "accessPolicyMaxWindowSize", "sparseCudaArraySupported",
    "hostRegisterReadOnlySupported", "timelineSemaphoreInteropSupported", "gpuDirectRDMASupported",
    "gpuDirectRDMAFlushWritesOptions", "gpuDirectRDMAWritesOrdering", "memoryPoolSupportedHandleTypes",
    "deferredMappingCudaArraySupported", "ipcEventSupported", "unifiedFunctionPointers", "deviceNumaConfig",
    "deviceNumaId", "mpsEnabled", "hostNumaId", "gpuPciDeviceID", "gpuPciSubsystemID",
    "hostNumaMultinodeIpcSupported",
)

# cudaFuncAttributes fields, reported the same way (ws_func_attributes_layout).
FUNC_ATTRIBUTE_FIELDS = ("sharedSizeBytes", "constSizeBytes", "localSizeBytes", "maxThreadsPerBlock",
                         "numRegs", "ptxVersion", "binaryVersion", "maxDynamicSharedSizeBytes",
                         "preferredShmemCarveout")
# cudaLaunchConfig_t fields (cudaLaunchKernelExC).
LAUNCH_CONFIG_FIELDS = ("gridDim", "blockDim", "dynamicSmemBytes", "stream", "attrs", "numAttrs")
# cudaPointerAttributes fields (cudaPointerGetAttributes).
POINTER_ATTRIBUTE_FIELDS = ("type", "device", "devicePointer", "hostPointer")
# cudaChannelFormatDesc, cudaResourceDesc and cudaTextureDesc fields (texture and surface objects).
CHANNEL_DESC_FIELDS = ("x", "y", "z", "w", "f")
RESOURCE_DESC_FIELDS = ("resType", "res.array.array", "res.linear.devPtr", "res.linear.desc",
                        "res.linear.sizeInBytes", "res.pitch2D.devPtr", "res.pitch2D.desc",
                        "res.pitch2D.width", "res.pitch2D.height", "res.pitch2D.pitchInBytes")
TEXTURE_DESC_FIELDS = ("addressMode", "filterMode", "readMode", "sRGB", "borderColor", "normalizedCoords")
# cudaMemcpy3DParms and the structs in it (cudaMemcpy3D), cudaLaunchAttribute (cudaLaunchKernelExC).
MEMCPY3D_FIELDS = ("srcArray", "srcPos", "srcPtr", "dstArray", "dstPos", "dstPtr", "extent", "kind")
MEMCPY3D_PEER_FIELDS = ("srcArray", "srcPos", "srcPtr", "srcDevice", "dstArray", "dstPos", "dstPtr", "dstDevice",
                        "extent")
PITCHED_PTR_FIELDS = ("ptr", "pitch", "xsize", "ysize")
POS_FIELDS = ("x", "y", "z")
EXTENT_FIELDS = ("width", "height", "depth")
MEM_POOL_PROPS_FIELDS = ("allocType", "handleTypes", "location.type", "location.id", "maxSize")
LAUNCH_ATTRIBUTE_FIELDS = ("id", "val.clusterDim.x", "val.clusterDim.y", "val.clusterDim.z", "val.cooperative",
                           "val.programmaticEvent.event", "val.launchCompletionEvent.event",
                           "val.portableClusterSizeMode")
# cudaKernelNodeParams, cudaMemsetParams and cudaGraphExecUpdateResultInfo (graphs built node by node).
KERNEL_NODE_FIELDS = ("func", "gridDim", "blockDim", "sharedMemBytes", "kernelParams", "extra")
MEMSET_PARAMS_FIELDS = ("dst", "pitch", "value", "elementSize", "width", "height")
UPDATE_RESULT_FIELDS = ("result", "errorNode", "errorFromNode")
MEM_ALLOC_NODE_FIELDS = ("poolProps", "accessDescs", "accessDescCount", "bytesize", "dptr")
# cudaGraphNodeParams (cudaGraphAddNode): its type, reserved words, and each union member it takes
# (the kernel, memset and memory allocation members are the V2 structs, read with their own layouts).
NODE_PARAMS_FIELDS = ("type", "reserved0", "reserved2", "kernel", "memcpy.copyParams", "memset", "host",
                      "graph.graph", "graph.ownership", "eventWait.event", "eventRecord.event", "alloc", "free.dptr",
                      "conditional.handle", "conditional.type", "conditional.size", "conditional.phGraph_out",
                      "conditional.ctx")
# cudaGraphInstantiateParams (cudaGraphInstantiateWithParams), cudaMemAccessDesc (cudaMemPoolSet/GetAccess).
INSTANTIATE_PARAMS_FIELDS = ("flags", "uploadStream", "errNode_out", "result_out")
MEM_ACCESS_DESC_FIELDS = ("location.type", "location.id", "flags")
# Each: (exported symbol, C struct, fields), reported as sizeof then offsetof each field.
LAYOUTS = (("ws_device_prop_layout", "struct cudaDeviceProp", DEVICE_PROP_FIELDS),
           ("ws_func_attributes_layout", "struct cudaFuncAttributes", FUNC_ATTRIBUTE_FIELDS),
           ("ws_launch_config_layout", "cudaLaunchConfig_t", LAUNCH_CONFIG_FIELDS),
           ("ws_pointer_attributes_layout", "struct cudaPointerAttributes", POINTER_ATTRIBUTE_FIELDS),
           ("ws_channel_desc_layout", "struct cudaChannelFormatDesc", CHANNEL_DESC_FIELDS),
           ("ws_resource_desc_layout", "struct cudaResourceDesc", RESOURCE_DESC_FIELDS),
           ("ws_texture_desc_layout", "struct cudaTextureDesc", TEXTURE_DESC_FIELDS),
           ("ws_memcpy3d_layout", "struct cudaMemcpy3DParms", MEMCPY3D_FIELDS),
           ("ws_memcpy3d_peer_layout", "struct cudaMemcpy3DPeerParms", MEMCPY3D_PEER_FIELDS),
           ("ws_pitched_ptr_layout", "struct cudaPitchedPtr", PITCHED_PTR_FIELDS),
           ("ws_pos_layout", "struct cudaPos", POS_FIELDS),
           ("ws_extent_layout", "struct cudaExtent", EXTENT_FIELDS),
           ("ws_mem_pool_props_layout", "struct cudaMemPoolProps", MEM_POOL_PROPS_FIELDS),
           ("ws_launch_attribute_layout", "cudaLaunchAttribute", LAUNCH_ATTRIBUTE_FIELDS),
           ("ws_kernel_node_params_layout", "struct cudaKernelNodeParams", KERNEL_NODE_FIELDS),
           ("ws_memset_params_layout", "struct cudaMemsetParams", MEMSET_PARAMS_FIELDS),
           ("ws_update_result_layout", "cudaGraphExecUpdateResultInfo", UPDATE_RESULT_FIELDS),
           ("ws_mem_alloc_node_layout", "struct cudaMemAllocNodeParams", MEM_ALLOC_NODE_FIELDS),
           ("ws_graph_node_params_layout", "struct cudaGraphNodeParams", NODE_PARAMS_FIELDS),
           ("ws_kernel_node_params_v2_layout", "struct cudaKernelNodeParamsV2", KERNEL_NODE_FIELDS),
           ("ws_memset_params_v2_layout", "struct cudaMemsetParamsV2", MEMSET_PARAMS_FIELDS),
           ("ws_mem_alloc_node_v2_layout", "struct cudaMemAllocNodeParamsV2", MEM_ALLOC_NODE_FIELDS),
           ("ws_launch_attribute_value_layout", "cudaLaunchAttributeValue", ()),
           ("ws_instantiate_params_layout", "cudaGraphInstantiateParams", INSTANTIATE_PARAMS_FIELDS),
           ("ws_mem_access_desc_layout", "struct cudaMemAccessDesc", MEM_ACCESS_DESC_FIELDS))


class RuntimeBuildError(WarpsimError):
    """warpsim's libcudart.so.13 could not be built (no C compiler, no Python headers, ...)."""


def cuda_include_dir() -> Path:
    """The folder of PyPI's CUDA runtime headers (nvidia-cuda-runtime)."""
    import nvidia.cu13
    return Path(list(nvidia.cu13.__path__)[0]) / "include"


def _dim3(name: str) -> str:
    return f"Py_BuildValue(\"(III)\", {name}.x, {name}.y, {name}.z)"


def _to_python(type_: str, name: str) -> str:
    kind = ARGUMENT_TYPES[type_]
    if kind == "d":
        return _dim3(name)
    if kind == "e":
        return f"Py_BuildValue(\"(KKK)\", (unsigned long long){name}.width, " \
               f"(unsigned long long){name}.height, (unsigned long long){name}.depth)"
    if kind == "p":
        return f"Py_BuildValue(\"(KKKK)\", (unsigned long long)(uintptr_t){name}.ptr, " \
               f"(unsigned long long){name}.pitch, (unsigned long long){name}.xsize, " \
               f"(unsigned long long){name}.ysize)"
    if kind == "l":
        return f"Py_BuildValue(\"(ii)\", (int){name}.type, {name}.id)"
    if kind == "i":
        return f"PyLong_FromLongLong((long long){name})"
    cast = "(uintptr_t)" if "*" in _c_type(type_) else ""
    return f"PyLong_FromUnsignedLongLong((unsigned long long){cast}{name})"


# The driver table's types in plain C (the library does not include cuda.h, whose declarations
# name the same functions with its own types): handles are pointers, enums and CUdevice ints.
_HANDLES = ("CUcontext", "CUmodule", "CUfunction", "CUstream", "CUevent")
DRIVER_C_TYPES = {
    **{handle: "void *" for handle in _HANDLES}, **{handle + " *": "void **" for handle in _HANDLES},
    **{enum: "int" for enum in ("CUresult", "CUdevice", "CUdevice_attribute", "CUfunction_attribute",
                                "CUpointer_attribute", "CUtensorMapDataType", "CUtensorMapInterleave",
                                "CUtensorMapSwizzle", "CUtensorMapL2promotion", "CUtensorMapFloatOOBfill")},
    "CUdevice *": "int *", "CUdeviceptr": "unsigned long long", "CUdeviceptr *": "unsigned long long *",
    "CUctxCreateParams *": "void *", "CUjit_option *": "int *", "CUtensorMap *": "void *", "CUoccupancyB2DSize": "void *",
    "CUdriverProcAddressQueryResult *": "int *", "cuuint32_t": "unsigned int", "cuuint64_t": "unsigned long long",
    "const cuuint32_t *": "const unsigned int *", "const cuuint64_t *": "const unsigned long long *",
    "CUarray": "void *", "CUarray *": "void **", "CUtexObject": "unsigned long long",
    "CUtexObject *": "unsigned long long *", "CUsurfObject": "unsigned long long",
    "CUsurfObject *": "unsigned long long *", "CUmemLocation": "struct cudaMemLocation",
    **{f"{const}{struct} *": f"{const}void *" for struct in (
        "CUlaunchConfig", "CUDA_MEMCPY2D", "CUDA_MEMCPY3D", "CUDA_ARRAY_DESCRIPTOR", "CUDA_ARRAY3D_DESCRIPTOR",
        "CUDA_RESOURCE_DESC", "CUDA_TEXTURE_DESC", "CUDA_RESOURCE_VIEW_DESC") for const in ("", "const ")}}


def _c_type(type_: str) -> str:
    return {"dim3": "ws_dim3", "dim3 *": "ws_dim3 *", "uint3 *": "ws_dim3 *", "cudaStream_t": "void *",
            "cudaStream_t *": "void **", "cudaEvent_t": "void *", "cudaEvent_t *": "void **",
            "cudaKernel_t": "void *", "cudaKernel_t *": "void **", "cudaHostFn_t": "void *",
            "cudaStreamCallback_t": "void *", "cudaArray_t": "void *",
            "cudaArray_t *": "void **", "cudaMemPool_t": "void *",
            "cudaMemPool_t *": "void **", **DRIVER_C_TYPES}.get(type_, type_)



def _c_return(type_: str) -> str:
    return {"cudaError_t": "int", "CUresult": "int"}.get(type_, type_)


def _argument(type_: str, name: str) -> str:
    if name == "handle":                       # a module handle may be one of the C cells (DEFERRED)
        return f"PyLong_FromUnsignedLongLong(ws_handle((uintptr_t){name}))"
    return _to_python(type_, name)


def _deferral(index: int, function) -> list[str]:
    """The lines that queue a DEFERRED call while the interpreter has not started."""
    if function.name not in DEFERRED:
        return []
    if any(ARGUMENT_TYPES[t] == "d" for t, _ in function.params):
        raise ValueError(f"{function.name}: a deferred call takes no dim3 by value")
    kinds = "".join(ARGUMENT_TYPES[t] for t, _ in function.params)
    values = ", ".join(f"(unsigned long long)(uintptr_t){n}" if "*" in t else f"(unsigned long long){n}"
                       for t, n in function.params) or "0"
    done = {"pointer": "return (void **)ws_deferred_cell;", "void": "return;"}[RETURN_TYPES[function.returns]]
    return [f"    if (!ws_started) {{",
            f"        unsigned long long ws_values[] = {{{values}}};",
            f"        if (ws_defer({index}, \"{kinds}\", ws_values, {len(function.params)})) {{ {done} }}",
            "    }"]


def _stub(index: int, function) -> str:
    params = ", ".join(f"{_c_type(t)} {n}" for t, n in function.params) or "void"
    returns, kind = _c_return(function.returns), RETURN_TYPES[function.returns]
    failed = {"int": f"return {CUDA_ERROR_INITIALIZATION};", "pointer": "return NULL;", "void": "return;",
              "unsigned": f"return {CUDA_ERROR_INITIALIZATION};"}[kind]
    arguments = ", ".join(_argument(t, n) for t, n in function.params)
    count = len(function.params)
    lines = [f"WS_EXPORT {returns} {function.name}({params}) {{", *_deferral(index, function),
             "    PyGILState_STATE ws_gil;",
             f"    if (ws_enter(&ws_gil)) {{ {failed} }}",
             f"    PyObject *ws_args[{max(count, 1)}] = {{{arguments or 'NULL'}}};",
             f"    unsigned long long ws_result = ws_finish({index}, ws_args, {count}, ws_gil);"]
    lines.append({"int": f"    return ({returns})ws_result;", "unsigned": "    return (unsigned int)ws_result;",
                  "pointer": f"    return ({returns})(uintptr_t)ws_result;",
                  "void": "    (void)ws_result;"}[kind])
    return "\n".join(lines + ["}"])


def _unsupported_stub(index: int, name: str) -> str:
    return (f"WS_EXPORT int {name}(void) {{\n    PyGILState_STATE gil;\n"
            f"    if (ws_enter(&gil)) return {CUDA_ERROR_INITIALIZATION};\n"
            f"    return (int)ws_finish({index}, NULL, 0, gil);\n}}")


PRELUDE = r"""/* Generated by warpsim.runtime.native from %(table)s: do not edit. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <driver_types.h>
#include <texture_types.h>

#define WS_EXPORT __attribute__((visibility("default")))
typedef struct { unsigned int x, y, z; } ws_dim3;

static const char *ws_names[] = {%(names)s};
#define WS_COUNT %(count)d
static PyObject *ws_handlers[WS_COUNT];
static pthread_once_t ws_once = PTHREAD_ONCE_INIT;
static int ws_ready = 0;
static volatile int ws_started = 0;

/* Registration calls made before the interpreter starts (see DEFERRED in native.py), in
   static arrays so that queuing them touches none of the program's malloc heap. */
#define WS_DEFERRED_MAX %(deferred_max)d
#define WS_CELLS %(cells)d
typedef struct { int index; const char *kinds; unsigned long long values[10]; } ws_deferred_call;
static ws_deferred_call ws_deferred[WS_DEFERRED_MAX];
static int ws_deferred_count = 0;
static unsigned long long ws_cells[WS_CELLS];      /* a queued module's handle: Python's, once replayed */
static int ws_cell_count = 0;
static unsigned long long *ws_deferred_cell = NULL; /* the cell the last queued registration returns */

static int ws_defer(int index, const char *kinds, const unsigned long long *values, int count) {
    if (ws_deferred_count == WS_DEFERRED_MAX || ws_cell_count == WS_CELLS || count > 10) return 0;
    ws_deferred_call *call = &ws_deferred[ws_deferred_count++];
    call->index = index;
    call->kinds = kinds;
    for (int k = 0; k < count; k++) call->values[k] = values[k];
    if (strcmp(ws_names[index], "__cudaRegisterFatBinary") == 0) {
        ws_deferred_cell = &ws_cells[ws_cell_count++];
        *ws_deferred_cell = 0;
    }
    return 1;
}

static unsigned long long ws_handle(unsigned long long handle) {
    uintptr_t first = (uintptr_t)&ws_cells[0], end = (uintptr_t)&ws_cells[WS_CELLS];
    return handle >= first && handle < end ? *(unsigned long long *)(uintptr_t)handle : handle;
}

static void ws_replay(void) {                        /* with the GIL held, handlers loaded */
    int cell = 0;
    for (int n = 0; n < ws_deferred_count; n++) {
        ws_deferred_call *call = &ws_deferred[n];
        int count = (int)strlen(call->kinds), fatbin = strcmp(ws_names[call->index], "__cudaRegisterFatBinary") == 0;
        PyObject *args[10];
        int complete = 1;
        for (int k = 0; k < count; k++) {
            unsigned long long value = call->values[k];
            if (k == 0 && !fatbin) value = ws_handle(value);
            args[k] = call->kinds[k] == 'i' ? PyLong_FromLongLong((long long)(int)value)
                                            : PyLong_FromUnsignedLongLong(value);
            complete &= args[k] != NULL;
        }
        PyObject *result = complete ? PyObject_Vectorcall(ws_handlers[call->index], args, count, NULL) : NULL;
        for (int k = 0; k < count; k++) Py_XDECREF(args[k]);
        if (!result) { PyErr_Print(); continue; }
        if (fatbin) ws_cells[cell++] = result == Py_None ? 0 : PyLong_AsUnsignedLongLongMask(result);
        if (PyErr_Occurred()) PyErr_Print();
        Py_DECREF(result);
    }
    ws_deferred_count = 0;
}

%(layouts)s
%(extra_c)s
static void ws_at_exit(void) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *module = PyImport_ImportModule("warpsim.runtime.handlers");
    PyObject *result = module ? PyObject_CallMethod(module, "at_exit", NULL) : NULL;
    if (!result) PyErr_Print();
    Py_XDECREF(result);
    Py_XDECREF(module);
    PyGILState_Release(gil);
}

static int ws_load_handlers(void) {
    PyObject *module = PyImport_ImportModule("warpsim.runtime.handlers");
    if (!module) { PyErr_Print(); return 0; }
    PyObject *lookup = PyObject_GetAttrString(module, "%(lookup)s");
    for (int k = 0; lookup && k < WS_COUNT; k++) {
        ws_handlers[k] = PyObject_CallFunction(lookup, "s", ws_names[k]);
        if (!ws_handlers[k]) { PyErr_Print(); Py_DECREF(lookup); Py_DECREF(module); return 0; }
    }
    Py_XDECREF(lookup);
    Py_DECREF(module);
    return 1;
}

static void ws_start(void) {
    ws_started = 1;
    if (!Py_IsInitialized()) {
        PyConfig config;
        PyConfig_InitPythonConfig(&config);
        config.install_signal_handlers = 0;
        config.parse_argv = 0;
        const char *python = getenv("WARPSIM_PYTHON");
        PyStatus status = PyConfig_SetBytesString(&config, &config.program_name,
                                                  python && *python ? python : "%(python)s");
        if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(status)) {
            fprintf(stderr, "warpsim: %(what)s could not start Python (%%s); "
                    "run the program with `warpsim run`\n", status.err_msg ? status.err_msg : "?");
            return;
        }
        ws_ready = ws_load_handlers();
        if (ws_ready) { ws_replay(); atexit(ws_at_exit); }
        PyEval_SaveThread();              /* other threads of the program may call in */
    } else {
        PyGILState_STATE gil = PyGILState_Ensure();
        ws_ready = ws_load_handlers();
        if (ws_ready) ws_replay();
        PyGILState_Release(gil);
    }
    if (!ws_ready)
        fprintf(stderr, "warpsim: %(what)s could not load warpsim.runtime.handlers "
                "(is warpsim installed for %(python)s?); every CUDA call fails\n");
}

static int ws_enter(PyGILState_STATE *gil) {
    fflush(stdout);                       /* the program's output stays before the kernels' */
    pthread_once(&ws_once, ws_start);
    if (!ws_ready) return 1;
    *gil = PyGILState_Ensure();
    return 0;
}

static unsigned long long ws_finish(int index, PyObject **args, Py_ssize_t count, PyGILState_STATE gil) {
    unsigned long long value = 999;       /* cudaErrorUnknown */
    int complete = 1;
    for (Py_ssize_t k = 0; k < count; k++) complete &= args[k] != NULL;
    PyObject *result = complete ? PyObject_Vectorcall(ws_handlers[index], args, count, NULL) : NULL;
    for (Py_ssize_t k = 0; k < count; k++) Py_XDECREF(args[k]);
    if (!result) {
        PyErr_Print();
    } else {
        value = result == Py_None ? 0 : PyLong_AsUnsignedLongLongMask(result);
        if (PyErr_Occurred()) { PyErr_Print(); value = 999; }
        Py_DECREF(result);
    }
    PyGILState_Release(gil);
    return value;
}
"""


@dataclass(frozen=True)
class Library:
    """One library of stubs generated from a table: what libcudart.so.13 and libcuda.so.1 differ in."""
    file: str                       # its soname and file name
    link_name: str                  # the unversioned name `-l` finds
    version_node: str | None        # its symbols' version node (None: unversioned)
    table: str                      # the module of its rows
    functions: tuple                # the rows
    lookup: str                     # the function of warpsim.runtime.handlers giving a stub's Python function
    what: str                       # how its messages name it
    layouts: tuple = ()             # native.LAYOUTS: struct layouts it reports
    extra_c: str = ""               # C exported beside the stubs, and its symbols
    extra_symbols: tuple = ()
    deferred_max: int = 1           # room for DEFERRED registration calls and their module cells
    cells: int = 1


CHANNEL_DESC_C = """/* Exported, not only channel_descriptor.h's inline templates: they call it. Pure C (no Python):
   a struct returned by value, and nothing for warpsim to decide. */
WS_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                              enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc desc = {x, y, z, w, f};
    return desc;
}
"""


def runtime_library() -> Library:
    return Library(LIBRARY, "libcudart.so", VERSION_NODE, "warpsim.runtime.table", FUNCTIONS, "handler",
                   "the CUDA runtime", LAYOUTS, CHANNEL_DESC_C, ("cudaCreateChannelDesc",), 16384, 4096)


def driver_library() -> Library:
    """libcuda.so.1's symbols are unversioned, as a program linked with NVIDIA's libcuda stub expects."""
    return Library(DRIVER_LIBRARY, "libcuda.so", None, "warpsim.runtime.driver_table", driver_table.FUNCTIONS,
                   "driver_handler", "the CUDA driver")


def library_source(library: Library, header_names: list[str]) -> tuple[str, str]:
    """(C source, linker version script) of a library: its table's stubs, then one NotSupported stub
    for every other function of its header; a per-thread-stream name (cudaMemcpyAsync_ptsz,
    cuMemcpyHtoD_v2_ptds) of a table row gets the row's stub under its own name."""
    by_name = {f.name: f for f in library.functions}
    others = [name for name in header_names if name not in by_name]
    names = list(by_name) + others
    layouts = "\n".join(
        f"WS_EXPORT const unsigned long long {symbol}[] = {{"
        + ", ".join([f"sizeof({struct})"] + [f"offsetof({struct}, {f})" for f in fields]) + "};"
        for symbol, struct, fields in library.layouts)
    prelude = PRELUDE % {"names": ", ".join(f'"{n}"' for n in names), "count": len(names), "table": library.table,
                         "layouts": layouts, "extra_c": library.extra_c, "lookup": library.lookup,
                         "what": library.what, "deferred_max": library.deferred_max, "cells": library.cells,
                         "python": _c_string(sys.executable)}
    stubs = [_stub(k, f) for k, f in enumerate(library.functions)]
    for k, name in enumerate(others, start=len(library.functions)):
        base = by_name.get(per_thread_base(name))     # NAME_ptsz of a table row: the row's signature
        stubs.append(_stub(k, RuntimeFunction(base.returns, name, base.params)) if base
                     else _unsupported_stub(k, name))
    node = f"{library.version_node} " if library.version_node else ""
    script = (f"{node}{{\n  global:\n" + "".join(f"    {n};\n" for n in names)
              + "".join(f"    {symbol};\n" for symbol in library.extra_symbols)
              + "".join(f"    {symbol};\n" for symbol, _, _ in library.layouts) + "  local: *;\n};\n")
    return prelude + "\n\n".join(stubs) + "\n", script


def runtime_source(header_names: list[str]) -> tuple[str, str]:
    """libcudart.so.13's (C source, version script): library_source of the runtime table."""
    return library_source(runtime_library(), header_names)


def driver_source(header_names: list[str]) -> tuple[str, str]:
    """libcuda.so.1's (C source, version script): library_source of the driver table."""
    return library_source(driver_library(), header_names)


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def runtime_header_names() -> list[str]:
    path = cuda_include_dir() / "cuda_runtime_api.h"
    return header_functions(path.read_text(errors="replace"))


@functools.lru_cache(maxsize=1)
def driver_names() -> driver_table.DriverNames:
    """What PyPI's cuda.h and cudaTypedefs.h say of the driver's functions (driver_table.parse_header)."""
    folder = cuda_include_dir()
    return driver_table.parse_header((folder / "cuda.h").read_text(errors="replace"),
                                     (folder / "cudaTypedefs.h").read_text(errors="replace"))


def driver_header_names() -> list[str]:
    """Every name cuda.h declares or maps a function to (driver_table.DriverNames.exported)."""
    return driver_names().exported()


def _sources() -> list:
    """(library, C source, version script) of each library warpsim builds."""
    return [(library, *library_source(library, names)) for library, names in
            ((runtime_library(), runtime_header_names()), (driver_library(), driver_header_names()))]


def library_dir() -> Path:
    """The cache folder that holds (or will hold) this installation's libcudart.so.13 and libcuda.so.1."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        warpsim_version = version("warpsim")
    except PackageNotFoundError:
        warpsim_version = "dev"
    text = "".join(source + script for _, source, script in _sources())
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    python = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return cache_dir("runtime") / f"{warpsim_version}-{python}-{digest}"


def build_runtime() -> Path:
    """The folder with warpsim's libcudart.so.13 and libcuda.so.1 (and libcudart.so and libcuda.so
    links to them, which `-lcudart` and `-lcuda` find), built if needed."""
    folder = library_dir()
    if (folder / LIBRARY).exists() and (folder / DRIVER_LIBRARY).exists():
        return folder
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise RuntimeBuildError(
            "warpsim runs CUDA programs through a libcudart.so.13 of its own, built once with a C "
            "compiler, and none was found: install one (apt install gcc, dnf install gcc) or set CC")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        raise RuntimeBuildError(
            f"Python's C headers are missing ({include}/Python.h): install them (apt install "
            f"python{sys.version_info[0]}.{sys.version_info[1]}-dev, dnf install python3-devel)")
    libdir, shared = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("Py_ENABLE_SHARED")
    if not shared:
        raise RuntimeBuildError(
            "this Python has no shared libpython, which warpsim's CUDA runtime embeds in the program: "
            "use a Python built with --enable-shared (distribution packages, python.org installers, "
            "conda, pyenv with PYTHON_CONFIGURE_OPTS=--enable-shared)")
    library_name = f"python{sys.version_info[0]}.{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".build-") as scratch:
        scratch = Path(scratch)
        for library, source, script in _sources():
            stem = scratch / library.link_name[:-len(".so")]
            stem.with_suffix(".c").write_text(source)
            stem.with_suffix(".map").write_text(script)
            command = [compiler, "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o", str(scratch / library.file),
                       str(stem.with_suffix(".c")), f"-I{include}", f"-I{cuda_include_dir()}",
                       f"-L{libdir}", f"-l{library_name}", f"-Wl,-rpath,{libdir}",
                       f"-Wl,-soname,{library.file}", f"-Wl,--version-script={stem.with_suffix('.map')}",
                       "-lpthread"]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                raise RuntimeBuildError(f"building warpsim's {library.file} failed:\n  {' '.join(command)}\n"
                                        f"{done.stderr.strip()}")
            os.symlink(library.file, scratch / library.link_name)
        scratch.chmod(0o755)                  # TemporaryDirectory made it private
        try:
            os.rename(scratch, folder)        # another process may have finished first: keep theirs
        except OSError:
            if not (folder / LIBRARY).exists():
                raise
        scratch.mkdir(exist_ok=True)          # for TemporaryDirectory's clean-up
    return folder
