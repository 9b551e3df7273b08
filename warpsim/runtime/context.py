"""The state of one program's CUDA runtime: its device, registered code, streams, events, errors.

One RuntimeContext per process (the program has one CUDA context); calls.py
reaches it through `runtime()`. Registration (__cudaRegisterFatBinary and
friends) runs from the program's static constructors before main; a module's
PTX is parsed and loaded on the device when one of its kernels or variables is
first used, as CUDA's lazy loading does.

Streams run in order, each launch to completion: every stream is the null
stream as far as results go. The GPU clock (gpu_clock.py) is when the chosen GPU
(--gpu, default h200) would run that work, stream by stream: it takes each
kernel's predicted time while the program has CUDA events, which read it; with
the event_time setting 'wall' (WARPSIM_EVENT_TIME, `warpsim --event-time wall
run`) events read the simulation's wall clock instead, and no time is predicted.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import sys
import time
from dataclasses import dataclass, field

from ..frontends.fatbin import best_ptx, best_sass, fatbin_bytes_at, fatbin_from_wrapper, parse_fatbin
from ..frontends.ptx_link import link_ptx
from ..machine.device import Device
from .errors import CODES
from .gpu_clock import GpuClock
from .heap import host_mapped_heap


@dataclass
class FatbinModule:
    """One registered fatbinary: its PTX, loaded on first use."""
    handle: int
    ptx: str
    name: str
    arch: int = 0                   # the PTX's architecture (cudaFuncAttributes.ptxVersion)
    cubin: bytes = b""              # without PTX: the cubin whose SASS runs on the SASS executor
    loaded: object = None
    functions: dict = field(default_factory=dict)   # device name -> host stub address


@dataclass
class Symbol:
    module: FatbinModule
    name: str
    size: int
    constant: bool


@dataclass
class TimelineEntry:
    """One piece of work on the predicted GPU clock: a kernel, a copy or a memset."""
    kind: str                        # 'kernel', 'copy' or 'memset'
    name: str                        # the kernel's name, or the copy's direction ('HtoD', 'DtoH', ...)
    start_ms: float
    ms: float
    stream: int = 0
    bytes: int = 0
    grid: tuple = ()
    block: tuple = ()


@dataclass
class Event:
    gpu_ms: float | None = None      # the GPU clock when recorded (None: never recorded)
    timing: bool = True
    captured: tuple | None = None    # recorded in a stream capture: (the capture, the nodes it follows)


def _event_time() -> str:
    from ..settings import check_event_time, current
    value = current().event_time
    check_event_time(value)
    return value


def gpu_name() -> str:
    from ..settings import current
    return current().gpu or os.environ.get("WARPSIM_GPU") or "h200"


GPU_PAGE_BYTES = 2 << 20                          # the pages a GPU maps device memory in
LIMIT_STACK_SIZE = 0                              # cudaLimitStackSize


class RuntimeContext:
    def __init__(self):
        from ..timing.presets import gpu_preset
        self.preset = gpu_preset(gpu_name())
        self.device = Device()
        heap = host_mapped_heap(self.device.memory.limit)
        if heap is not None:
            self.device.memory, self.device.lock = heap, heap.lock
        # A program's stray access faults only where a GPU's would: outside the pages mapped for its
        # allocations (an H200 ran fault.cu's write 255,744 bytes past a 256-byte cudaMalloc without
        # a fault: validation/programs/h200/native.json). `warpsim check` (memcheck) turns this off.
        self.device.memory.mapped_page_bytes = GPU_PAGE_BYTES
        self.device.memory.reserve_driver_bytes(GPU_PAGE_BYTES)
        self.host_mapped = heap is not None
        self.modules: dict[int, FatbinModule] = {}
        self.kernels: dict[int, tuple] = {}           # host stub address -> (module, device name)
        self.symbols: dict[int, Symbol] = {}          # host variable address -> Symbol
        self.configurations: list = []               # <<<grid, block, shared, stream>>> pushed
        self.streams: set[int] = set()
        self.stream_settings: dict[int, tuple] = {}   # stream -> (flags, priority) it was created with
        self.capture_mode = 0                         # cudaThreadExchangeStreamCaptureMode (Global)
        self.captures: dict = {}                      # capturing stream -> its graphs.Capture (cudaStreamBeginCapture)
        self.graph_allocations: dict[int, int] = {}   # graph-owned memory (captured or node-made): address -> size
        self.graph_memory_freed: set[int] = set()     # of those, the ones a free node or cudaFree has freed
        self.graph_memory_high = 0                    # cudaGraphMemAttrUsedMemHigh: the most it has held
        self.events: dict[int, Event] = {}
        self.host_allocations: dict[int, object] = {}
        self.memory_kinds: dict[int, int] = {}        # heap address -> cudaMemoryType (managed, pinned)
        self.memory_pools: dict = {}                  # cudaMemPool_t -> memory_pools.MemoryPool (made on first use)
        self.current_pool = 0                         # cudaDeviceSetMemPool's pool (0: the default)
        self.registered_host: dict[int, int] = {}     # cudaHostRegister: start -> size
        self.cuda_arrays: dict = {}                   # cudaArray_t (device address) -> textures.CudaArray
        self.texture_objects: dict[int, str] = {}     # live object handle -> 'texture' or 'surface'
        self.dynamic_shared_optin: dict[int, int] = {}   # host stub -> cudaFuncAttributeMaxDynamicSharedMemorySize
        self.function_cache_config: dict[int, int] = {}   # host stub -> cudaFuncSetCacheConfig
        self.function_carveout: dict[int, int] = {}   # host stub -> cudaFuncAttributePreferredSharedMemoryCarveout
        self.nonportable_clusters: set[int] = set()   # host stubs with cudaFuncAttributeNonPortableClusterSizeAllowed
        self.device_flags = 0
        self.limits: dict[int, int] = {}              # cudaDeviceSetLimit: cudaLimit -> the value set
        self.cache_config = 0                         # cudaDeviceSetCacheConfig (cudaFuncCachePreferNone)
        self.shared_mem_config = 0                    # cudaDeviceSetSharedMemConfig (cudaSharedMemBankSizeDefault)
        self.wall_events = _event_time() == "wall"    # events read the wall clock, not the predicted GPU's
        self.last_error = 0
        self.sticky_error = 0
        self.faults_as_memcheck = False               # memcheck watches: a fault is its launch failure (fault_code)
        self.fault_reported = False                   # a call other than cudaGetLastError has returned it
        self.sticky_error_read = False                # cudaGetLastError has returned the sticky error once
        self.clock = GpuClock(self.stream_settings)    # the predicted GPU's streams (gpu_clock.py)
        self.timeline_on = False                      # record TimelineEntry items (warpsim profile)
        self.timeline: list[TimelineEntry] = []
        self.at_exit: list = []                      # callables run when the program exits
        self.driver = None                            # the driver API's contexts and modules (driver.DriverState)
        self.runtime_bound = False                    # a runtime call needed a context before the driver's first
        self._handles = itertools.count(1)
        self._buffers: list = []                      # keeps handle cells alive

    @property
    def clock_on(self) -> bool:
        """Whether work advances the GPU clock: while the program has events, or a profile records the timeline."""
        return bool(self.events) and not self.wall_events or self.timeline_on

    def event_ms(self, stream: int = 0) -> float:
        """What cudaEventRecord on `stream` notes: the predicted GPU clock there (gpu_clock.py), or the
        host's wall clock ('wall')."""
        return time.perf_counter() * 1e3 if self.wall_events else self.clock.ready(stream)

    def advance(self, kind: str, name: str, ms: float, stream: int = 0, sm_share: float = 1.0,
                engine: str | None = None, **details) -> None:
        """Put one piece of work on the GPU clock (and note it on the timeline when recorded): on the
        SMs, a share of them, or on a copy engine."""
        start = self.clock.run(stream, ms, sm_share, engine)
        if self.timeline_on:
            self.timeline.append(TimelineEntry(kind, name, start, ms, stream, **details))

    # ------------------------------------------------------------ handles and strings

    def new_handle(self) -> int:
        """An address the program can keep as an opaque handle (a real 8-byte cell)."""
        cell = ctypes.c_uint64(next(self._handles))
        self._buffers.append(cell)
        return ctypes.addressof(cell)


    # ------------------------------------------------------------ registration

    def register_fatbin(self, wrapper: int) -> int:
        data, prelinked = fatbin_from_wrapper(wrapper)
        entries = parse_fatbin(fatbin_bytes_at(data))
        arch = self.preset.compute_capability[0] * 10 + self.preset.compute_capability[1]
        handle = self.new_handle()
        name = f"{os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else 'program')}.fatbin"
        if prelinked:                       # -rdc=true: nvlink's SASS here, each unit's PTX there
            units = [best_ptx(parse_fatbin(fatbin_bytes_at(address)), arch) for address in prelinked]
            if all(units):
                ptx = link_ptx([u.text for u in units])
                self.modules[handle] = FatbinModule(handle, ptx, name, min(u.arch for u in units))
                return handle
        self.modules[handle] = self.module_from_entries(handle, entries, name)
        return handle

    def module_from_entries(self, handle: int, entries: list, name: str) -> FatbinModule:
        """The module of a fatbinary's entries (registered, or given to cuModuleLoadData): the PTX of the
        highest architecture not above the GPU's, else (SASS only) the cubin for the SASS executor."""
        arch = self.preset.compute_capability[0] * 10 + self.preset.compute_capability[1]
        chosen = best_ptx(entries, arch)
        if chosen is None:
            cubin = best_sass(entries, arch)
            return FatbinModule(handle, "", name, cubin.arch if cubin else 0, cubin=cubin.payload if cubin else b"")
        return FatbinModule(handle, chosen.text, name, chosen.arch)

    def loaded(self, module: FatbinModule):
        if module.loaded is None:
            if module.ptx:
                module.loaded = self.device.load_module(module.ptx, name=module.name)
            elif module.cubin:
                from ..sass.loaded import load_cubin
                module.loaded = load_cubin(self.device, module.cubin, name=module.name)
            else:
                from ..errors import WarpsimError
                raise WarpsimError(f"{module.name} carries neither PTX nor an sm_80..sm_90 cubin: rebuild "
                                   "with `warpsim nvcc`, or add -gencode arch=compute_90,code=compute_90")
        return module.loaded

    # ------------------------------------------------------------ errors

    def launch_settings(self) -> dict:
        """The settings a launch runs with because of the program's limits (its stack size)."""
        if LIMIT_STACK_SIZE in self.limits:
            return {"stack_size": self.limits[LIMIT_STACK_SIZE]}
        return {}

    def watch_faults_as_memcheck(self) -> None:
        """`warpsim check` with memcheck: every access outside an allocation is an error (no
        tolerance of the GPU's mapped pages), and a fault is memcheck's launch failure."""
        self.faults_as_memcheck = True
        self.device.memory.mapped_page_bytes = None

    def launch_faulted(self, code: int) -> int:
        """A kernel faulted with `code`: what every later call returns. On a GPU the error is sticky
        (the context is lost). Under memcheck (compute-sanitizer on an H200, fault.cu:
        validation/programs/h200/native.json) the tool stops the kernel and the program sees
        cudaErrorLaunchFailure, returned by every call until cudaGetLastError, once a call
        has reported it, clears it. Returns the code."""
        if self.faults_as_memcheck:
            code = CODES["cudaErrorLaunchFailure"]
        self.sticky_error = code
        self.fault_reported = self.sticky_error_read = False
        return code

    def pending_error(self) -> int:
        """cudaPeekAtLastError: the last error, or a sticky fault that another call has returned and
        cudaGetLastError has not. On an H100 (CUDA 13.0, validation/programs/h100/) cudaGetLastError
        right after the faulting launch returns cudaSuccess (the launch is asynchronous there), the
        synchronize and every later call the fault, cudaGetLastError it once, and a second
        cudaGetLastError, or cudaPeekAtLastError then, cudaSuccess."""
        if self.sticky_error and self.fault_reported and not self.sticky_error_read:
            return self.sticky_error
        return self.last_error

    def clear_last_error(self) -> int:
        """cudaGetLastError: pending_error, then cleared; a sticky fault stays for the other calls
        (under memcheck, a launch failure once reported is cleared for them too)."""
        code = self.pending_error()
        self.last_error = 0
        if self.sticky_error and self.fault_reported and code == self.sticky_error:
            self.sticky_error_read = True
            if self.faults_as_memcheck:
                self.sticky_error = 0
        return code

    def fail(self, code: int) -> int:
        """Record a non-sticky error as the last error; returns it (what the call returns)."""
        if code:
            self.last_error = code
        return code

    def graph_memory_allocated(self, address: int) -> int:
        """An allocation node's launch: its graph-owned memory, at its one address, is live again."""
        self.graph_memory_freed.discard(address)
        return 0

    def free_graph_memory(self, address: int) -> int:
        """A free node's launch, or cudaFree[Async] outside the graph, of graph-owned memory: it stays
        at its address for the graph's next launch. Freeing it twice (cudaFree after the graph's own
        free node) is cudaErrorInvalidValue, as on an H100 (validation/programs/h100/)."""
        if address in self.graph_memory_freed:
            return self.fail(CODES["cudaErrorInvalidValue"])
        self.graph_memory_freed.add(address)
        return 0

    def check_sticky(self) -> int:
        return self.sticky_error
