"""The CUDA driver API, in Python: what each stub of warpsim's libcuda.so.1 calls.

Every function here is named as the symbol it implements (cuMemAlloc_v2, the name
CUDA 13's cuda.h gives cuMemAlloc: driver_table.py) and takes that function's
arguments as ints, as the runtime's functions do (warpsim.runtime.calls); it
returns the CUresult. The driver keeps no device state of its own: each function
is built on the runtime's functions and its RuntimeContext, so a pointer from
cuMemAlloc works with cudaMemcpy, a CUstream is a cudaStream_t, a CUevent a
cudaEvent_t, and a CUfunction launches through the runtime's launch path
(driver_memory.py, driver_modules.py, driver_arrays.py). CUresult numbers equal cudaError_t's where
both name the same failure (as CUDA defines them); `as_result` maps the few
runtime codes the driver lacks. Driver calls leave the runtime's last error
(cudaGetLastError) alone, as on a GPU.

Contexts. The runtime's primary context (cuDevicePrimaryCtxRetain) and those cuCtxCreate makes
have handles of their own, and all of them share the one device's memory, streams, events and
modules (on a GPU each context has its own; a program that hands one context's objects to
another's calls is not refused). Each thread has its stack of current contexts. A thread's
stack starts empty after cuInit; a runtime call that needs a context on a thread with none makes
the primary context current, as cudart does, so a context cuCtxCreate made current first is the
one the runtime works in (an H100, CUDA 13.0). When the runtime ran before the driver's first
call, every thread starts with the primary context current. cuCtxPopCurrent,
cuCtxSetCurrent(NULL) and cuCtxDestroy take a context off; a call that needs a context on a
thread with none returns CUDA_ERROR_INVALID_CONTEXT. Before cuInit, and before any runtime call
(the runtime initializes the driver), every call but cuInit, cuDriverGetVersion,
cuGetErrorName/String and cuGetProcAddress returns CUDA_ERROR_NOT_INITIALIZED.

This module also holds the runtime's way into the driver,
cudaGetDriverEntryPoint[ByVersion], and cuGetProcAddress: one lookup
(driver_table.entry_point) gives the address of a libcuda.so.1 function.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import sys
import threading
import traceback
from pathlib import Path

from . import calls, driver_table, hoststructs
from .errors import ERRORS

CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_NOT_INITIALIZED = 0, 1, 2, 3
CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_CONTEXT = 101, 200, 201
CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_INVALID_PTX, CUDA_ERROR_FILE_NOT_FOUND = 209, 218, 301
CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_UNKNOWN = 400, 500, 801, 999
# cudaError_t codes of the runtime's functions that CUresult lacks -> the driver's code for the same failure
RUNTIME_ONLY = {9: CUDA_ERROR_INVALID_VALUE,       # cudaErrorInvalidConfiguration: a launch shape
                12: CUDA_ERROR_INVALID_VALUE,      # cudaErrorInvalidPitchValue
                13: CUDA_ERROR_NOT_FOUND,          # cudaErrorInvalidSymbol
                15: 215,                           # cudaErrorUnsupportedLimit: CUDA_ERROR_UNSUPPORTED_LIMIT
                17: CUDA_ERROR_INVALID_VALUE,      # cudaErrorInvalidDevicePointer
                20: CUDA_ERROR_INVALID_VALUE,      # cudaErrorInvalidChannelDescriptor
                21: CUDA_ERROR_INVALID_VALUE,      # cudaErrorInvalidMemcpyDirection
                98: CUDA_ERROR_INVALID_HANDLE}     # cudaErrorInvalidDeviceFunction: not a CUfunction
# cuGetErrorString's text where the runtime has no code of the same number (elsewhere the texts agree)
DRIVER_STRINGS = {4: "driver shutting down", 201: "invalid device context", 218: "a PTX JIT compilation failed",
                  301: "file not found", 215: "limit is not supported on this architecture"}

DRIVER_IMPLEMENTED: dict = {}
_named_unsupported: set = set()


def as_result(code: int) -> int:
    """The CUresult of a code a runtime function returned (the same number where CUDA has both)."""
    return RUNTIME_ONLY.get(code, code)


@functools.lru_cache(maxsize=1)
def result_names() -> dict:
    """CUresult number -> name, from cuda.h's enum (cuGetErrorName)."""
    from .native import cuda_include_dir
    text = (cuda_include_dir() / "cuda.h").read_text(errors="replace")
    return {int(number): name for name, number in re.findall(r"\b(CUDA_SUCCESS|CUDA_ERROR_\w+)\s*=\s*(\d+)", text)}


def result_string(code: int) -> str | None:
    """cuGetErrorString's text of a CUresult, None for a number that is none. Where warpsim does not know
    the driver's text, the name read as words (CUDA_ERROR_MAP_FAILED: 'map failed')."""
    name = result_names().get(code)
    if name is None:
        return None
    if code in DRIVER_STRINGS:
        return DRIVER_STRINGS[code]
    if code in ERRORS:
        return ERRORS[code][1]
    return name.removeprefix("CUDA_ERROR_").replace("_", " ").lower()


# --- the registry ----------------------------------------------------------------------

NOTHING, INIT, CONTEXT = "nothing", "init", "context"


def driver_call(needs: str = CONTEXT):
    """Register a driver function. needs: NOTHING (it works before cuInit; it gets no context), INIT
    (after cuInit or a runtime call), CONTEXT (and a current context on the calling thread, which
    also returns a kernel fault's sticky code, as a lost context does)."""
    def register(function):
        @functools.wraps(function)
        def guarded(*args):
            try:
                if needs == NOTHING:
                    result = as_result(function(None, *args))
                else:
                    if calls._context is None:          # neither cuInit nor the runtime started the driver
                        return CUDA_ERROR_NOT_INITIALIZED
                    context = calls.runtime()
                    if needs == CONTEXT:
                        if not state(context).current():
                            return CUDA_ERROR_INVALID_CONTEXT
                        if context.sticky_error:
                            context.fault_reported = True
                            return context.sticky_error
                    last = context.last_error
                    try:
                        result = as_result(function(context, *args))
                    finally:
                        context.last_error = last       # the driver API leaves cudaGetLastError's error alone
                if calls.TRACE:
                    print(f"warpsim: {function.__name__}{args} -> {result}", file=sys.stderr)
                return result
            except calls.RuntimeUnavailable:
                return CUDA_ERROR_NOT_INITIALIZED
            except hoststructs.HostPointerError as error:   # a wild pointer: a code, not a crash
                print(f"warpsim: {function.__name__}: {error}", file=sys.stderr)
                return CUDA_ERROR_INVALID_VALUE
            except Exception:                   # a bug in warpsim: said, never an abort
                print(f"warpsim: internal error in {function.__name__} (please report it):", file=sys.stderr)
                traceback.print_exc()
                return CUDA_ERROR_UNKNOWN
        DRIVER_IMPLEMENTED[function.__name__] = guarded
        return guarded
    return register


def handler(name: str):
    """The Python function the driver stub `name` calls (calls.find_handler's rule over the driver table)."""
    return calls.find_handler(name, DRIVER_IMPLEMENTED, driver_table.BY_NAME, not_supported)


def not_supported(name: str, *_args) -> int:
    if name not in _named_unsupported:
        _named_unsupported.add(name)
        print(f"warpsim: {name} is not supported by warpsim's CUDA driver; it returns "
              f"CUDA_ERROR_NOT_SUPPORTED", file=sys.stderr)
    return CUDA_ERROR_NOT_SUPPORTED


def refuse(context, function: str, why: str, code: int = CUDA_ERROR_NOT_SUPPORTED) -> int:
    """Say on stderr why a driver call is refused (once per context); returns its code."""
    if context is None:
        print(f"warpsim: {function}: {why}", file=sys.stderr)
    else:
        calls._say_once(context, f"{function}: {why}", f"warpsim: {function}: {why}")
    return code


_write, _read = hoststructs.write, hoststructs.read


def c_text(address: int) -> str:
    """A NUL-terminated string the program passed (a NULL or unmapped pointer: HostPointerError, a code)."""
    from .hostmemory import readable_range
    why = readable_range(address, 1)
    if why:
        raise hoststructs.HostPointerError(why)
    return ctypes.string_at(address).decode(errors="replace")


# --- contexts ----------------------------------------------------------------------------

class DriverState:
    """The driver API's state beside the runtime's: the contexts' handles, each thread's context
    stack (by OS thread: the C stubs' Python thread states do not outlive a call), loaded modules."""

    def __init__(self, context):
        self.primary = context.new_handle()
        self.contexts = {self.primary}
        self.runtime_ran = context.runtime_bound    # threads start with the primary context current
        self.stacks: dict[int, list] = {}       # thread id -> its current contexts, the top last
        self.modules: dict = {}                 # CUmodule -> its context.FatbinModule (driver_modules.py)

    def stack(self) -> list:
        return self.stacks.setdefault(threading.get_ident(), [self.primary] if self.runtime_ran else [])

    def bind_primary(self) -> None:
        """A runtime call that needs a context: the primary one becomes current where none is."""
        stack = self.stack()
        if not stack:
            stack.append(self.primary)

    def current(self) -> int:
        stack = self.stack()
        return stack[-1] if stack else 0


def state(context) -> DriverState:
    if context.driver is None:
        context.driver = DriverState(context)
    return context.driver


@driver_call(NOTHING)
def cuInit(_, flags):
    if flags:
        return CUDA_ERROR_INVALID_VALUE
    state(calls.runtime())                      # starts the runtime, as the driver's initialization
    return CUDA_SUCCESS


@driver_call(NOTHING)
def cuDriverGetVersion(_, out):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "i", calls.DRIVER_VERSION)
    return CUDA_SUCCESS


@driver_call(NOTHING)
def cuGetExportTable(_, out, table_id):
    """NVIDIA's libraries (NVRTC among them) ask the driver for private tables by id; warpsim has
    none, and they go on without one: no message for it."""
    return CUDA_ERROR_NOT_SUPPORTED if out else CUDA_ERROR_INVALID_VALUE


@driver_call(INIT)
def cuProfilerStart(context):
    """As with no profiler attached: nothing to start (`warpsim profile` profiles every launch)."""
    return CUDA_SUCCESS


@driver_call(INIT)
def cuProfilerStop(context):
    return CUDA_SUCCESS


def _check_device(device: int) -> int:
    return CUDA_SUCCESS if device == 0 else CUDA_ERROR_INVALID_DEVICE


@driver_call(INIT)
def cuDevicePrimaryCtxRetain(context, out, device):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    if device:
        return CUDA_ERROR_INVALID_DEVICE
    _write(out, "Q", state(context).primary)
    return CUDA_SUCCESS


@driver_call(INIT)
def cuDevicePrimaryCtxRelease_v2(context, device):
    return _check_device(device)


@driver_call(INIT)
def cuCtxCreate_v4(context, out, params, flags, device):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    if device:
        return CUDA_ERROR_INVALID_DEVICE
    if params and any(hoststructs.read(params + offset, kind)[0] for offset, kind in CTX_CREATE_PARAMS):
        return refuse(context, "cuCtxCreate", "context creation parameters (execution affinity, CIG) are "
                      "not simulated: pass NULL")
    found = state(context)
    created = context.new_handle()
    found.contexts.add(created)
    found.stack().append(created)
    _write(out, "Q", created)
    return CUDA_SUCCESS


def _known_context(context, handle: int) -> bool:
    return handle in state(context).contexts


@driver_call(INIT)
def cuCtxCreate_v2(context, out, flags, device):
    """CUDA 12's entry point, which programs that load libcuda themselves still name (cuda-samples'
    matrixMulDynlinkJIT): cuCtxCreate_v4 with no parameters."""
    return cuCtxCreate_v4.__wrapped__(context, out, 0, flags, device)


@driver_call(INIT)
def cuCtxDestroy_v2(context, handle):
    if not _known_context(context, handle):
        return CUDA_ERROR_INVALID_CONTEXT
    found = state(context)
    if handle != found.primary:                 # the primary context stays the runtime's
        found.contexts.discard(handle)
    stack = found.stack()
    if stack and stack[-1] == handle:           # current on this thread: popped, as cuCtxPopCurrent
        stack.pop()
    return CUDA_SUCCESS


@driver_call(INIT)
def cuCtxGetCurrent(context, out):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "Q", state(context).current())
    return CUDA_SUCCESS


@driver_call(INIT)
def cuCtxSetCurrent(context, handle):
    stack = state(context).stack()
    if not handle:                              # NULL: the top of the stack is popped
        if stack:
            stack.pop()
        return CUDA_SUCCESS
    if not _known_context(context, handle):
        return CUDA_ERROR_INVALID_CONTEXT
    if stack:
        stack[-1] = handle
    else:
        stack.append(handle)
    return CUDA_SUCCESS


@driver_call(INIT)
def cuCtxPushCurrent_v2(context, handle):
    if not _known_context(context, handle):
        return CUDA_ERROR_INVALID_CONTEXT
    state(context).stack().append(handle)
    return CUDA_SUCCESS


@driver_call(INIT)
def cuCtxPopCurrent_v2(context, out):
    stack = state(context).stack()
    if not stack:
        return CUDA_ERROR_INVALID_CONTEXT
    popped = stack.pop()
    if out:
        _write(out, "Q", popped)
    return CUDA_SUCCESS


@driver_call()
def cuCtxGetDevice(context, out):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "i", 0)
    return CUDA_SUCCESS


@driver_call()
def cuCtxSynchronize(context):
    return calls.cudaDeviceSynchronize.__wrapped__(context)


# --- devices -------------------------------------------------------------------------------

@driver_call(INIT)
def cuDeviceGet(context, out, ordinal):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    if ordinal:
        return CUDA_ERROR_INVALID_DEVICE
    _write(out, "i", 0)
    return CUDA_SUCCESS


@driver_call(INIT)
def cuDeviceGetCount(context, out):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "i", 1)
    return CUDA_SUCCESS


@driver_call(INIT)
def cuDeviceGetName(context, out, length, device):
    if not out or length <= 0:
        return CUDA_ERROR_INVALID_VALUE
    if device:
        return CUDA_ERROR_INVALID_DEVICE
    name = calls._properties(context)["name"].encode()[:length - 1]
    _write(out, f"{len(name) + 1}s", name + b"\0")
    return CUDA_SUCCESS


# CUdevice_attribute numbers cuda.h still names (deprecated) where driver_types.h reserves them:
# CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, as CUDA 12 reported it for an H100 (not yet
# read from an H200 under CUDA 13).
# CUctxCreateParams: (offset, struct format) of execAffinityParams, numExecAffinityParams, cigParams;
# a struct of zeros asks for nothing, as NULL does.
CTX_CREATE_PARAMS = ((0, "Q"), (8, "i"), (16, "Q"))


@driver_call(INIT)
def cuDeviceGetAttribute(context, out, attribute, device):
    """CUdevice_attribute numbers are cudaDeviceAttr's, and an H100 answers both alike: the runtime's
    attribute table (properties.attribute_value) answers."""
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    return calls.cudaDeviceGetAttribute.__wrapped__(context, out, attribute, device)


@driver_call(INIT)
def cuDeviceTotalMem_v2(context, out, device):
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    if device:
        return CUDA_ERROR_INVALID_DEVICE
    _write(out, "Q", calls._properties(context)["totalGlobalMem"])
    return CUDA_SUCCESS


@driver_call(INIT)
def cuDeviceComputeCapability(context, major_out, minor_out, device):
    if not major_out or not minor_out:
        return CUDA_ERROR_INVALID_VALUE
    if device:
        return CUDA_ERROR_INVALID_DEVICE
    properties = calls._properties(context)
    _write(major_out, "i", properties["major"])
    _write(minor_out, "i", properties["minor"])
    return CUDA_SUCCESS


# --- errors ----------------------------------------------------------------------------------

_strings: dict = {}


def _c_string(text: str) -> int:
    """The address of a NUL-terminated copy of text that lives as long as the process."""
    if text not in _strings:
        _strings[text] = ctypes.create_string_buffer(text.encode())
    return ctypes.addressof(_strings[text])


def _error_text(out, text: str | None) -> int:
    """cuGetErrorName/String: the text's address in *out, or NULL and CUDA_ERROR_INVALID_VALUE for no CUresult."""
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    _write(out, "Q", _c_string(text) if text is not None else 0)
    return CUDA_SUCCESS if text is not None else CUDA_ERROR_INVALID_VALUE


@driver_call(NOTHING)
def cuGetErrorName(_, code, out):
    return _error_text(out, result_names().get(code))


@driver_call(NOTHING)
def cuGetErrorString(_, code, out):
    return _error_text(out, result_string(code))


# --- entry points: cuGetProcAddress and the runtime's cudaGetDriverEntryPoint -------------------

class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


@functools.lru_cache(maxsize=1)
def driver_library() -> ctypes.CDLL:
    """warpsim's libcuda.so.1 in this process: the one the program linked (-lcuda), else the one beside
    the libcudart.so.13 it runs on, opened by its path (a machine's own libcuda.so.1 is not warpsim's)."""
    from .native import DRIVER_LIBRARY, LIBRARY
    try:
        return ctypes.CDLL(DRIVER_LIBRARY, mode=os.RTLD_NOLOAD)
    except OSError:
        pass
    dladdr = ctypes.CDLL(None).dladdr
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    runtime_function = ctypes.cast(ctypes.CDLL(LIBRARY).cudaGetDriverEntryPoint, ctypes.c_void_p)
    if not dladdr(runtime_function, ctypes.byref(info)) or not info.dli_fname:
        raise OSError(f"no file holds warpsim's {LIBRARY} in this process")
    return ctypes.CDLL(str(Path(os.fsdecode(info.dli_fname)).parent / DRIVER_LIBRARY))


def _symbol_address(name: str) -> int:
    try:
        return ctypes.cast(getattr(driver_library(), name), ctypes.c_void_p).value or 0
    except (AttributeError, OSError) as error:
        print(f"warpsim: the driver function {name} could not be found in warpsim's libcuda.so.1 ({error})",
              file=sys.stderr)
        return 0


def find_entry_point(context, symbol: int, out: int, version: int, flags: int, status_out: int) -> int:
    """What cuGetProcAddress and cudaGetDriverEntryPoint[ByVersion] do (their codes have the same numbers):
    the address of the driver function `symbol` names at `version`, or NULL, in *out, and the
    CUdriverProcAddressQueryResult in *status_out (optional)."""
    if not symbol or not out or flags & ~(driver_table.PROC_LEGACY_STREAM | driver_table.PROC_PER_THREAD_STREAM):
        return CUDA_ERROR_INVALID_VALUE
    from .native import driver_names
    names = driver_names()
    if version > names.cuda_version:
        return refuse(context, "driver entry points", f"CUDA version {version} is newer than the "
                      f"{names.cuda_version} warpsim's driver layer is generated for", CUDA_ERROR_INVALID_VALUE)
    name = c_text(symbol)
    exported, status = driver_table.entry_point(names, name, version, bool(flags & driver_table.PROC_PER_THREAD_STREAM))
    address = _symbol_address(exported) if exported else 0
    if exported and not address:
        status = driver_table.NOT_FOUND
    _write(out, "Q", address)
    if status_out:
        _write(status_out, "i", status)
    return CUDA_SUCCESS


@driver_call(NOTHING)
def cuGetProcAddress_v2(_, symbol, out, version, flags, status_out):
    return find_entry_point(calls._context, symbol, out, version, flags, status_out)


@calls.call()
def cudaGetDriverEntryPoint(context, symbol, out, flags, status_out):
    """At the CUDA version of the headers warpsim's libraries are generated from (CUDART_VERSION)."""
    from .native import driver_names
    return context.fail(find_entry_point(context, symbol, out, driver_names().cuda_version, flags, status_out))


@calls.call()
def cudaGetDriverEntryPointByVersion(context, symbol, out, version, flags, status_out):
    return context.fail(find_entry_point(context, symbol, out, version, flags, status_out))


# A program built with --default-stream per-thread calls these names (cuda_runtime_api.h's macros):
# its default (cudaEnableDefault) is then the per-thread symbols.
@calls.call()
def cudaGetDriverEntryPoint_ptsz(context, symbol, out, flags, status_out):
    return cudaGetDriverEntryPoint.__wrapped__(context, symbol, out, flags or driver_table.PROC_PER_THREAD_STREAM,
                                               status_out)


@calls.call()
def cudaGetDriverEntryPointByVersion_ptsz(context, symbol, out, version, flags, status_out):
    return cudaGetDriverEntryPointByVersion.__wrapped__(context, symbol, out, version,
                                                        flags or driver_table.PROC_PER_THREAD_STREAM, status_out)
