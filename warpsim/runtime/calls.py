"""The CUDA runtime functions, in Python: what each stub of warpsim's libcudart.so.13 calls.

Every function here is named as the C function it implements and takes that
function's arguments as ints (pointers as addresses, dim3 as (x, y, z)); it
returns the cudaError_t (or the pointer, for the few that return one). The C
layer looks each one up with `handler(name)`; a name with no function here
gets `not_supported`, which returns cudaErrorNotSupported and names the
function once on stderr. An exception escaping a function is a bug in
warpsim: it is reported on stderr and the call returns cudaErrorUnknown,
never an abort.

Host memory is read and written through ctypes at the addresses the program
passes; device memory through the device heap, whose checks turn a bad device
pointer into cudaErrorInvalidValue rather than a crash.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import re
import struct
import sys
import traceback

import numpy as np

from ..errors import (CompileError, DeviceRuntimeNotSimulated, LaunchError, LaunchRefused, OutOfMemoryError,
                      PtxParseError, UnsupportedInstruction, WarpsimError)
from ..machine.memory import GLOBAL_BASE
from . import hoststructs, launch_attributes, table, textures
from .context import Event, RuntimeContext, Symbol
from .errors import CODES, code_of, error_name, error_string

SUCCESS = 0
INVALID_VALUE = CODES["cudaErrorInvalidValue"]
INVALID_HANDLE = CODES["cudaErrorInvalidResourceHandle"]
NOT_SUPPORTED = CODES["cudaErrorNotSupported"]
MEMCPY_KINDS = range(5)          # HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, Default
EVENT_DISABLE_TIMING = 0x02
PER_THREAD_STREAM = 2            # cudaStreamPerThread: the calling thread's default stream
TRACE = bool(os.environ.get("WARPSIM_TRACE_RUNTIME"))     # every call, its arguments and result

_context: RuntimeContext | None = None
IMPLEMENTED: dict = {}
_named_unsupported: set = set()


class RuntimeUnavailable(Exception):
    """The runtime could not start (said once on stderr); every call then fails with code 3."""


_start_failure: str | None = None


def runtime() -> RuntimeContext:
    global _context, _start_failure
    if _context is None:
        if _start_failure is not None:
            raise RuntimeUnavailable(_start_failure)
        try:
            _context = RuntimeContext()
            _start_tools(_context)
        except Exception as error:
            _start_failure = f"{type(error).__name__}: {error}"
            print(f"warpsim: the CUDA runtime could not start ({_start_failure}); every CUDA call "
                  "returns cudaErrorInitializationError", file=sys.stderr)
            raise RuntimeUnavailable(_start_failure) from None
    return _context


STARTUP = "WARPSIM_RUNTIME_STARTUP"


def _start_tools(context) -> None:
    """Run `start_in_program(context)` of the module $WARPSIM_RUNTIME_STARTUP names, if any.

    `warpsim profile ./app` and `warpsim check ./app` name theirs (warpsim.cli.program_tools):
    it starts the profiler or sanitizer session inside the program's process, where the
    launches are, and registers in context.at_exit what hands the results back. The
    runtime sits below the tools' layers, so it knows them only by this name.
    """
    name = os.environ.get(STARTUP)
    if name:
        import importlib
        importlib.import_module(name).start_in_program(context)


# Runtime functions that answer without a context (and the __cuda* registrations): the others make
# the primary context current on a thread that has none (driver.py)
CONTEXTLESS = frozenset({
    "cudaGetDeviceCount", "cudaGetDevice", "cudaGetDeviceProperties", "cudaDeviceGetAttribute",
    "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaGetErrorName", "cudaGetErrorString",
    "cudaGetLastError", "cudaPeekAtLastError", "cudaChooseDevice", "cudaDeviceGetPCIBusId",
    "cudaDeviceGetByPCIBusId", "cudaDeviceCanAccessPeer", "cudaGetDriverEntryPoint",
    "cudaGetDriverEntryPointByVersion"})


def call(sticky: bool = True):
    """Register a runtime function. sticky: after a kernel fault it returns that fault's code."""
    def register(function):
        needs_context = function.__name__ not in CONTEXTLESS and not function.__name__.startswith("__cuda")

        @functools.wraps(function)
        def guarded(*args):
            try:
                context = runtime()
                if sticky and context.sticky_error:
                    context.fault_reported = True
                    return context.sticky_error
                if needs_context:
                    if context.driver is None:
                        context.runtime_bound = True
                    else:
                        context.driver.bind_primary()
                result = function(context, *args)
                if TRACE:
                    print(f"warpsim: {function.__name__}{args} -> {result}", file=sys.stderr)
                return result
            except RuntimeUnavailable:
                return CODES["cudaErrorInitializationError"]
            except hoststructs.HostPointerError as error:     # a wild struct pointer: a code, not a crash
                print(f"warpsim: {function.__name__}: {error}", file=sys.stderr)
                return runtime().fail(INVALID_VALUE)
            except (PtxParseError, UnsupportedInstruction, CompileError) as error:
                # a module of the program's that cannot load (cudaFuncSetAttribute, cudaFuncGetAttributes
                # and the occupancy calls load it before any launch): its error, named where it is
                print(f"warpsim: {function.__name__}: {error}", file=sys.stderr)
                return runtime().fail(CODES["cudaErrorInvalidKernelImage"])
            except Exception:               # a bug in warpsim: said, never an abort
                print(f"warpsim: internal error in {function.__name__} (please report it):",
                      file=sys.stderr)
                traceback.print_exc()
                return CODES["cudaErrorUnknown"]
        IMPLEMENTED[function.__name__] = guarded
        return guarded
    return register


def handler(name: str):
    """The Python function the stub `name` calls. NAME_ptds and NAME_ptsz, what a program built
    with `--default-stream per-thread` calls, are NAME, the NULL stream of a _ptsz call being
    the calling thread's default stream (cudaStreamPerThread)."""
    return find_handler(name, IMPLEMENTED, table.BY_NAME, not_supported)


def find_handler(name: str, implemented: dict, rows: dict, unsupported):
    """A library's function for the stub `name` (handler's rule; the driver's library uses it too):
    its own, the per-thread call of its table row, or `unsupported` naming it."""
    found = implemented.get(name)
    if found:
        return found
    base = rows.get(table.per_thread_base(name))
    if base is not None and base.name in implemented:
        position = table.stream_parameter(base) if name.endswith("_ptsz") else None
        return _per_thread_call(implemented[base.name], position)
    return functools.partial(unsupported, name)


def _per_thread_call(function, stream_position):
    if stream_position is None:       # _ptds calls: in order on every stream, as warpsim runs them
        return function

    def on_thread_stream(*args):
        if args[stream_position] == 0:
            args = (*args[:stream_position], PER_THREAD_STREAM, *args[stream_position + 1:])
        return function(*args)
    return on_thread_stream


def not_supported(name: str, *_args) -> int:
    if name not in _named_unsupported:
        _named_unsupported.add(name)
        print(f"warpsim: {name} is not supported by warpsim's CUDA runtime; it returns "
              f"cudaErrorNotSupported", file=sys.stderr)
    return runtime().fail(NOT_SUPPORTED)


def at_exit() -> None:
    """The program is exiting: run what the tools registered (their results), then flush."""
    if _context is not None:
        for hook in _context.at_exit:
            try:
                hook()
            except Exception:
                print("warpsim: internal error at exit (please report it):", file=sys.stderr)
                traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()


# --- host memory access ------------------------------------------------------------

_write, _read = hoststructs.write, hoststructs.read


def _is_device(context, address: int) -> bool:
    return GLOBAL_BASE <= address < GLOBAL_BASE + len(context.device.memory.buffer)


def _copy(context, dst: int, src: int, count: int, stream: int = 0, timed: bool = True) -> int:
    """Copy count bytes, each side in device or host memory by its address (UVA)."""
    if not count:
        return SUCCESS
    if not dst or not src:
        return context.fail(INVALID_VALUE)
    memory = context.device.memory
    from_device, to_device = _is_device(context, src), _is_device(context, dst)
    try:
        if not from_device:
            _check_host_range(context, src, count)
        if not to_device:
            _check_host_range(context, dst, count, write=True)
        if from_device and to_device:
            memory.copy_within(dst, src, count)
        elif from_device:
            memory.read_into(src, _host_bytes(dst, count))
        elif to_device:
            memory.write_bytes(dst, _host_bytes(src, count))
        else:
            ctypes.memmove(dst, src, count)
    except ValueError as error:          # outside any allocation, or a use after free
        print(f"warpsim: {error}", file=sys.stderr)
        return context.fail(INVALID_VALUE)
    if timed:
        _time_copy(context, count, from_device and not _pinned(context, src),
                   to_device and not _pinned(context, dst), stream)
    return SUCCESS


def _host_bytes(address: int, count: int) -> np.ndarray:
    """A NumPy view of count bytes of host memory at address, copied by whoever stores them.
    (ctypes.string_at takes its size as a C int: a copy of 2 GiB or more failed with SystemError,
    HeCBench geglu's 2.7 GB input.)"""
    return np.ctypeslib.as_array((ctypes.c_ubyte * count).from_address(address))


def _pinned(context, address: int) -> bool:
    """Pinned host memory (cudaMallocHost, cudaHostAlloc) lives in the device heap so that host and
    kernels share its address, but its bytes are the host's: a copy to or from it crosses PCIe and
    is timed as HtoD or DtoH (the CUDA samples' asyncAPI copies 64 MB each way from pinned memory;
    timed as device-to-device it took 0.12 ms where the H200 took 2.58)."""
    start = _allocation_start(context, address)
    return start is not None and context.memory_kinds.get(start) == MEMORY_HOST


COPY_NAMES = {(False, False): "HtoH", (False, True): "HtoD", (True, False): "DtoH", (True, True): "DtoD"}


def _time_copy(context, count: int, from_device: bool, to_device: bool, stream: int = 0) -> None:
    """Advance the GPU clock by the copy's time: PCIe for host <-> device, HBM for device to device."""
    if not context.clock_on:
        return
    preset = context.preset
    if from_device and to_device:              # read and written: hbm_copy_gbps counts both
        seconds = 2 * count / (preset.hbm_copy_gbps * 1e9)
    else:
        seconds = count / (preset.pcie_gbps * 1e9)
    name = COPY_NAMES[from_device, to_device]
    context.advance("copy", name, seconds * 1e3 + preset.copy_overhead_us * 1e-3, stream, engine=name,
                    bytes=count)


def _check_host_range(context, address: int, count: int, write: bool = False) -> None:
    """A host range the program passed must be mapped memory: ValueError (not a crash) if not."""
    from .hostmemory import readable_range
    why = readable_range(address, count, write)
    if why:
        raise ValueError(why)


# --- registration -----------------------------------------------------------------

@call(sticky=False)
def __cudaRegisterFatBinary(context, wrapper):
    return context.register_fatbin(wrapper)


@call(sticky=False)
def __cudaRegisterFatBinaryEnd(context, handle):
    return None


@call(sticky=False)
def __cudaUnregisterFatBinary(context, handle):
    return None


@call(sticky=False)
def __cudaInitModule(context, handle):
    return 1


@call(sticky=False)
def __cudaRegisterFunction(context, handle, host_function, device_function, device_name, *_):
    module = context.modules[handle]
    name = ctypes.string_at(device_name).decode()
    context.kernels[host_function] = (module, name)
    module.functions[name] = host_function
    return None


@call(sticky=False)
def __cudaRegisterVar(context, handle, host_variable, device_address, device_name, ext, size,
                      constant, global_):
    name = ctypes.string_at(device_name).decode()
    context.symbols[host_variable] = Symbol(context.modules[handle], name, size, bool(constant))
    return None


@call(sticky=False)
def __cudaRegisterManagedVar(context, handle, host_pointer_address, device_address, device_name, ext,
                             size, constant, global_):
    """A __managed__ variable: the host reaches it through the pointer at host_pointer_address,
    which gets the variable's heap address (also its host address: see heap.py)."""
    module = context.modules[handle]
    name = ctypes.string_at(device_name).decode()
    context.symbols[host_pointer_address] = Symbol(module, name, size, bool(constant))
    if not context.host_mapped:
        _say_once(context, "managed", "warpsim: __managed__ variables need the device heap mapped at "
                  f"0x{GLOBAL_BASE:x} in the program, and that range was taken; run the program "
                  "with `warpsim run` (it turns address randomization off)")
        return None
    try:
        address = context.loaded(module).global_address(name)
    except (KeyError, WarpsimError) as error:
        print(f"warpsim: __managed__ variable {name}: {error}", file=sys.stderr)
        return None
    context.memory_kinds[address] = MEMORY_MANAGED
    _write(host_pointer_address, "Q", address)
    return None


# --- launches -----------------------------------------------------------------------

@call(sticky=False)
def __cudaPushCallConfiguration(context, grid, block, shared_mem, stream):
    context.configurations.append((grid, block, shared_mem, stream))
    return 0


@call(sticky=False)
def __cudaPopCallConfiguration(context, grid_out, block_out, shared_out, stream_out):
    if not context.configurations:
        return context.fail(CODES["cudaErrorInvalidConfiguration"])
    grid, block, shared_mem, stream = context.configurations.pop()
    _write(grid_out, "III", *grid)
    _write(block_out, "III", *block)
    _write(shared_out, "Q", shared_mem)
    _write(stream_out, "Q", stream)
    return SUCCESS


@call(sticky=False)
def __cudaGetKernel(context, kernel_out, host_function):
    if host_function not in context.kernels:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    _write(kernel_out, "Q", host_function)
    return SUCCESS


@call()
def __cudaLaunchKernel(context, kernel, grid, block, args, shared_mem, stream):
    return _launch(context, kernel, grid, block, args, shared_mem, stream)


@call()
def __cudaLaunchKernel_ptsz(context, kernel, grid, block, args, shared_mem, stream):
    return _launch(context, kernel, grid, block, args, shared_mem, stream or PER_THREAD_STREAM)


@call()
def cudaLaunchKernel(context, function, grid, block, args, shared_mem, stream):
    return _launch(context, function, grid, block, args, shared_mem, stream)


def _launch(context, host_function, grid, block, args, shared_mem, stream, cooperative=False, cluster_dims=None) -> int:
    if stream and stream not in context.streams and stream not in (1, 2):
        return context.fail(INVALID_HANDLE)
    prepared = prepare_launch(context, host_function, grid, block, args, shared_mem, cooperative)
    if isinstance(prepared, int):
        return prepared
    loaded, name, params, cooperative = prepared
    work = functools.partial(_run_kernel, context, loaded, name, grid, block, params, shared_mem, stream, cooperative,
                             cluster_dims)
    return _now_or_captured(context, stream, NODE_KERNEL, work, lambda: kernel_node_parameters(
        host_function, grid, block, shared_mem, loaded, name, params))


def kernel_node_parameters(host_function, grid, block, shared_mem, loaded, name, params: bytes) -> tuple:
    """(what cudaGraphKernelNodeGetParams reports of a launch: function, grid, block, dynamic shared
    bytes, the kernelParams array's address, the kernel's name; the C buffers that array and its
    arguments' copies live in)."""
    pieces = [ctypes.create_string_buffer(params[offset:offset + nbytes], max(1, nbytes))
              for _, offset, nbytes, _, _ in loaded.params(name)]
    pointers = (ctypes.c_void_p * max(1, len(pieces)))(*[ctypes.addressof(p) for p in pieces])
    return (host_function, tuple(grid), tuple(block), shared_mem, ctypes.addressof(pointers), name), (pieces, pointers)


def prepare_launch(context, host_function, grid, block, args, shared_mem, cooperative=False):
    """What a launch of host_function needs, read now as CUDA reads it at the call (a graph's kernel
    node keeps it): (loaded module, kernel name, parameter bytes, cooperative), or the cudaError_t to
    return instead."""
    if host_function not in context.kernels:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    module, name = context.kernels[host_function]
    if not cooperative and _reads_grid_workspace(context, module, name):
        fits = _co_resident_limit(context, host_function, block, shared_mem)
        blocks = grid[0] * grid[1] * grid[2]
        if fits is not None and blocks > fits:
            print(f"warpsim: kernel {name} syncs its grid (cooperative_groups grid.sync()) in a plain launch of "
                  f"{blocks} blocks, more than the {fits} the {context.preset.full_name} holds at once: on the GPU "
                  "the resident blocks would wait at the sync for blocks that cannot start (a deadlock: the "
                  "program hangs); warpsim stops the launch: cudaErrorLaunchFailure", file=sys.stderr)
            context.launch_faulted(CODES["cudaErrorLaunchFailure"])
            return SUCCESS      # the launch is accepted; its failure is what later calls return
        cooperative = True      # the driver hands every launch the grid workspace (an H200 ran it: native.json)
    try:
        loaded = context.loaded(module)
        layout = loaded.params(name)
    except DeviceRuntimeNotSimulated as error:
        _say_once(context, f"device runtime {name}", f"warpsim: kernel {name} calls a function of the "
                  f"CUDA device runtime that warpsim does not simulate: the launch returns "
                  f"cudaErrorNotSupported\n  {error}")
        return context.fail(NOT_SUPPORTED)
    except WarpsimError as error:
        print(f"warpsim: {error}", file=sys.stderr)
        return context.fail(CODES["cudaErrorInvalidKernelImage"])
    if shared_mem > DEFAULT_SHARED_LIMIT:      # beyond 48 KB only with cudaFuncSetAttribute's opt-in
        static_shared = loaded.program.kernel_static_shared.get(name, 0)
        if shared_mem > _dynamic_shared_limit(context, host_function, static_shared):
            _say_once(context, f"optin {name}", f"warpsim: kernel {name} asks for {shared_mem} bytes of dynamic "
                      "shared memory, more than 48 KB, without cudaFuncSetAttribute("
                      "cudaFuncAttributeMaxDynamicSharedMemorySize): cudaErrorInvalidValue, as on a GPU")
            return context.fail(INVALID_VALUE)
    size = max((offset + nbytes for _, offset, nbytes, _, _ in layout), default=0)
    params = bytearray(size)
    if layout and not args:
        return context.fail(INVALID_VALUE)
    for index, (_, offset, nbytes, _, _) in enumerate(layout):
        pointer = ctypes.c_uint64.from_address(args + 8 * index).value
        params[offset:offset + nbytes] = ctypes.string_at(pointer, nbytes)
    return loaded, name, bytes(params), cooperative


def _run_kernel(context, loaded, name, grid, block, params: bytes, shared_mem, stream, cooperative, cluster_dims) -> int:
    """Run a launch whose parameter bytes are read (now, or when a captured graph replays it)."""
    key = (id(loaded), name, tuple(grid), tuple(block), int(shared_mem), cooperative, cluster_dims)
    settled = _settled_timing(context, key)
    sample = recorder = None
    if settled is None:
        sample = _sass_sample(context, loaded, name, grid, block, params, shared_mem, cooperative, cluster_dims)
        recorder = None if sample else _timing_recorder(context, loaded, name, grid, block, shared_mem)
    try:
        loaded.launch(name, grid, block, params, shared_mem=shared_mem,
                      observers=(recorder,) if recorder else (), **_launch_options(context, cluster_dims), cooperative=cooperative)
    except LaunchRefused as error:
        return context.fail(code_of(error))
    except OutOfMemoryError:
        return context.fail(CODES["cudaErrorMemoryAllocation"])
    except LaunchError as error:
        code = context.launch_faulted(code_of(error))
        sys.stdout.flush()
        print(f"warpsim: {error_name(code)} ({error_string(code)}) in kernel {name}:\n{error}",
              file=sys.stderr)
        sys.stderr.flush()
        return SUCCESS              # the launch itself was accepted; the fault is sticky from here
    timing = settled or _predicted(context, sample or recorder)
    if timing is not None:
        if settled is None:
            _note_timing(context, key, timing)
        _advance_clock(context, timing, name, grid, block, stream)
    return SUCCESS


# A kernel launched again and again with one shape (a solver's iterations, a search's candidates) whose
# last SETTLE_AFTER predictions agree within SETTLED_WITHIN takes the last of them for its next
# RESAMPLE_EVERY - 1 launches, then is timed again (a drift unsettles it): the timing sample (the
# launch's sampled CTAs run again on the SASS executor, and the model) cost 60% of a program that
# times its kernels with CUDA events (Rodinia's streamcluster: 49.8 s, 4.8 s with wall-clock events).
SETTLE_AFTER, SETTLED_WITHIN, RESAMPLE_EVERY = 4, 0.01, 8


def _settled_timing(context, key):
    """The prediction a repeated launch takes without being timed again, or None."""
    if not context.clock_on:
        return None
    entry = context.__dict__.setdefault("_launch_timings", {}).get(key)
    if entry is None or not entry["settled"] or entry["reused"] >= RESAMPLE_EVERY - 1:
        return None
    entry["reused"] += 1
    return entry["times"][-1]


def _note_timing(context, key, timing) -> None:
    """Keep a launch's prediction; settle the key once its last SETTLE_AFTER agree."""
    timings = context.__dict__.setdefault("_launch_timings", {})
    if len(timings) > 4096:
        timings.clear()
    entry = timings.setdefault(key, {"times": [], "settled": False, "reused": 0})
    entry["times"] = (entry["times"] + [timing])[-SETTLE_AFTER:]
    seconds = [t.time_s for t in entry["times"]]
    entry["settled"] = len(seconds) == SETTLE_AFTER and max(seconds) <= min(seconds) * (1 + SETTLED_WITHIN)
    entry["reused"] = 0


SAMPLE_COPY_LIMIT = 1 << 30     # bytes of device heap copied for a launch's SASS sample, at most
UNEVEN_SAMPLE = 30              # a sample whose first six CTAs' work differs takes a spread of this many too


class _SassSample:
    """The timing sample of a launch taken from its SASS on a copy of device memory (timing())."""

    def __init__(self, execution, loaded, kernel: str, dynamic_shared: int, gpu: str):
        self.execution, self.loaded, self.kernel = execution, loaded, kernel
        self.dynamic_shared, self.gpu = dynamic_shared, gpu

    def timing(self):
        from ..timing.sample import predict_sampled
        return predict_sampled(self.execution, self.loaded, self.kernel, self.dynamic_shared, self.gpu)


def _sass_sample(context, loaded, name, grid, block, params: bytes, shared_mem, cooperative, cluster_dims):
    """Where the clock runs and the SASS executor has the kernel: its sampled CTAs run on the SASS
    executor on a copy of device memory before the launch, so the model times the instructions the
    GPU issues (the PTX run's counts, mapped to SASS by PTX line, miss what ptxas unrolls, hoists
    and combines: whole programs were predicted from 6% to 100% of their SASS). The launch itself
    runs as before. None (the PTX run's sample then times it) for cooperative and cluster launches,
    SASS-only modules, a heap over SAMPLE_COPY_LIMIT, or a sample the executor cannot run or that
    spins without writing device memory (a CTA waiting on one outside the sample): such a kernel
    is not sampled on SASS again."""
    declined = context.__dict__.setdefault("_no_sass_sample", set())
    if (not context.clock_on or cooperative or cluster_dims or getattr(loaded, "sass_only", False)
            or (id(loaded), name) in declined):
        return None
    memory = loaded.device.memory
    if int(memory.top) > SAMPLE_COPY_LIMIT and not getattr(memory, "copies_on_write", False):
        return None
    from ..sass.alone import QUIET_ROUNDS
    from ..sass.replay import snapshot
    from ..timing.sample import run_sass_sample, sampled_cta_ids
    try:
        ctas = sampled_cta_ids(grid, 6)
        execution = run_sass_sample(loaded, name, grid, block, params, shared_mem, ctas, memory=snapshot(memory, right_away=True),
                                    quiet_rounds=QUIET_ROUNDS, uneven_up_to=UNEVEN_SAMPLE)
        return _SassSample(execution, loaded, name, int(shared_mem), context.preset.name)
    except Exception:       # the sample only informs the clock: any failure leaves it to the PTX run's sample
        declined.add((id(loaded), name))
        return None


# cudaGraphNodeType, of the calls a capture takes and of the nodes runtime/graphs.py adds by hand
NODE_KERNEL, NODE_MEMCPY, NODE_MEMSET, NODE_HOST, NODE_GRAPH, NODE_EMPTY = 0, 1, 2, 3, 4, 5
NODE_WAIT_EVENT, NODE_EVENT_RECORD, NODE_MEM_ALLOC, NODE_MEM_FREE, NODE_CONDITIONAL = 6, 7, 0x0a, 0x0b, 0x0d
# every cudaGraphNodeType's name, for DOT labels and messages (0x08, 0x09, 0x0e: kinds warpsim refuses)
NODE_KIND_NAMES = {NODE_KERNEL: "kernel", NODE_MEMCPY: "memcpy", NODE_MEMSET: "memset", NODE_HOST: "host",
                   NODE_GRAPH: "graph", NODE_EMPTY: "empty", NODE_WAIT_EVENT: "wait event",
                   NODE_EVENT_RECORD: "event record", 0x08: "external semaphore signal",
                   0x09: "external semaphore wait", NODE_MEM_ALLOC: "mem alloc", NODE_MEM_FREE: "mem free",
                   NODE_CONDITIONAL: "conditional", 0x0e: "batched memcpy"}


def _captured(context, stream: int, work, kind: int, described=None) -> bool:
    """If `stream` is capturing into a graph (cudaStreamBeginCapture), add `work` (a callable
    returning a cudaError_t, run when the graph is launched) as its next node, of cudaGraphNodeType
    `kind`, its parameters and their C buffers those `described()` gives (a kernel's): True."""
    capture = context.captures.get(stream)
    if capture is None:
        return False
    params, kept = described() if described is not None else ((), None)
    capture.add(stream, kind, work, context.new_handle(), params, kept)
    return True


def _now_or_captured(context, stream: int, kind: int, work, described=None) -> int:
    """Run `work` (a callable returning a cudaError_t) now, or, where `stream` is capturing, add it
    to the capture as a node of cudaGraphNodeType `kind` (_captured)."""
    return SUCCESS if _captured(context, stream, work, kind, described) else work()


def _refused_while_capturing(context, stream: int) -> int:
    """cudaErrorStreamCaptureUnsupported for a call a capturing stream cannot take (one that waits
    for the stream's work): the capture is invalidated, as in CUDA. 0 if the stream is not capturing."""
    capture = context.captures.get(stream)
    if capture is None:
        return 0
    capture.invalidated = True
    return context.fail(CODES["cudaErrorStreamCaptureUnsupported"])


def _reads_grid_workspace(context, module, name: str) -> bool:
    """Whether a kernel syncs its grid: its PTX (_syncs_grid) or, SASS only, its SASS reads the workspace."""
    if module.ptx:
        return _syncs_grid(module.ptx, name)
    try:
        return context.loaded(module).reads_grid_workspace(name)
    except WarpsimError:
        return False                # the launch says what is wrong with the module


def _syncs_grid(ptx: str, name: str) -> bool:
    """Whether kernel `name` reads the grid workspace (%envreg1/%envreg2: a cooperative_groups
    grid sync), in its own body or in a function it calls."""
    if "%envreg" not in ptx:
        return False
    entry = re.search(rf"\.entry\s+{re.escape(name)}\s*\(", ptx)
    if entry is None:
        return True
    following = re.search(r"\n\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b", ptx[entry.end():])
    body = ptx[entry.end():entry.end() + following.start()] if following else ptx[entry.end():]
    if "%envreg" in body:
        return True
    for func in re.finditer(r"\.func\s+(?:\([^)]*\)\s*)?(\w+)", ptx):
        start = func.end()
        rest = re.search(r"\n\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b", ptx[start:])
        text = ptx[start:start + rest.start()] if rest else ptx[start:]
        if "%envreg" in text and re.search(rf"\b{re.escape(func.group(1))}\b", body):
            return True
    return False


def _co_resident_limit(context, function, block, shared_mem):
    """The blocks of this shape the GPU holds at once (occupancy x SMs), or None if unknown."""
    from ..metrics.occupancy import co_resident_blocks
    found = _kernel_resources(context, function)
    threads = block[0] * block[1] * block[2]
    if found is None or not threads or threads > context.preset.max_threads_per_block:
        return None
    _, _, registers, static_shared = found
    major, minor = context.preset.compute_capability
    return co_resident_blocks(threads, registers, static_shared + shared_mem, f"sm_{major}{minor}",
                              context.preset.sms)


@call()
def cudaLaunchKernelExC(context, config, function, args):
    from .native import LAUNCH_CONFIG_FIELDS
    offsets = dict(zip(LAUNCH_CONFIG_FIELDS, _layout("ws_launch_config_layout", len(LAUNCH_CONFIG_FIELDS))[1:]))
    grid, block = _read(config + offsets["gridDim"], "III"), _read(config + offsets["blockDim"], "III")
    shared_mem, = _read(config + offsets["dynamicSmemBytes"], "Q")
    stream, = _read(config + offsets["stream"], "Q")
    attributes, count = _read(config + offsets["attrs"], "Q")[0], _read(config + offsets["numAttrs"], "I")[0]
    try:
        options = launch_attributes.read_attributes(attributes, count, context.events)
    except launch_attributes.Unsupported as refusal:
        return _refuse(context, "cudaLaunchKernelEx", refusal, NOT_SUPPORTED)
    except launch_attributes.Refusal as refusal:
        return _refuse(context, "cudaLaunchKernelEx", refusal)
    if options.cluster and function in context.kernels and not context.kernels[function][0].ptx:
        return _refuse(context, "cudaLaunchKernelEx", "a cluster launch of code that has only SASS is not "
                       "simulated (build with `warpsim nvcc` to keep PTX)", NOT_SUPPORTED)
    if options.cluster and not _cluster_size_allowed(context, function, options):
        return _refuse(context, "cudaLaunchKernelEx", f"a cluster of {options.cluster} CTAs is past the portable "
                       f"{PORTABLE_CLUSTER_SIZE} without cudaFuncAttributeNonPortableClusterSizeAllowed",
                       CODES["cudaErrorInvalidClusterSize"])
    if options.cooperative and options.cluster:
        return _refuse(context, "cudaLaunchKernelEx", "a cooperative launch in clusters is not simulated",
                       NOT_SUPPORTED)
    if options.cooperative:
        code = cudaLaunchCooperativeKernel.__wrapped__(context, function, grid, block, args, shared_mem, stream)
    else:
        code = _launch(context, function, grid, block, args, shared_mem, stream, cluster_dims=options.cluster)
    for event in options.events if not code else ():
        context.events[event].gpu_ms = context.event_ms(stream)
    return code


def _cluster_size_allowed(context, function, options) -> bool:
    """Clusters past 8 CTAs (up to the 16 an H100/H200 holds) need the kernel's or the launch's opt-in."""
    x, y, z = options.cluster
    if x * y * z <= PORTABLE_CLUSTER_SIZE:
        return True
    if options.portable_mode == launch_attributes.PORTABLE_DEFAULT:
        return function in context.nonportable_clusters
    return options.portable_mode == launch_attributes.ALLOW_NON_PORTABLE


def _launch_options(context, cluster_dims) -> dict:
    """The keywords of a launch beyond its shape: its cluster shape, the settings the limits give."""
    options = context.launch_settings()
    if cluster_dims:
        options["cluster_dims"] = cluster_dims
    return options


_layout = hoststructs.layout


def _kernel_resources(context, function):
    """(loaded module, kernel name, registers per thread, static shared bytes), or None."""
    if function not in context.kernels:
        return None
    from ..timing.registers import kernel_registers
    module, name = context.kernels[function]
    loaded = context.loaded(module)
    try:
        registers = kernel_registers(loaded, name)
    except WarpsimError:                       # no ptxas: CUDA's usual figure
        registers = 32
    return loaded, name, registers, loaded.program.kernel_static_shared.get(name, 0)


@call()
def cudaFuncGetName(context, out, function):
    """The kernel's (mangled) name, as the fatbinary registered it."""
    if not out:
        return context.fail(INVALID_VALUE)
    if function not in context.kernels:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    _write(out, "Q", _c_string(context.kernels[function][1]))
    return SUCCESS


@call()
def cudaFuncGetAttributes(context, out, function):
    from .native import FUNC_ATTRIBUTE_FIELDS
    found = _kernel_resources(context, function)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    loaded, name, registers, static_shared = found
    layout = _layout("ws_func_attributes_layout", len(FUNC_ATTRIBUTE_FIELDS))
    ctypes.memset(out, 0, layout[0])
    arch = context.kernels[function][0].arch     # what the program's code was compiled for
    values = {"sharedSizeBytes": static_shared, "constSizeBytes": 0, "localSizeBytes": 0,
              "maxThreadsPerBlock": _max_threads_per_block(context, loaded, name, registers), "numRegs": registers,
              "ptxVersion": arch, "binaryVersion": arch,
              "maxDynamicSharedSizeBytes": _dynamic_shared_limit(context, function, static_shared),
              "preferredShmemCarveout": context.function_carveout.get(function, -1)}
    for field, offset in zip(FUNC_ATTRIBUTE_FIELDS, layout[1:]):
        _write(out + offset, "Q" if field.endswith("SizeBytes") and field != "maxDynamicSharedSizeBytes"
               else "i", values[field])
    return SUCCESS


def _max_threads_per_block(context, loaded, name, registers: int) -> int:
    """The largest block a launch of the kernel may have: the register file's limit (the occupancy
    calculator's allocation rules), at most the kernel's .maxntid (__launch_bounds__).
    cudaOccupancyMaxPotentialBlockSize's template tries no block larger."""
    from ..metrics.occupancy import get_arch, register_limit
    major, minor = context.preset.compute_capability
    arch = get_arch(f"sm_{major}{minor}")
    registers = max(registers, arch.min_registers_per_thread)
    threads = context.preset.max_threads_per_block
    while threads > 32 and register_limit(arch, registers, threads // 32)[0] < 1:
        threads -= 32
    bound = loaded.module.functions[name].directives.get("maxntid")
    return min(threads, math.prod(bound)) if bound else threads


DEFAULT_SHARED_LIMIT = 48 * 1024          # bytes of shared memory a block may use without opting in
FUNC_MAX_DYNAMIC_SHARED, FUNC_CARVEOUT = 8, 9  # cudaFuncAttribute values
FUNC_CLUSTER_ATTRIBUTES = range(10, 17)        # cluster dimensions and scheduling: accepted
FUNC_NON_PORTABLE_CLUSTER = 14                 # cudaFuncAttributeNonPortableClusterSizeAllowed
PORTABLE_CLUSTER_SIZE = 8                      # CTAs a cluster may have without that opt-in (sm_90)


@call()
def cudaFuncSetAttribute(context, function, attribute, value):
    found = _kernel_resources(context, function)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    static_shared = found[3]
    if attribute == FUNC_MAX_DYNAMIC_SHARED:
        if value < 0 or value + static_shared > context.preset.max_shared_per_block:
            return context.fail(INVALID_VALUE)
        context.dynamic_shared_optin[function] = value
        return SUCCESS
    if attribute == FUNC_CARVEOUT:
        if not -1 <= value <= 100:
            return context.fail(INVALID_VALUE)
        context.function_carveout[function] = value
        return SUCCESS
    if attribute == FUNC_NON_PORTABLE_CLUSTER:
        (context.nonportable_clusters.add if value else context.nonportable_clusters.discard)(function)
    return SUCCESS if attribute in FUNC_CLUSTER_ATTRIBUTES else context.fail(INVALID_VALUE)


def _dynamic_shared_limit(context, function, static_shared: int) -> int:
    """The dynamic shared memory a launch of function may ask for: 48 KB less its static
    shared memory, or what cudaFuncSetAttribute opted in to."""
    return context.dynamic_shared_optin.get(function, max(DEFAULT_SHARED_LIMIT - static_shared, 0))


def _timing_recorder(context, loaded, name, grid, block, shared_mem):
    """A sampled-CTA recorder for the timing model, while the GPU clock runs (context.clock_on)."""
    if not context.clock_on:
        return None
    from ..timing.sample import LaunchTimingRecorder
    try:
        return LaunchTimingRecorder(loaded, name, grid, block, shared_mem, context.preset.name)
    except WarpsimError as error:
        _say_once(context, "timing", f"warpsim: no predicted time for kernel {name} ({error}); "
                                     "CUDA events will not count it")
        return None


def _predicted(context, recorder):
    """The recorder's (or SASS sample's) predicted timing, or None."""
    if recorder is None:
        return None
    try:
        return recorder.timing()
    except WarpsimError as error:
        _say_once(context, "timing", f"warpsim: no predicted time for a kernel ({error})")
        return None


def _advance_clock(context, timing, name, grid, block, stream) -> None:
    ctas = int(np.prod(grid))
    slots = timing.details.get("ctas_per_sm", 1) * context.preset.sms
    context.advance("kernel", name, timing.time_s * 1e3 + context.preset.launch_overhead_us * 1e-3,
                    stream, sm_share=min(1.0, ctas / max(1, slots)), grid=tuple(grid), block=tuple(block))


def _say_once(context, key: str, text: str) -> None:
    said = context.__dict__.setdefault("_said", set())
    if key not in said:
        said.add(key)
        print(text, file=sys.stderr)


# --- memory -------------------------------------------------------------------------

MEMORY_HOST, MEMORY_DEVICE, MEMORY_MANAGED = 1, 2, 3      # cudaMemoryType


def _allocate(context, out: int, size: int, initialized: bool = False, kind: int = MEMORY_DEVICE,
              align: int = 0) -> int:
    if not out:
        return context.fail(INVALID_VALUE)
    if size == 0:
        _write(out, "Q", 0)
        return SUCCESS
    try:
        address = context.device.memory.allocate(size, align=align, initialized=initialized)
    except OutOfMemoryError as error:
        from ..settings import current
        if error.limit < current().device_memory:     # the host's memory, not the GPU's, ran out
            _say_once(context, "host memory", f"warpsim: cudaErrorMemoryAllocation: {error}. The simulated "
                      f"{context.preset.full_name} has {current().device_memory / 1e9:.0f} GB; this host backs "
                      f"{error.limit / 1e9:.1f} GB of it (each device byte takes two of the host's)")
        return context.fail(CODES["cudaErrorMemoryAllocation"])
    if kind != MEMORY_DEVICE:
        context.memory_kinds[address] = kind
    _write(out, "Q", address)
    return SUCCESS


@call()
def cudaMalloc(context, out, size):
    return _allocate(context, out, size)


@call()
def cudaMallocManaged(context, out, size, flags):
    if not context.host_mapped:
        _say_once(context, "managed", "warpsim: cudaMallocManaged needs the device heap mapped at "
                  f"0x{GLOBAL_BASE:x} in the program, and that range was taken; run the program "
                  "with `warpsim run` (it turns address randomization off)")
        return context.fail(NOT_SUPPORTED)
    return _allocate(context, out, size, initialized=True, kind=MEMORY_MANAGED)   # host writes are not tracked


def _allocate_host(context, out, size) -> int:
    if context.host_mapped:            # pinned memory that kernels can read too, as with UVA
        return _allocate(context, out, size, initialized=True, kind=MEMORY_HOST)
    buffer = ctypes.create_string_buffer(max(size, 1))
    context.host_allocations[ctypes.addressof(buffer)] = buffer
    _write(out, "Q", ctypes.addressof(buffer))
    return SUCCESS


@call()
def cudaMallocHost(context, out, size):
    return _allocate_host(context, out, size)


@call()
def cudaHostAlloc(context, out, size, flags):
    code = _allocate_host(context, out, size)
    if code == SUCCESS and size:            # what cudaHostGetFlags reports (runtime_queries.py)
        context.__dict__.setdefault("host_alloc_flags", {})[_read(out, "Q")[0]] = flags
    return code


@call()
def cudaFree(context, address):
    return free_device_memory(context, address, stream_ordered=False)


def free_device_memory(context, address, stream_ordered: bool) -> int:
    """cudaFree, and cudaFreeAsync once a capture has not taken it."""
    if not address:
        return SUCCESS
    if address in context.graph_allocations:                   # graph-owned memory freed outside its graph
        return context.free_graph_memory(address)
    try:
        context.device.memory.free(address)
    except ValueError:
        return context.fail(INVALID_VALUE)
    context.memory_kinds.pop(address, None)
    for pool in context.memory_pools.values():      # cudaMallocAsync memory leaves its pool (memory_pools.py)
        size = pool.allocations.pop(address, None)
        if size is not None:
            pool.freed_synchronously += 0 if stream_ordered else size
            break
    return SUCCESS


@call()
def cudaFreeHost(context, address):
    if context.host_allocations.pop(address, None) is not None or not address:
        return SUCCESS
    return cudaFree.__wrapped__(context, address)


@call()
def cudaMemcpy(context, dst, src, count, kind):
    if kind not in MEMCPY_KINDS:
        return context.fail(CODES["cudaErrorInvalidMemcpyDirection"])
    code = _copy(context, dst, src, count)
    context.clock.synchronize(0)            # the host waits for a synchronous copy
    return code


@call()
def cudaMemcpyAsync(context, dst, src, count, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if kind not in MEMCPY_KINDS:
        return context.fail(CODES["cudaErrorInvalidMemcpyDirection"])
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(_copy, context, dst, src, count, stream))


@call()
def cudaMemset(context, address, value, count):
    return _memset(context, address, value, count, 0)


def _memset(context, address, value, count, stream: int) -> int:
    if not count:
        return SUCCESS
    try:
        context.device.memory.memset(address, value, count)
    except ValueError as error:
        print(f"warpsim: {error}", file=sys.stderr)
        return context.fail(INVALID_VALUE)
    _time_memset(context, count, stream)
    return SUCCESS


def _time_memset(context, count: int, stream: int = 0) -> None:
    """Advance the GPU clock by a memset of count bytes: written once at the device's copy bandwidth."""
    if context.clock_on:
        preset = context.preset
        context.advance("memset", "memset", 2 * count / (preset.hbm_copy_gbps * 1e9) * 1e3
                        + preset.launch_overhead_us * 1e-3, stream, bytes=count)


@call()
def cudaMemsetAsync(context, address, value, count, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMSET,
                            functools.partial(_memset, context, address, value, count, stream))


@call()
def cudaMemGetInfo(context, free_out, total_out):
    memory = context.device.memory
    _write(free_out, "Q", memory.limit - memory.allocated)
    _write(total_out, "Q", memory.limit)
    return SUCCESS


# --- symbols ------------------------------------------------------------------------

def _symbol_address(context, symbol: int, offset: int = 0, count: int = 0):
    """(device address, error code) of a __device__/__constant__ variable's bytes."""
    found = context.symbols.get(symbol)
    if found is None:
        return None, context.fail(CODES["cudaErrorInvalidSymbol"])
    if offset + count > found.size:
        return None, context.fail(INVALID_VALUE)
    try:
        return context.loaded(found.module).global_address(found.name) + offset, SUCCESS
    except (KeyError, WarpsimError):
        return None, context.fail(CODES["cudaErrorInvalidSymbol"])


@call()
def cudaMemcpyToSymbol(context, symbol, src, count, offset, kind):
    address, code = _symbol_address(context, symbol, offset, count)
    return code or _copy(context, address, src, count)


@call()
def cudaMemcpyFromSymbol(context, dst, symbol, count, offset, kind):
    address, code = _symbol_address(context, symbol, offset, count)
    return code or _copy(context, dst, address, count)


@call()
def cudaMemcpyToSymbolAsync(context, symbol, src, count, offset, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        cudaMemcpyToSymbol.__wrapped__, context, symbol, src, count, offset, kind))


@call()
def cudaMemcpyFromSymbolAsync(context, dst, symbol, count, offset, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        cudaMemcpyFromSymbol.__wrapped__, context, dst, symbol, count, offset, kind))


@call()
def cudaGetSymbolAddress(context, out, symbol):
    address, code = _symbol_address(context, symbol)
    if not code:
        _write(out, "Q", address)
    return code


@call()
def cudaGetSymbolSize(context, out, symbol):
    found = context.symbols.get(symbol)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidSymbol"])
    _write(out, "Q", found.size)
    return SUCCESS


# --- errors and synchronization ------------------------------------------------------

@call(sticky=False)
def cudaGetLastError(context):
    return context.clear_last_error()


@call(sticky=False)
def cudaPeekAtLastError(context):
    return context.pending_error()


_strings: dict = {}


def _c_string(text: str) -> int:
    """The address of a NUL-terminated copy of text that lives as long as the process."""
    if text not in _strings:
        _strings[text] = ctypes.create_string_buffer(text.encode())
    return ctypes.addressof(_strings[text])


def cudaGetErrorString(code):
    return _c_string(error_string(code))


def cudaGetErrorName(code):
    return _c_string(error_name(code))


IMPLEMENTED.update(cudaGetErrorString=cudaGetErrorString, cudaGetErrorName=cudaGetErrorName)


@call()
def cudaDeviceSynchronize(context):
    context.clock.synchronize()
    return SUCCESS


@call()
def cudaThreadSynchronize(context):
    context.clock.synchronize()
    return SUCCESS


@call(sticky=False)
def cudaDeviceReset(context):
    context.sticky_error = context.last_error = 0
    return SUCCESS


# --- devices ------------------------------------------------------------------------

@call()
def cudaGetDeviceCount(context, out):
    _write(out, "i", 1)
    return SUCCESS


@call()
def cudaGetDevice(context, out):
    _write(out, "i", 0)
    return SUCCESS


@call()
def cudaSetDevice(context, device):
    return SUCCESS if device == 0 else context.fail(CODES["cudaErrorInvalidDevice"])


def _properties(context) -> dict:
    from .properties import device_properties
    return device_properties(context.preset, context.device.memory.limit, context.host_mapped)


@call()
def cudaGetDeviceProperties(context, out, device):
    from .native import DEVICE_PROP_FIELDS
    from .properties import SIZE_T_FIELDS
    if device != 0:
        return context.fail(CODES["cudaErrorInvalidDevice"])
    if not out:
        return context.fail(INVALID_VALUE)
    layout = _layout("ws_device_prop_layout", len(DEVICE_PROP_FIELDS))
    ctypes.memset(out, 0, layout[0])
    values = _properties(context)
    for field, offset in zip(DEVICE_PROP_FIELDS, layout[1:]):
        value = values[field]
        if field == "name":
            ctypes.memmove(out + offset, value.encode()[:255], len(value.encode()[:255]))
        elif isinstance(value, tuple):
            _write(out + offset, f"{len(value)}i", *value)
        elif field in SIZE_T_FIELDS:
            _write(out + offset, "Q", value)
        else:
            _write(out + offset, "i", value)
    _say_once(context, "device name", f"warpsim: device 0 is a simulated {context.preset.full_name}; the program "
              f"reads its driver's name, '{values['name']}'")
    return SUCCESS


@call()
def cudaDeviceGetAttribute(context, out, attribute, device):
    from .properties import attribute_value
    if device != 0:
        return context.fail(CODES["cudaErrorInvalidDevice"])
    value = attribute_value(_properties(context), attribute)
    if value is None:
        return context.fail(INVALID_VALUE)
    _write(out, "i", min(int(value), (1 << 31) - 1))
    return SUCCESS


DRIVER_VERSION = 13000           # what cudaDriverGetVersion and cuDriverGetVersion report


@call()
def cudaDriverGetVersion(context, out):
    _write(out, "i", DRIVER_VERSION)
    return SUCCESS


@call()
def cudaRuntimeGetVersion(context, out):
    _write(out, "i", 13000)
    return SUCCESS


# --- streams and events --------------------------------------------------------------

@call()
def cudaStreamCreate(context, out):
    handle = context.new_handle()
    context.streams.add(handle)
    context.clock.stream_created(handle)
    _write(out, "Q", handle)
    return SUCCESS


STREAM_NON_BLOCKING = 0x01


@call()
def cudaStreamCreateWithFlags(context, out, flags):
    return _create_stream(context, out, flags, 0)


def _create_stream(context, out, flags: int, priority: int) -> int:
    """A stream with its flags and priority (clamped to the device's range), as cudaStreamGet* read them."""
    if not out or flags & ~STREAM_NON_BLOCKING:
        return context.fail(INVALID_VALUE)
    code = cudaStreamCreate.__wrapped__(context, out)
    if code == SUCCESS:
        least, greatest = STREAM_PRIORITIES
        context.stream_settings[_read(out, "Q")[0]] = (flags, min(max(priority, greatest), least))
    return code


@call()
def cudaStreamDestroy(context, stream):
    if stream not in context.streams:
        return context.fail(INVALID_HANDLE)
    context.streams.discard(stream)
    context.stream_settings.pop(stream, None)
    return SUCCESS


def _known_stream(context, stream) -> bool:
    return stream in (0, 1, 2) or stream in context.streams


@call()
def cudaStreamSynchronize(context, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    context.clock.synchronize(stream)
    return _refused_while_capturing(context, stream)


@call()
def cudaStreamQuery(context, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _refused_while_capturing(context, stream)


@call()
def cudaEventCreate(context, out):
    return cudaEventCreateWithFlags.__wrapped__(context, out, 0)


@call()
def cudaEventCreateWithFlags(context, out, flags):
    handle = context.new_handle()
    context.events[handle] = Event(timing=not flags & EVENT_DISABLE_TIMING)
    _write(out, "Q", handle)
    return SUCCESS


@call()
def cudaEventDestroy(context, event):
    if context.events.pop(event, None) is None:
        return context.fail(INVALID_HANDLE)
    return SUCCESS


@call()
def cudaEventRecord(context, event, stream):
    if event not in context.events or not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    capture = context.captures.get(stream)
    if capture is not None:             # a point of the capture other streams can wait for (a fork)
        context.events[event].captured = (capture, capture.tail(stream))
        return SUCCESS
    context.events[event].gpu_ms = context.event_ms(stream)
    context.events[event].captured = None
    return SUCCESS


@call()
def cudaEventSynchronize(context, event):
    found = context.events.get(event)
    if found is None:
        return context.fail(INVALID_HANDLE)
    if found.gpu_ms is not None and not context.wall_events:
        context.clock.wait_until(found.gpu_ms)
    return SUCCESS


@call()
def cudaEventQuery(context, event):
    return SUCCESS if event in context.events else context.fail(INVALID_HANDLE)


@call()
def cudaEventElapsedTime(context, out, start, end):
    first, last = context.events.get(start), context.events.get(end)
    if first is None or last is None or not (first.timing and last.timing):
        return context.fail(INVALID_HANDLE)
    if first.gpu_ms is None or last.gpu_ms is None:
        return context.fail(CODES["cudaErrorInvalidResourceHandle"])
    _write(out, "f", last.gpu_ms - first.gpu_ms)
    return SUCCESS


# --- pitched (2D) memory ---------------------------------------------------------------

PITCH_ALIGNMENT = 512            # bytes: cudaMallocPitch's row alignment on sm_90


@call()
def cudaMallocPitch(context, out, pitch_out, width, height):
    if not out or not pitch_out:
        return context.fail(INVALID_VALUE)
    pitch = -(-width // PITCH_ALIGNMENT) * PITCH_ALIGNMENT if width else 0
    code = _allocate(context, out, pitch * height)
    if not code:
        _write(pitch_out, "Q", pitch)
    return code


def _copy_2d(context, dst, dpitch, src, spitch, width, height, kind, stream=0) -> int:
    if kind not in MEMCPY_KINDS:
        return context.fail(CODES["cudaErrorInvalidMemcpyDirection"])
    if not width or not height:
        return SUCCESS
    if width > dpitch or width > spitch:
        return context.fail(CODES["cudaErrorInvalidPitchValue"])
    if dpitch == spitch == width:
        return _copy(context, dst, src, width * height, stream)
    for row in range(height):
        code = _copy(context, dst + row * dpitch, src + row * spitch, width, stream, timed=False)
        if code:
            return code
    _time_copy(context, width * height, _is_device(context, src), _is_device(context, dst), stream)
    return SUCCESS


@call()
def cudaMemcpy2D(context, dst, dpitch, src, spitch, width, height, kind):
    return _copy_2d(context, dst, dpitch, src, spitch, width, height, kind)


@call()
def cudaMemcpy2DAsync(context, dst, dpitch, src, spitch, width, height, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        _copy_2d, context, dst, dpitch, src, spitch, width, height, kind, stream))


@call()
def cudaMemset2D(context, address, pitch, value, width, height):
    if not width or not height:
        return SUCCESS
    if width > pitch:
        return context.fail(CODES["cudaErrorInvalidPitchValue"])
    for row in range(height):
        code = cudaMemset.__wrapped__(context, address + row * pitch, value, width)
        if code:
            return code
    return SUCCESS


@call()
def cudaMemset2DAsync(context, address, pitch, value, width, height, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMSET, functools.partial(
        cudaMemset2D.__wrapped__, context, address, pitch, value, width, height))


# --- pointers and host memory -------------------------------------------------------------

MEMORY_UNREGISTERED = 0
NO_DEVICE = -2                   # the device of unregistered memory (CU_DEVICE_INVALID)


def _allocation_start(context, address: int):
    """The device address of the live heap allocation holding address, or None."""
    import bisect
    memory = context.device.memory
    if not _is_device(context, address):
        return None
    offset = address - GLOBAL_BASE
    starts = memory._sorted_starts
    k = bisect.bisect_right(starts, offset) - 1
    if k >= 0 and offset < starts[k] + memory.live[starts[k]]:
        return GLOBAL_BASE + starts[k]
    return None


@call()
def cudaPointerGetAttributes(context, out, pointer):
    from .native import POINTER_ATTRIBUTE_FIELDS
    if not out:
        return context.fail(INVALID_VALUE)
    start = _allocation_start(context, pointer)
    if start is not None:
        kind = context.memory_kinds.get(start, MEMORY_DEVICE)
        device, device_pointer, host_pointer = 0, pointer, pointer if kind != MEMORY_DEVICE else 0
    elif pointer in context.host_allocations or _registered_host(context, pointer):
        kind, device, device_pointer, host_pointer = MEMORY_HOST, 0, 0, pointer
    else:
        kind, device, device_pointer, host_pointer = MEMORY_UNREGISTERED, NO_DEVICE, 0, pointer
    layout = _layout("ws_pointer_attributes_layout", len(POINTER_ATTRIBUTE_FIELDS))
    ctypes.memset(out, 0, layout[0])
    offsets = dict(zip(POINTER_ATTRIBUTE_FIELDS, layout[1:]))
    _write(out + offsets["type"], "i", kind)
    _write(out + offsets["device"], "i", device)
    _write(out + offsets["devicePointer"], "Q", device_pointer)
    _write(out + offsets["hostPointer"], "Q", host_pointer)
    return SUCCESS


def _registered_host(context, pointer: int) -> bool:
    return any(start <= pointer < start + size for start, size in context.registered_host.items())


@call()
def cudaHostRegister(context, pointer, size, flags):
    if not pointer or not size:
        return context.fail(INVALID_VALUE)
    from .hostmemory import readable_range
    why = readable_range(pointer, size)
    if why:
        print(f"warpsim: cudaHostRegister: {why}", file=sys.stderr)
        return context.fail(INVALID_VALUE)
    if pointer in context.registered_host:
        return context.fail(CODES["cudaErrorHostMemoryAlreadyRegistered"])
    try:        # kernels address it in place, at its host address (unified addressing)
        context.device.memory.register_host(pointer, size, label="memory registered with cudaHostRegister")
    except ValueError as exc:        # over the heap, or overlapping a registered range
        print(f"warpsim: cudaHostRegister: {exc}", file=sys.stderr)
        return context.fail(CODES["cudaErrorHostMemoryAlreadyRegistered"] if _registered_host(context, pointer)
                            else INVALID_VALUE)
    context.registered_host[pointer] = size
    return SUCCESS


@call()
def cudaHostUnregister(context, pointer):
    if context.registered_host.pop(pointer, None) is None:
        return context.fail(CODES["cudaErrorHostMemoryNotRegistered"])
    context.device.memory.unregister_host(pointer)
    return SUCCESS


@call()
def cudaHostGetDevicePointer(context, out, host_pointer, flags):
    if not out or flags:
        return context.fail(INVALID_VALUE)
    if _allocation_start(context, host_pointer) is not None or _registered_host(context, host_pointer):
        _write(out, "Q", host_pointer)     # cudaMallocHost / cudaHostRegister memory: the same address
        return SUCCESS
    return context.fail(INVALID_VALUE)


# --- streams: ordering and host work ---------------------------------------------------------

HOST_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
STREAM_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
EVENT_WAIT_EXTERNAL = 0x01


@call()
def cudaStreamWaitEvent(context, stream, event, flags):
    if not _known_stream(context, stream) or event not in context.events:
        return context.fail(INVALID_HANDLE)
    if flags & ~EVENT_WAIT_EXTERNAL:
        return context.fail(INVALID_VALUE)
    if flags & EVENT_WAIT_EXTERNAL and _captured(context, stream, lambda: SUCCESS, NODE_WAIT_EVENT,
                                                 lambda: ((event,), None)):
        return SUCCESS                  # an external wait in a capture: a wait node (its event's work is done)
    captured = context.events[event].captured
    if captured is not None and captured[0].active:     # the stream joins that capture after those nodes
        capture, nodes = captured
        if stream in (0, 1):                            # the legacy stream cannot take part in a capture
            return context.fail(CODES["cudaErrorStreamCaptureIsolation"])
        joined = context.captures.setdefault(stream, capture)
        if joined is not capture:
            return context.fail(CODES["cudaErrorStreamCaptureMerge"])
        capture.wait(stream, nodes)
    elif context.events[event].gpu_ms is not None and not context.wall_events:
        context.clock.wait_event(stream, context.events[event].gpu_ms)   # on the predicted clock
    return SUCCESS                   # every stream's work is complete when its call returns


@call()
def cudaLaunchHostFunc(context, stream, function, user_data):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not function:
        return context.fail(INVALID_VALUE)
    if _captured(context, stream, lambda: HOST_FUNCTION(function)(user_data) or SUCCESS, NODE_HOST):
        return SUCCESS
    HOST_FUNCTION(function)(user_data)       # the stream's earlier work is done: it runs now
    return SUCCESS


@call()
def cudaStreamAddCallback(context, stream, callback, user_data, flags):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not callback or flags:
        return context.fail(INVALID_VALUE)
    STREAM_CALLBACK(callback)(stream, context.sticky_error, user_data)
    return SUCCESS


@call()
def cudaStreamCreateWithPriority(context, out, flags, priority):
    return _create_stream(context, out, flags, priority)


STREAM_PRIORITIES = (0, -5)      # (least, greatest) as an H200 reports them


@call()
def cudaDeviceGetStreamPriorityRange(context, least_out, greatest_out):
    if least_out:
        _write(least_out, "i", STREAM_PRIORITIES[0])
    if greatest_out:
        _write(greatest_out, "i", STREAM_PRIORITIES[1])
    return SUCCESS


# --- functions and device flags -----------------------------------------------------------

@call()
def cudaLaunchCooperativeKernel(context, function, grid, block, args, shared_mem, stream):
    return _launch_cooperative(context, function, grid, block, args, shared_mem, stream)


def _launch_cooperative(context, function, grid, block, args, shared_mem, stream) -> int:
    """A launch whose blocks may wait for each other (grid.sync()): refused, as a GPU refuses it,
    when its blocks could not all be resident at once (blocks per SM by occupancy, times SMs);
    otherwise run as one batch with the grid workspace (machine.cooperative)."""
    from ..metrics.occupancy import co_resident_blocks
    found = _kernel_resources(context, function)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    _, name, registers, static_shared = found
    major, minor = context.preset.compute_capability
    threads = block[0] * block[1] * block[2]
    if threads and threads <= context.preset.max_threads_per_block:
        limit = co_resident_blocks(threads, registers, static_shared + shared_mem, f"sm_{major}{minor}",
                                   context.preset.sms)
        blocks = grid[0] * grid[1] * grid[2]
        if blocks > limit:
            _say_once(context, f"cooperative {name} {blocks}", f"warpsim: cooperative launch of {name}: "
                      f"{blocks} blocks, more than the {limit} that can be resident at once on "
                      f"{context.preset.sms} SMs of the {context.preset.full_name}: "
                      "cudaErrorCooperativeLaunchTooLarge")
            return context.fail(CODES["cudaErrorCooperativeLaunchTooLarge"])
    return _launch(context, function, grid, block, args, shared_mem, stream, cooperative=True)


@call()
def cudaSetDeviceFlags(context, flags):
    if flags & ~0x1F:
        return context.fail(INVALID_VALUE)
    context.device_flags = flags
    return SUCCESS


DEVICE_MAP_HOST = 0x08


@call()
def cudaGetDeviceFlags(context, out):
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "I", getattr(context, "device_flags", 0) | DEVICE_MAP_HOST)
    return SUCCESS


# cuda_profiler_api.h: a profiler's collection range. Without a profiler attached CUDA returns
# success and nothing changes; `warpsim profile` profiles every launch whatever the range (as ncu
# does unless told --profile-from-start off), so both calls only succeed. Programs such as the
# CUDA samples check their codes and would stop at a cudaErrorNotSupported.
@call()
def cudaProfilerStart(context):
    return SUCCESS


@call()
def cudaProfilerStop(context):
    return SUCCESS


# --- CUDA arrays, texture and surface objects (the structs' meaning: runtime/textures.py) ----------

def _refuse(context, function: str, error, code: int = INVALID_VALUE) -> int:
    _say_once(context, f"{function}: {error}", f"warpsim: {function}: {error}")
    return context.fail(code)


def _malloc_array(context, function, out, desc, width, height, depth, flags=0) -> int:
    if not out or not desc or not width or depth and not height:
        return context.fail(INVALID_VALUE)
    try:
        channels, bits, kind = textures.channel_format(desc)
    except textures.InvalidChannelDescriptor as error:
        return _refuse(context, function, error, CODES["cudaErrorInvalidChannelDescriptor"])
    dims = 3 if depth else 2 if height else 1
    shape = textures.CudaArray(0, dims, width, height, depth, channels, bits, kind)
    try:
        address = context.device.memory.allocate(shape.pitch * shape.rows)
    except OutOfMemoryError:
        return context.fail(CODES["cudaErrorMemoryAllocation"])
    context.cuda_arrays[address] = textures.CudaArray(address, dims, width, height, depth, channels, bits, kind,
                                                      flags)
    _write(out, "Q", address)
    return SUCCESS


@call()
def cudaMallocArray(context, out, desc, width, height, flags):
    return _malloc_array(context, "cudaMallocArray", out, desc, width, height, 0)


@call()
def cudaMalloc3DArray(context, out, desc, extent, flags):
    width, height, depth = extent
    return _malloc_array(context, "cudaMalloc3DArray", out, desc, width, height, depth, flags)


@call()
def cudaFreeArray(context, array):
    if not array:
        return SUCCESS
    if context.cuda_arrays.pop(array, None) is None:
        return context.fail(INVALID_VALUE)
    context.device.memory.free(array)
    return SUCCESS


def _array_region(context, array, w_offset, h_offset, width, height):
    """(device address of byte w_offset of row h_offset, the array), the address None unless
    width bytes x height rows from there lie inside the CUDA array."""
    found = context.cuda_arrays.get(array)
    if found is None or w_offset + width > found.pitch or h_offset + height > found.rows:
        return None, found
    return array + h_offset * found.pitch + w_offset, found


@call()
def cudaMemcpy2DToArray(context, dst, w_offset, h_offset, src, spitch, width, height, kind):
    address, found = _array_region(context, dst, w_offset, h_offset, width, height)
    if address is None:
        return context.fail(INVALID_VALUE)
    return _copy_2d(context, address, found.pitch, src, spitch, width, height, kind)


@call()
def cudaMemcpy2DFromArray(context, dst, dpitch, src, w_offset, h_offset, width, height, kind):
    address, found = _array_region(context, src, w_offset, h_offset, width, height)
    if address is None:
        return context.fail(INVALID_VALUE)
    return _copy_2d(context, dst, dpitch, address, found.pitch, width, height, kind)


def _create_object(context, function, out, res, tex, surface: bool) -> int:
    if not out or not res or not surface and not tex:
        return context.fail(INVALID_VALUE)
    try:
        fields = textures.resource_fields(context.cuda_arrays, res)
        if surface and fields["resource"] != textures.objects.ARRAY:
            raise ValueError("a surface is made over a CUDA array (resType cudaResourceTypeArray)")
        sampling = {} if surface else textures.texture_fields(tex)
        descriptor = textures.objects.encode(**fields, **sampling, surface=surface)
    except NotImplementedError as error:
        return _refuse(context, function, error, NOT_SUPPORTED)
    except textures.InvalidChannelDescriptor as error:
        return _refuse(context, function, error, CODES["cudaErrorInvalidChannelDescriptor"])
    except (ValueError, struct.error) as error:
        return _refuse(context, function, error)
    try:
        handle = context.device.memory.allocate(len(descriptor))
    except OutOfMemoryError:
        return context.fail(CODES["cudaErrorMemoryAllocation"])
    context.device.memory.write_bytes(handle, descriptor)
    context.texture_objects[handle] = "surface" if surface else "texture"
    described = context.__dict__.setdefault("object_descriptions", {})    # cudaGetTextureObject*Desc
    described[handle] = tuple(ctypes.string_at(address, _layout(symbol, 0)[0]) if address else b""
                              for address, symbol in ((res, "ws_resource_desc_layout"),
                                                      (tex, "ws_texture_desc_layout")))
    _write(out, "Q", handle)
    return SUCCESS


def _destroy_object(context, handle, what: str) -> int:
    if context.texture_objects.get(handle) != what:
        return context.fail(INVALID_VALUE)
    del context.texture_objects[handle]
    context.__dict__.get("object_descriptions", {}).pop(handle, None)
    context.device.memory.free(handle)
    return SUCCESS


RESOURCE_VIEW_WIDTH = 8


@call()
def cudaCreateTextureObject(context, out, res, tex, view):
    if view:
        # cudaResourceViewDesc { cudaResourceViewFormat format; size_t width, ... }: width at 8 (x86-64)
        if not _read(view + RESOURCE_VIEW_WIDTH, "Q")[0]:
            return _refuse(context, "cudaCreateTextureObject", "the resource view has width 0",
                           INVALID_VALUE)       # as an H200 answers a zeroed view (native.json, texture.cu)
        return _refuse(context, "cudaCreateTextureObject", "resource views are not simulated", NOT_SUPPORTED)
    return _create_object(context, "cudaCreateTextureObject", out, res, tex, surface=False)


@call()
def cudaDestroyTextureObject(context, handle):
    return _destroy_object(context, handle, "texture")


@call()
def cudaCreateSurfaceObject(context, out, res):
    return _create_object(context, "cudaCreateSurfaceObject", out, res, 0, surface=True)


@call()
def cudaDestroySurfaceObject(context, handle):
    return _destroy_object(context, handle, "surface")

