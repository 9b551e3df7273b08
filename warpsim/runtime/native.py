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

The library is built on first use into the cache (warpsim.cache.cache_dir
('runtime')), in a folder keyed by warpsim's version, the Python version and a
hash of the generated source, so no compiler runs at import and a changed
table rebuilds it. Without a C compiler (`cc`, or $CC) or Python's headers
and shared libpython, `build_runtime` raises RuntimeBuildError saying what to
install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from ..cache import cache_dir
from ..errors import WarpsimError
from .table import ARGUMENT_TYPES, BY_NAME, FUNCTIONS, RETURN_TYPES, RuntimeFunction, header_functions, per_thread_base

LIBRARY = "libcudart.so.13"
VERSION_NODE = "libcudart.so.13"
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
           ("ws_launch_attribute_value_layout", "cudaLaunchAttributeValue", ()))


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
    cast = "(uintptr_t)" if "*" in type_ or type_.endswith("_t") and type_ != "size_t" else ""
    return f"PyLong_FromUnsignedLongLong((unsigned long long){cast}{name})"


def _c_type(type_: str) -> str:
    return {"dim3": "ws_dim3", "dim3 *": "ws_dim3 *", "uint3 *": "ws_dim3 *", "cudaStream_t": "void *",
            "cudaStream_t *": "void **", "cudaEvent_t": "void *", "cudaEvent_t *": "void **",
            "cudaKernel_t": "void *", "cudaKernel_t *": "void **", "cudaHostFn_t": "void *",
            "cudaStreamCallback_t": "void *", "cudaArray_t": "void *",
            "cudaArray_t *": "void **", "cudaMemPool_t": "void *",
            "cudaMemPool_t *": "void **"}.get(type_, type_)


def _c_return(type_: str) -> str:
    return {"cudaError_t": "int"}.get(type_, type_)


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


PRELUDE = r"""/* Generated by warpsim.runtime.native from warpsim.runtime.table: do not edit. */
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
#define WS_DEFERRED_MAX 16384
#define WS_CELLS 4096
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

/* Exported, not only channel_descriptor.h's inline templates: they call it. Pure C (no Python):
   a struct returned by value, and nothing for warpsim to decide. */
WS_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                              enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc desc = {x, y, z, w, f};
    return desc;
}

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
    PyObject *lookup = PyObject_GetAttrString(module, "handler");
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
            fprintf(stderr, "warpsim: the CUDA runtime could not start Python (%%s); "
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
        fprintf(stderr, "warpsim: the CUDA runtime could not load warpsim.runtime.handlers "
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


def runtime_source(header_names: list[str]) -> tuple[str, str]:
    """(C source, linker version script) of the library: the table's stubs, then one
    cudaErrorNotSupported stub for every other function of the header; a per-thread-stream
    name (cudaMemcpyAsync_ptsz) of a table row gets the row's stub under its own name."""
    table_names = [f.name for f in FUNCTIONS]
    others = [name for name in header_names if name not in set(table_names)]
    names = table_names + others
    layouts = "\n".join(
        f"WS_EXPORT const unsigned long long {symbol}[] = {{"
        + ", ".join([f"sizeof({struct})"] + [f"offsetof({struct}, {f})" for f in fields]) + "};"
        for symbol, struct, fields in LAYOUTS)
    prelude = PRELUDE % {"names": ", ".join(f'"{n}"' for n in names), "count": len(names),
                         "layouts": layouts, "python": _c_string(sys.executable)}
    stubs = [_stub(k, f) for k, f in enumerate(FUNCTIONS)]
    for k, name in enumerate(others, start=len(FUNCTIONS)):
        base = BY_NAME.get(per_thread_base(name))     # NAME_ptsz of a table row: the row's signature
        stubs.append(_stub(k, RuntimeFunction(base.returns, name, base.params)) if base
                     else _unsupported_stub(k, name))
    script = (f"{VERSION_NODE} {{\n  global:\n" + "".join(f"    {n};\n" for n in names)
              + "    cudaCreateChannelDesc;\n" + "".join(f"    {symbol};\n" for symbol, _, _ in LAYOUTS)
              + "  local: *;\n};\n")
    return prelude + "\n\n".join(stubs) + "\n", script


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def runtime_header_names() -> list[str]:
    path = cuda_include_dir() / "cuda_runtime_api.h"
    return header_functions(path.read_text(errors="replace"))


def library_dir() -> Path:
    """The cache folder that holds (or will hold) this installation's libcudart.so.13."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        warpsim_version = version("warpsim")
    except PackageNotFoundError:
        warpsim_version = "dev"
    source, script = runtime_source(runtime_header_names())
    digest = hashlib.sha256((source + script).encode()).hexdigest()[:12]
    python = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return cache_dir("runtime") / f"{warpsim_version}-{python}-{digest}"


def build_runtime() -> Path:
    """The folder with warpsim's libcudart.so.13 (and a libcudart.so link to it), built if needed."""
    folder = library_dir()
    if (folder / LIBRARY).exists():
        return folder
    source, script = runtime_source(runtime_header_names())
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
        (scratch / "libcudart.c").write_text(source)
        (scratch / "libcudart.map").write_text(script)
        command = [compiler, "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-o", str(scratch / LIBRARY),
                   str(scratch / "libcudart.c"), f"-I{include}", f"-I{cuda_include_dir()}",
                   f"-L{libdir}", f"-l{library_name}", f"-Wl,-rpath,{libdir}",
                   f"-Wl,-soname,{LIBRARY}", f"-Wl,--version-script={scratch / 'libcudart.map'}",
                   "-lpthread"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeBuildError(f"building warpsim's {LIBRARY} failed:\n  {' '.join(command)}\n"
                                    f"{done.stderr.strip()}")
        os.symlink(LIBRARY, scratch / "libcudart.so")
        scratch.chmod(0o755)                  # TemporaryDirectory made it private
        try:
            os.rename(scratch, folder)        # another process may have finished first: keep theirs
        except OSError:
            if not (folder / LIBRARY).exists():
                raise
        scratch.mkdir(exist_ok=True)          # for TemporaryDirectory's clean-up
    return folder
