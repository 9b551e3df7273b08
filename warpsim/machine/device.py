"""The simulated device: its memory, loaded modules and kernel launches.

A launch is cut into batches of CTAs that run one after another, each with
its own LaunchState, so a grid of millions of threads runs in bounded memory.
"""

from __future__ import annotations

import operator
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import (ClusterSizeMismatch, InternalError, InvalidValue, LaunchError, user_stacklevel,
                      WarpsimError)
from ..ptx.ir import Imm, Sym
from ..ptx.parser import parse_ptx
from ..ptx.verify import verify_module
from ..sessions import launch_observers, sessions_on
from ..settings import current as current_settings
from . import cluster
from . import cooperative as cooperative_launch
from . import device_launch
from .contraction import contract
from .dimensions import DIMENSION_LIMITS, MAX_BLOCK_THREADS, launch_dimensions  # noqa: F401 (re-exported)
from .engine import run_batch
from .events import Launch, LaunchRunner, observers_of
from .isa.moves import SPECIAL_REGISTERS
from .isa.operand_types import operand_types
from .isa.reserved_shared import with_reserved
from .memory import FUNCTION_POINTER_BASE, GlobalMemory
from .program import Program
from .state import LaunchState

MAX_SHARED_PER_BLOCK = 227 * 1024


@dataclass
class LaunchResult:
    kernel: str
    grid: tuple
    block: tuple
    shared_mem: int
    warp_instructions: int = 0
    thread_instructions: int = 0
    rounds: int = 0
    seconds: float = 0.0
    diagnostics: list = field(default_factory=list)


class LoadedModule:
    """A PTX module placed on a device: globals allocated, ready to launch."""

    def __init__(self, device: "Device", ptx: str, name: str = "<ptx>"):
        self.device = device
        self.name = name
        self.module = parse_ptx(ptx, name)
        verify_module(self.module, special_registers=SPECIAL_REGISTERS, operand_types=operand_types)
        self.contracted = contract(self.module)   # add/sub fused with a mul as ptxas fuses them
        try:
            self.program = Program(self.module, name)
        except WarpsimError:
            raise
        except Exception as exc:        # a bug in warpsim: said so, never a bare Python error
            raise InternalError(f"{name}: warpsim failed to load the module ({type(exc).__name__}: "
                                f"{exc}); this is a bug in warpsim, please report it with this PTX") from exc
        self.sources = self.program.sources   # source file name -> text (code given as a string)
        self._launch_shapes: dict = {}        # (kernel, grid, block, dynamic, batch_threads) -> _launch_shape
        self._parameter_bytes: dict = {}      # kernel -> bytes its parameters take
        self._params: dict = {}               # kernel -> params(kernel)
        with device.lock:
            self._allocate_globals()

    @property
    def kernel_names(self) -> list:
        return [k.name for k in self.module.kernels]

    def params(self, kernel: str) -> list:
        """(name, offset, size, align, ptx type) of each kernel parameter (worked out once per kernel:
        warpsim.cuda asks at every launch)."""
        found = self._params.get(kernel)
        if found is None:
            self._kernel(kernel)
            fn = self.module.functions[kernel]
            found = self._params[kernel] = tuple(
                (name, off, size, align, p.type if p.count is None else "b8")
                for (name, off, size, align), p in zip(self.program.param_layouts[kernel], fn.params))
        return list(found)

    def global_address(self, name: str) -> int:
        try:
            return self.program.global_addresses[name]
        except KeyError:
            raise KeyError(f"module '{self.name}' has no .global/.const variable '{name}'") from None

    def _kernel(self, kernel: str):
        """The kernel's Function, its instructions checked (before any launch)."""
        fn = self.module.functions.get(kernel)
        if fn is None or fn.kind != "entry" or not fn.has_body:
            raise WarpsimError(f"module '{self.name}' has no kernel '{kernel}' "
                               f"(kernels: {', '.join(self.kernel_names) or 'none'})")
        self.program.check_kernel(kernel)
        return fn

    def _allocate_globals(self):
        memory = self.device.memory
        pending = []
        for v in self.module.variables.values():
            if v.space not in ("global", "const") or v.linkage == "extern":
                continue
            address = memory.allocate(max(v.size, 1), max(v.alignment, 16), initialized=True)
            memory.memset(address, 0, max(v.size, 1))
            self.program.global_addresses[v.name] = address
            if v.init:
                pending.append((v, address))
        for v, address in pending:
            memory.write_bytes(address, self._initial_bytes(v))

    def _initial_bytes(self, v) -> bytes:
        from ..ptx.types import ptx_type
        t = ptx_type(v.type)
        out = bytearray()
        for e in v.init:
            if isinstance(e, Sym):
                value = self.program.global_addresses.get(e.name)
                if value is None and e.name in self.program.function_entry:    # a vtable's or table's function
                    value = FUNCTION_POINTER_BASE + self.program.function_entry[e.name]
                if value is None:
                    raise WarpsimError(f"{self.name}:{v.line}: initializer of '{v.name}' names "
                                       f"'{e.name}', which is neither a global variable nor a function")
                out += int(value + e.offset).to_bytes(t.nbytes, "little")
            elif isinstance(e, Imm):
                out += int(e.value).to_bytes(e.bits // 8, "little")[:t.nbytes]
            elif t.is_float:
                out += np.array(e, dtype=t.dtype).tobytes()
            else:
                out += int(e & ((1 << (8 * t.nbytes)) - 1)).to_bytes(t.nbytes, "little")
        return bytes(out[:v.size])

    # ------------------------------------------------------------ launch

    def launch(self, kernel: str, grid, block, params: bytes, shared_mem: int = 0,
               observers=(), cta_range: tuple | None = None, cluster_dims: tuple | None = None,
               cooperative: bool = False, settings=None, name_in_warnings: str | None = None,
               **overrides) -> LaunchResult:
        """Run the kernel over the grid (or only CTAs cta_range = (first, stop) of it, linear ids).

        cluster_dims: the launch's thread-block cluster shape (cudaLaunchKernelEx's cluster
        attribute), for a kernel that declares none; None: the kernel's own (machine.cluster).
        cooperative: a cooperative launch (cudaLaunchCooperativeKernel), whose CTAs may wait for
        each other at a grid-wide sync: the whole grid runs as one batch (machine.cooperative).
        settings: the Settings to run under, from a caller that has just read them (reading them
        looks at the environment); None: the current ones. Overrides apply on top of either.
        name_in_warnings: the kernel's name in the warnings of what the launch survived (a
        front end's name for it, where the PTX entry's is mangled); None: the entry's.

        A CTA range is for running one launch in shards (each shard a process
        of its own); CTAs outside it do not run. Launches on one device run one
        at a time, as on one stream, holding the device lock: host threads
        allocating or copying meanwhile wait for the launch to finish.
        """
        with self.device.lock:
            try:
                return self._launch(kernel, grid, block, params, shared_mem, observers, cta_range,
                                    overrides, cluster_dims, cooperative, settings, name_in_warnings)
            except (WarpsimError, MemoryError):
                raise
            except Exception as exc:    # a bug in warpsim: said so, never a bare Python error
                raise InternalError(f"warpsim failed while launching '{kernel}' ({type(exc).__name__}: "
                                    f"{exc}); this is a bug in warpsim, please report it with the "
                                    f"kernel", kernel=kernel) from exc

    def _launch(self, kernel, grid, block, params, shared_mem, observers, cta_range,
                overrides, cluster_dims=None, cooperative=False, settings=None,
                name_in_warnings=None) -> LaunchResult:
        self._kernel(kernel)
        grid, block = launch_dimensions(grid, "grid", kernel), launch_dimensions(block, "block", kernel)
        params = self._parameter_buffer(kernel, params)
        if settings is None:
            settings = current_settings()
        if overrides:
            from dataclasses import replace
            settings = replace(settings, **overrides)
        # A loop of launches checks its shape once (a shape with a plain-int shared size).
        if cluster_dims is not None:
            cluster_dims = cluster.launch_cluster_dims(self.program, kernel, cluster_dims)
        shape_key = (kernel, grid, block, shared_mem, settings.batch_threads, cluster_dims)
        shape = self._launch_shapes.get(shape_key) if type(shared_mem) is int else None
        if shape is None:
            shape = self._launch_shape(kernel, grid, block, shared_mem, settings.batch_threads, cluster_dims)
            if type(shared_mem) is int:
                if len(self._launch_shapes) > 256:
                    self._launch_shapes.clear()
                self._launch_shapes[shape_key] = shape
        shared_total, per_batch, dynamic = shape
        layout = self.program.layout
        launch = None
        if sessions_on():                       # (no session anywhere: no source has observers)
            launch = Launch(self, kernel, grid, block, shared_total, dynamic, params)
            observers = (*observers, *launch_observers(launch))
        if observers and cta_range is None and not cooperative:
            launch = launch or Launch(self, kernel, grid, block, shared_total, dynamic, params)
            ran = _run_elsewhere(launch, settings, observers, cluster_dims or cluster.cluster_dims(self.program, kernel))
            if ran is not None:
                return ran
        if observers:
            started, finished, failed, done, memory_observers = (observers_of(observers, event) for event in
                                                                 ("batch_started", "batch_finished", "launch_failed",
                                                                  "launch_finished", "memory_access"))
        else:                                   # no session on and none passed: nobody to ask
            started, finished, failed, done, memory_observers = [], [], [], [], []
        padded = params.ljust((len(params) + 15) // 16 * 16 or 16, b"\0")   # whole 16-byte words
        param_buf = np.frombuffer(padded, dtype=np.uint8).copy()          # (NumPy's own, aligned, writable)
        n_ctas = grid[0] * grid[1] * grid[2]
        result = LaunchResult(kernel, grid, block, dynamic)
        start = time.perf_counter()
        first_cta, stop_cta = (0, n_ctas) if cta_range is None else _cta_range(cta_range, n_ctas, kernel)
        progress = None                 # a _Progress once the launch has run a second (settings.progress)
        workspace = 0
        if cooperative:
            per_batch = cooperative_launch.whole_grid(kernel, n_ctas, cta_range)
            workspace = cooperative_launch.workspace(self.device)
        children: list = []
        for first in range(first_cta, stop_cta, per_batch):
            cta_ids = _batch_ids(first, min(stop_cta, first + per_batch), stop_cta - first_cta <= per_batch)
            ctx = LaunchState(self.program, kernel, grid, block, cta_ids, param_buf,
                              shared_total, dynamic, self.device.memory, settings)
            ctx.launch_cluster = cluster_dims
            if layout.local_size:
                ctx.ensure_local(layout.local_size)
            ctx.memory_observers = memory_observers
            ctx.grid_workspace = workspace
            for obs in started:
                obs.batch_started(ctx)
            try:
                run_batch(ctx, observers)
            except LaunchError as exc:       # sanitizer tools report the fault, then it propagates
                for obs in failed:
                    obs.launch_failed(ctx, exc)
                raise
            result.warp_instructions += ctx.issued
            result.thread_instructions += ctx.thread_instructions
            result.rounds += ctx.rounds
            result.diagnostics.extend(ctx.diagnostics)
            children.extend(device_launch.finished(ctx))
            for obs in finished:
                obs.batch_finished(ctx)
            if settings.progress and (progress is not None or time.perf_counter() - start >= 1.0):
                progress = progress or _Progress(stop_cta - first_cta, kernel, start)
                progress.update(int(cta_ids[-1]) + 1 - first_cta)
        if progress is not None:
            progress.close()
        result.seconds = time.perf_counter() - start
        for obs in done:
            obs.launch_finished(result)
        if result.diagnostics:
            _warn_once(result.diagnostics, name_in_warnings or kernel)
        if children:                         # grids the kernel launched (dynamic parallelism)
            device_launch.run_children(self, children, overrides)
        return result


    def _launch_shape(self, kernel, grid, block, shared_mem, batch_threads, cluster_dims=None) -> tuple:
        """(shared bytes per CTA, CTAs per batch, dynamic shared bytes) of a launch shape, after the
        checks that depend only on it, in the order a launch makes them."""
        threads = block[0] * block[1] * block[2]
        _check_thread_bounds(self.module.functions[kernel], block, threads)
        try:
            dynamic = operator.index(shared_mem)
        except TypeError:
            raise InvalidValue(f"the dynamic shared memory size must be an int number of bytes, "
                               f"got {shared_mem!r}", kernel=kernel) from None
        if dynamic < 0:
            raise InvalidValue(f"{dynamic} bytes of dynamic shared memory (a negative size)",
                               kernel=kernel)
        needed = self.program.kernel_static_shared.get(kernel, 0) + dynamic
        if needed > MAX_SHARED_PER_BLOCK:
            raise InvalidValue(f"{needed} bytes of shared memory per block exceed the "
                               f"{MAX_SHARED_PER_BLOCK} bytes an SM offers", kernel=kernel)
        shared_total = (self.program.dynamic_shared_base + dynamic if dynamic else
                        self.program.kernel_static_shared.get(kernel, 0))
        shared_total = with_reserved(self.program, kernel, shared_total)   # sm_90's reserved 1 KB, if read
        per_batch = max(1, batch_threads // (((threads + 31) // 32) * 32))
        per_batch = _cluster_batch(self.program, kernel, grid, per_batch, cluster_dims)   # whole clusters per batch
        return shared_total, per_batch, dynamic

    def _parameter_buffer(self, kernel: str, params) -> bytes:
        """The launch's parameter bytes, at least as many as the kernel's parameters take."""
        if type(params) is not bytes:
            try:
                params = bytes(memoryview(params).cast("B"))
            except (TypeError, ValueError):
                raise InvalidValue(f"the parameter buffer must be bytes (or a contiguous buffer), got "
                                   f"{type(params).__name__}", kernel=kernel) from None
        needed = self._parameter_bytes.get(kernel)
        if needed is None:
            needed = self._parameter_bytes[kernel] = max(
                (off + size for _, off, size, _ in self.program.param_layouts[kernel]), default=0)
        if len(params) < needed:
            raise InvalidValue(f"the parameter buffer has {len(params)} bytes; the kernel's "
                               f"parameters take {needed}", kernel=kernel)
        return params


_ONE_BATCH_IDS: dict = {}     # (first, stop) -> the read-only CTA ids of a launch that is one batch


def _batch_ids(first: int, stop: int, whole_launch: bool) -> np.ndarray:
    """The linear ids of a batch's CTAs; for a launch of one batch, read-only and kept per range
    (a loop of small launches runs the same range every time)."""
    if not whole_launch:
        return np.arange(first, stop, dtype=np.int64)
    ids = _ONE_BATCH_IDS.get((first, stop))
    if ids is None:
        ids = np.arange(first, stop, dtype=np.int64)
        ids.setflags(write=False)
        if len(_ONE_BATCH_IDS) > 64:
            _ONE_BATCH_IDS.clear()
        _ONE_BATCH_IDS[(first, stop)] = ids
    return ids


def _run_elsewhere(launch, settings, observers, cluster_dims):
    """The result of a runner among the observers that ran the launch itself (events.LaunchRunner),
    after telling the observers it has finished; None when the PTX machine is to run it."""
    for runner in observers:
        if isinstance(runner, LaunchRunner):
            result = runner.run_instead(launch, settings, [o for o in observers if o is not runner], cluster_dims)
            if result is not None:
                for obs in observers_of(observers, "launch_finished"):
                    obs.launch_finished(result)
                return result
    return None


def _cluster_batch(program, kernel, grid, per_batch, launch_dims=None) -> int:
    """CTAs per batch holding whole thread-block clusters (sm_90), after checking the grid."""
    dims = launch_dims or cluster.cluster_dims(program, kernel)
    problem = cluster.check_grid(grid, dims)
    if problem:
        raise ClusterSizeMismatch(problem, kernel=kernel)
    return cluster.batch_size(per_batch, grid, dims)


class SyncWarning(UserWarning):
    """Undefined behaviour of a warp-synchronous instruction that the launch survived."""


def _warn_once(diagnostics, kernel: str):
    """One SyncWarning per (kind, PTX line) of the launch's diagnostics, at the user's line."""
    seen = set()
    for d in diagnostics:
        key = (d["kind"], d["ptx_line"])
        if key in seen:
            continue
        seen.add(key)
        src = f" ({d['source_line']})" if d.get("source_line") else ""
        warnings.warn(SyncWarning(f"{kernel}: {d['message']}, block {d['block']} thread "
                                  f"{d['thread']}, at PTX line {d['ptx_line']}: {d['instruction']}{src}"),
                      stacklevel=user_stacklevel())


class _Progress:
    """CTAs done / total on stderr, only on a terminal and only for slow launches."""

    def __init__(self, total: int, kernel: str, start: float | None = None):
        """start: the launch's perf_counter when it began (default: now)."""
        self.total, self.kernel = total, kernel
        self.start = time.perf_counter() if start is None else start
        self.shown = False
        self.enabled = None        # whether stderr is a terminal: asked once the launch is slow (a system call)

    def update(self, done: int):
        if self.enabled is False or time.perf_counter() - self.start < 1.0:
            return
        if self.enabled is None:
            self.enabled = sys.stderr.isatty()
            if not self.enabled:
                return
        self.shown = True
        width = 30
        filled = width * done // self.total
        elapsed = time.perf_counter() - self.start
        left = elapsed * (self.total - done) / max(done, 1)
        sys.stderr.write(f"\r{self.kernel[:40]} [{'#' * filled}{'.' * (width - filled)}] "
                         f"{done}/{self.total} CTAs  {elapsed:.0f} s, ~{left:.0f} s left ")
        sys.stderr.flush()

    def close(self):
        if self.shown:
            sys.stderr.write("\n")


def _check_thread_bounds(fn, block: tuple, threads: int) -> None:
    """.maxntid (__launch_bounds__) and .reqntid, refused as the driver refuses them: both
    CUDA_ERROR_INVALID_VALUE on the H200 (validation/launch_errors)."""
    maxntid = fn.directives.get("maxntid")
    if maxntid and threads > _product(maxntid):
        raise InvalidValue(f"a block of {threads} threads is more than the kernel's .maxntid "
                           f"{tuple(maxntid)} (__launch_bounds__) allows", kernel=fn.name)
    reqntid = fn.directives.get("reqntid")
    if reqntid and tuple(block) != tuple(reqntid) + (1,) * (3 - len(reqntid)):
        raise InvalidValue(f"the kernel requires blocks of {tuple(reqntid)} threads (.reqntid), "
                           f"not {tuple(block)}", kernel=fn.name)


def _product(values) -> int:
    total = 1
    for v in values:
        total *= int(v)
    return total


def _cta_range(cta_range, n_ctas: int, kernel: str) -> tuple:
    first, stop = (int(v) for v in cta_range)
    if not 0 <= first < stop <= n_ctas:
        raise LaunchError(f"CTA range {tuple(cta_range)} is not within the grid's {n_ctas} CTAs",
                          kernel=kernel)
    return first, stop


class Device:
    """One simulated GPU: a global heap and the modules loaded on it.

    `lock` (the heap's lock) serializes launches with each other and with
    allocation, frees and copies, so Python threads may share a device.
    """

    def __init__(self, memory_size: int | None = None):
        """memory_size: bytes of global memory (default: the `device_memory` setting, capped by the host's)."""
        self.memory = GlobalMemory(limit=memory_size)
        self.lock = self.memory.lock

    def load_module(self, ptx: str, name: str = "<ptx>") -> LoadedModule:
        return LoadedModule(self, ptx, name)


_default: Device | None = None


_default_lock = threading.Lock()


def default_device() -> Device:
    global _default
    if _default is not None:        # (made once: a launch loop asks at every launch)
        return _default
    with _default_lock:
        if _default is None:
            _default = Device()
        return _default
