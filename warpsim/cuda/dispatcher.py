"""What `@cuda.jit` returns: numba.cuda's dispatcher, launching on warpsim.

  * `Dispatcher` is what `@cuda.jit` returns for a kernel. Like Numba's, it
    types the arguments of each launch (numba.cuda's own `typeof`), compiles
    one specialization per signature (warpsim.frontends.numba) and caches it,
    or, when signatures were given, picks the overload the arguments convert to.
  * `CompiledKernel` is one specialization: its PTX, loaded once per device,
    launched with the arguments marshalled in Numba's ABI (abi.py).

With `debug=True` Numba's exception model works: a kernel that raises makes
the launch raise the same exception, prefixed with the thread and block, as
on a GPU. Device functions (`@cuda.jit(device=True)`) stay Numba's own
dispatchers: a kernel that calls one is typed and compiled by Numba as usual.

Limits: linked cubins/fatbins/LTO-IR are refused with an explicit error;
`cache=True` is accepted and compiles again in each process; streams are
accepted and ignored (every launch runs to completion in order).
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import math
import operator
import os
import re
import warnings

import numpy as np

from .. import api
from ..api.args import KernelArgumentError
from ..api.kernel_attributes import DEFAULT_DYNAMIC_SHARED_LIMIT, KernelAttributes
from ..errors import LaunchError, LaunchRefused
from ..frontends.numba import DEFAULT_CC, compile_kernel as compile_to_ptx
from ..machine.device import MAX_BLOCK_THREADS
from .abi import ParameterLayout, argument_types, flatten_arguments, user_stacklevel
from .errors import InvalidConfiguration, InvalidValue, LaunchConfigurationError, as_numba_refusal

__all__ = ["DEFAULT_CC", "CompiledKernel", "Dispatcher", "LaunchConfiguration", "ForAll",
           "compile_kernel", "jit"]


@contextlib.contextmanager
def numba_sees_simulated_device():
    """While compiling, numba-cuda's "current device" is warpsim's simulated one.

    numba-cuda asks its runtime for the current device's compute capability
    when it compiles a device function (deep inside type inference of the
    calling kernel), which needs a driver. Its runtime first consults a
    thread-local slot meant for contexts attached by third parties; warpsim
    attaches its own context there for the duration of a compilation.
    """
    from numba.cuda.cudadrv import devices
    from .driver import current_context
    runtime = devices._runtime
    previous = runtime._get_attached_context()
    runtime._set_attached_context(current_context())
    try:
        yield
    finally:
        runtime._set_attached_context(previous)



def compile_kernel(py_func, argtypes, *, extensions=(), launch_bounds=None, **options) -> "CompiledKernel":
    """Compile `py_func` for `argtypes` (Numba types) while numba-cuda sees warpsim's device."""
    with numba_sees_simulated_device():
        compiled = compile_to_ptx(py_func, argtypes, launch_bounds=launch_bounds, **options)
    return CompiledKernel(py_func, compiled.cres, compiled.ptx, compiled.entry, debug=compiled.debug,
                          launch_bounds=launch_bounds, extensions=extensions)


class CompiledKernel(KernelAttributes):
    """One specialization of a kernel: PTX for fixed argument types, loaded per device.

    Its attributes are those of a CuPy kernel (warpsim.api.kernel_attributes): registers from
    ptxas, max_threads_per_block from them and the launch bound, and the dynamic shared
    memory opt-in `max_dynamic_shared_size_bytes` (settable; 48 KB less the static part until
    then). A launch past either limit is refused as the driver refuses it. numba-cuda itself
    has no public opt-in (NVIDIA/numba-cuda#94): on a GPU it takes cuFuncSetAttribute on the
    kernel's driver handle, which warpsim spells as this attribute.
    """

    _opt_in_example = "kernel.max_dynamic_shared_size_bytes = {size} (on the @cuda.jit dispatcher)"

    def __init__(self, py_func, cres, ptx: str, entry: str, debug: bool = False, launch_bounds=None,
                 extensions=()):
        self.py_func, self.ptx, self.entry_name, self.debug = py_func, ptx, entry, debug
        self.extensions = extensions if extensions is not None else []  # shared: may grow
        self.signature = cres.signature
        self.call_helper = cres.call_helper
        self.library = cres.library
        self.type_annotation = self._type_annotation = cres.type_annotation
        self.launch_bounds = launch_bounds
        self._loaded: dict[int, tuple] = {}
        self._layouts: dict[int, tuple] = {}     # id(loaded module) -> (it, its ParameterLayout)
        self.name = f"{py_func.__module__}.{py_func.__qualname__}"

    @property
    def argument_types(self) -> tuple:
        return tuple(self.signature.args)

    @property
    def readable_name(self) -> str:
        """'name(array(int32, 1d, C), int64)': the kernel as its user knows it."""
        return f"{self.py_func.__qualname__}({', '.join(map(str, self.argument_types))})"

    def loaded(self, device=None):
        """The module on `device` (default: the current one), loaded on first use."""
        device = device or api.current_device()
        entry = self._loaded.get(id(device))
        if entry is None:
            source = getattr(self.py_func, "__code__", None)
            name = source.co_filename if source else self.name
            entry = self._loaded[id(device)] = (device, device.load_module(self.ptx, name=name))
        return entry[1]

    def _parameter_layout(self, loaded) -> ParameterLayout:
        """Where the arguments' bytes go in the kernel's parameter buffer on `loaded` (kept per module)."""
        kept = self._layouts.get(id(loaded))
        if kept is None or kept[0] is not loaded:
            kept = self._layouts[id(loaded)] = (loaded, ParameterLayout(self.entry_name, loaded.params(self.entry_name)))
        return kept[1]

    def _attribute_kernel(self):
        return self.loaded(), self.entry_name

    # Resource questions (the same methods as Numba's _Kernel) ----------------
    @property
    def shared_mem_per_block(self) -> int:
        return self.loaded().program.layout.static_shared_size

    @property
    def local_mem_per_thread(self) -> int:
        return self.loaded().program.layout.local_size

    @property
    def const_mem_size(self) -> int:
        module = self.loaded().module
        return sum(v.size for v in module.variables.values() if v.space == "const")

    @property
    def regs_per_thread(self) -> int:
        """Registers per thread, from ptxas when one is installed, else warpsim's estimate."""
        return self.num_regs

    @property
    def launch_bound(self) -> int:
        """The most threads `launch_bounds=` lets a block have (1024 without one)."""
        bounds = self.launch_bounds
        return int(bounds[0] if isinstance(bounds, (tuple, list)) else bounds or 1024)

    def inspect_asm(self, cc=None) -> str:
        return self.ptx

    def inspect_llvm(self) -> str:
        return self.library.get_llvm_str()

    def inspect_types(self, file=None) -> None:
        print(f"{self.py_func.__name__} {self.argument_types}", file=file)
        print("-" * 80, file=file)
        print(self.type_annotation, file=file)
        print("=" * 80, file=file)

    # Launching ------------------------------------------------------------
    def launch(self, args, griddim, blockdim, stream=0, sharedmem=0):
        """Run the kernel once; host arrays come back updated, as with Numba."""
        device = api.current_device()
        loaded = self.loaded(device)
        sharedmem = _byte_count(sharedmem, self)
        self._check_launch_bounds(blockdim)
        cooperative = bool(self.library.use_cooperative)     # cg.this_grid(): launched as Numba does
        try:
            self.check_launch_resources(tuple(blockdim), sharedmem)
            if cooperative:
                self.check_co_resident(griddim, blockdim, sharedmem)
        except LaunchRefused as refusal:
            raise as_numba_refusal(refusal, self.readable_name) from None
        writebacks: list = []
        try:
            pieces = flatten_arguments(self.argument_types, args, writebacks, self.extensions, stream)
            params = self._parameter_layout(loaded).pack(pieces)
        except KernelArgumentError as error:
            raise KernelArgumentError(f"kernel '{self.readable_name}' {error}") from None
        if self.debug:
            self._clear_exception(loaded, device)
        try:        # (what the launch survived is told at the user's line, by the Python name)
            loaded.launch(self.entry_name, griddim, blockdim, params, shared_mem=sharedmem,
                          cooperative=cooperative, name_in_warnings=self.readable_name)
        except LaunchRefused as refusal:      # nothing ran: the driver's refusal, as Numba raises it
            raise as_numba_refusal(refusal, self.readable_name) from None
        except LaunchError as error:
            raise _with_python_source(error, self) from None
        if self.debug:
            self._raise_kernel_exception(loaded, device)
        for writeback in writebacks:
            writeback()

    def _check_launch_bounds(self, blockdim) -> None:
        threads = math.prod(int(d) for d in blockdim)
        if threads > MAX_BLOCK_THREADS:
            raise InvalidConfiguration(f"a block of {threads} threads exceeds the {MAX_BLOCK_THREADS} "
                                       f"threads a block can have", kernel=self.readable_name)
        if threads > self.launch_bound:     # the PTX's .maxntid: the driver's rule for it
            raise InvalidValue(f"a block of {threads} threads exceeds the kernel's launch bound of "
                               f"{self.launch_bound} threads (launch_bounds={self.launch_bounds!r})",
                               kernel=self.readable_name)

    def _symbol(self, loaded, device, name: str, value=None) -> int:
        address = loaded.global_address(f"{self.entry_name}__{name}__")
        if value is not None:
            device.memory.write_bytes(address, np.int32(value).tobytes())
            return value
        return int(np.frombuffer(bytes(device.memory.read_bytes(address, 4)), np.int32)[0])

    def _clear_exception(self, loaded, device) -> None:
        try:
            self._symbol(loaded, device, "errcode", 0)
        except KeyError:
            self.debug = False  # no exception globals: nothing can raise

    def _raise_kernel_exception(self, loaded, device) -> None:
        """Numba's debug exception model: re-raise what a thread raised, naming the thread."""
        code = self._symbol(loaded, device, "errcode")
        if code == 0:
            return
        tid = [self._symbol(loaded, device, f"tid{axis}") for axis in "zyx"]
        ctaid = [self._symbol(loaded, device, f"ctaid{axis}") for axis in "zyx"]
        exception_class, exception_args, location = self.call_helper.get_exception(code)
        where = ""
        if location is not None:
            function, path, line = location
            where = f"In function {function!r}, file {os.path.abspath(path)}, line {line}, "
        prefix = f"{where}tid={tid} ctaid={ctaid}"
        exception_args = ((f"{prefix}: {exception_args[0]}",) + tuple(exception_args[1:])
                          if exception_args else (prefix,))
        raise exception_class(*exception_args)


def _short(value) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) < 60 else text[:57] + "..."


def _typing_failure(error: Exception, name: str, argtypes) -> KernelArgumentError:
    """Numba could not compile the kernel for the arguments' types: a KernelArgumentError that
    is also the error Numba raised (TypingError, ...), so a program catching either still does."""
    message = (f"kernel '{name}' cannot be compiled for the argument types "
               f"({', '.join(map(str, argtypes))}): {type(error).__name__}: {_first_lines(error)}")
    try:
        both = type(f"Kernel{type(error).__name__}", (KernelArgumentError, type(error)), {})
        return both(message)
    except TypeError:                    # a class that cannot be mixed in (or built from a message)
        return KernelArgumentError(message)


def _first_lines(error: Exception, count: int = 6) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return "\n".join(lines[:count]) + ("\n..." if len(lines) > count else "")


def _byte_count(sharedmem, kernel: "CompiledKernel") -> int:
    """The dynamic shared memory size as an int (an integral NumPy scalar will do)."""
    try:
        return operator.index(sharedmem)
    except TypeError:
        raise InvalidValue(f"the dynamic shared memory size must be an int number of bytes, got "
                           f"{sharedmem!r}", kernel=kernel.readable_name) from None


def _with_python_source(error: LaunchError, kernel: "CompiledKernel") -> LaunchError:
    """The same error, naming the Python kernel (not its mangled PTX name) and showing
    the text of the kernel's Python line after its file:line."""
    message = error.args[0] if error.args else ""
    readable = kernel.readable_name
    if error.kernel:
        message = message.replace(f"kernel: {error.kernel}", f"kernel: {readable}")
        error.kernel = readable
    match = re.fullmatch(r"(.+):(\d+)", error.source_line or "")
    if match and os.path.exists(match.group(1)):
        text = linecache.getline(match.group(1), int(match.group(2))).strip()
        if text:
            message += f"\n    {text}"
    error.args = (message,) + tuple(error.args[1:])
    return error.with_traceback(None)


# --- dispatching ----------------------------------------------------------------

class LaunchConfiguration:
    """`kernel[grid, block, stream, shared_mem]`: call it with the kernel's arguments."""

    def __init__(self, dispatcher, griddim, blockdim, stream=0, sharedmem=0):
        self.dispatcher = dispatcher
        plain = _plain_dimension(griddim) and _plain_dimension(blockdim)
        dims = _NORMALIZED.get((griddim, blockdim)) if plain else None
        if dims is None:
            from numba.cuda.errors import normalize_kernel_dimensions
            try:
                dims = normalize_kernel_dimensions(griddim, blockdim)
            except (TypeError, ValueError) as error:   # Numba's own refusal, naming the kernel
                raise LaunchConfigurationError(
                    f"kernel[griddim, blockdim]: griddim={_short(griddim)}, blockdim={_short(blockdim)}: "
                    f"{str(error).strip().splitlines()[0]}", kernel=dispatcher.py_func.__qualname__) from None
            if plain and len(_NORMALIZED) < 4096:
                _NORMALIZED[(griddim, blockdim)] = dims
        self.griddim, self.blockdim = dims
        self.stream, self.sharedmem = stream, sharedmem
        _warn_low_occupancy(self.griddim)

    def __call__(self, *args):
        return self.dispatcher.call(args, self.griddim, self.blockdim, self.stream, self.sharedmem)


_NORMALIZED: dict = {}     # (griddim, blockdim) of plain ints -> Numba's normalized pair (a launch loop's every call)


def _plain_dimension(value) -> bool:
    """An int or a tuple of ints: Numba's normalization of it depends on the value alone."""
    return type(value) is int or (type(value) is tuple and all(type(v) is int for v in value))


def _warn_low_occupancy(griddim) -> None:
    """Numba's warning for grids under 128 blocks (config.CUDA_LOW_OCCUPANCY_WARNINGS)."""
    blocks = griddim[0] * griddim[1] * griddim[2]
    if blocks >= 128:
        return
    config, warning = _numba_performance_warning()
    if config.CUDA_LOW_OCCUPANCY_WARNINGS and not config.DISABLE_PERFORMANCE_WARNINGS:
        warnings.warn(warning(
            f"Grid size {blocks} will likely result in GPU under-utilization due to low "
            "occupancy."), stacklevel=user_stacklevel())


@functools.cache
def _numba_performance_warning() -> tuple:
    """(numba.cuda's config module, NumbaPerformanceWarning), imported once (a small launch warns every time)."""
    from numba.cuda.core import config
    from numba.cuda.core.errors import NumbaPerformanceWarning
    return config, NumbaPerformanceWarning


class ForAll:
    """`kernel.forall(n)`: a 1-D launch of n threads (block size 128 unless given)."""

    def __init__(self, dispatcher, ntasks: int, tpb: int = 0, stream=0, sharedmem=0):
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        self.dispatcher, self.ntasks = dispatcher, ntasks
        self.tpb, self.stream, self.sharedmem = tpb or 128, stream, sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:
            return None
        blocks = (self.ntasks + self.tpb - 1) // self.tpb
        return self.dispatcher[blocks, self.tpb, self.stream, self.sharedmem](*args)


_MISSING_CONFIG = ("Kernel launch configuration was not specified. Use the syntax:\n\n"
                   "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)\n\n"
                   "See https://nvidia.github.io/numba-cuda/user/kernels.html#kernel-invocation "
                   "for help.")


class Dispatcher:
    """A `@cuda.jit` kernel: compiled per argument types on first launch, run on warpsim.

    The Numba dispatcher's public surface: `kernel[grid, block](...)`,
    `configure`, `forall`, `specialize`, `overloads`, `signatures`,
    `inspect_asm`, `inspect_types`, and the resource getters
    (`get_regs_per_thread` from ptxas when it is installed, else warpsim's
    estimate; `get_shared_mem_per_block`, ...).
    """

    def __init__(self, py_func, twin, signatures=None, lineinfo=None):
        self.py_func = py_func
        self._twin = twin      # numba's own dispatcher for this function: options, device calls
        self.targetoptions = dict(twin.targetoptions)
        self.targetoptions.setdefault("extensions", [])
        self._lineinfo = lineinfo
        self.overloads: dict[tuple, CompiledKernel] = {}
        self._compile_enabled = True
        self._specialized = False
        self._dynamic_shared_opt_in: int | None = None
        self.specializations: dict[tuple, Dispatcher] = {}
        functools.update_wrapper(self, py_func)
        for signature in signatures or ():
            self.compile(_signature_args(signature))
        if signatures:
            self._specialized = len(signatures) == 1 and not isinstance(signatures, list)
            self._compile_enabled = False

    def __repr__(self) -> str:
        return f"<warpsim Numba kernel {self.py_func.__qualname__}>"

    def __call__(self, *args, **kwargs):
        name = self.py_func.__qualname__
        raise LaunchConfigurationError(
            f"{_MISSING_CONFIG}\n{name}(...) was called without one: launch it as "
            f"{name}[blockspergrid, threadsperblock](...)", kernel=name)

    def __getitem__(self, config) -> LaunchConfiguration:
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
            items = config if isinstance(config, tuple) else (config,)
            name = self.py_func.__qualname__
            raise LaunchConfigurationError(
                f"must specify at least the griddim and blockdim: {name}[griddim, blockdim] or "
                f"{name}[griddim, blockdim, stream, sharedmem], got {name}[{', '.join(map(_short, items))}] "
                f"({len(items)} item{'s' if len(items) != 1 else ''})", kernel=name)
        return self.configure(*config)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0) -> LaunchConfiguration:
        return LaunchConfiguration(self, griddim, blockdim, stream, sharedmem)

    def forall(self, ntasks: int, tpb: int = 0, stream=0, sharedmem=0) -> ForAll:
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    @property
    def _numba_type_(self):
        """Called from another kernel, this kernel is a device function: Numba's twin types it."""
        return self._twin._numba_type_

    @property
    def specialized(self) -> bool:
        return self._specialized

    @property
    def signatures(self) -> list:
        return list(self.overloads)

    @property
    def extensions(self):
        return self.targetoptions.get("extensions")

    def disable_compile(self, value: bool = True) -> None:
        self._compile_enabled = not value

    def compile(self, argtypes) -> CompiledKernel:
        """The specialization for `argtypes` (a tuple of Numba types), compiled if new."""
        argtypes = tuple(argtypes)
        kernel = self.overloads.get(argtypes)
        if kernel is None:
            if not self._compile_enabled:
                raise TypeError(f"compilation disabled for {self.py_func.__qualname__}{argtypes}")
            options = dict(self.targetoptions, lineinfo=self._lineinfo)
            kernel = compile_kernel(self.py_func, argtypes, **options)
            if self._dynamic_shared_opt_in is not None:
                kernel.max_dynamic_shared_size_bytes = self._dynamic_shared_opt_in
            self.overloads[argtypes] = kernel
        return kernel

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        """The most dynamic shared memory a launch may ask for: 48 KB less the static part
        until raised (the opt-in CUDA's cudaFuncSetAttribute(..., MaxDynamicSharedMemorySize)
        makes; CuPy's RawKernel has the same attribute)."""
        if self._dynamic_shared_opt_in is not None:
            return self._dynamic_shared_opt_in
        if len(self.overloads) == 1:
            return next(iter(self.overloads.values())).max_dynamic_shared_size_bytes
        return DEFAULT_DYNAMIC_SHARED_LIMIT

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        """Opt every specialization in, those compiled later too."""
        for kernel in self.overloads.values():
            kernel.max_dynamic_shared_size_bytes = value
        self._dynamic_shared_opt_in = int(value)

    def specialize(self, *args) -> "Dispatcher":
        """A dispatcher compiled for exactly these arguments' types."""
        if self._specialized:
            raise RuntimeError("Dispatcher already specialized")
        argtypes = argument_types(args)
        specialization = self.specializations.get(argtypes)
        if specialization is None:
            specialization = Dispatcher(self.py_func, self._twin, lineinfo=self._lineinfo)
            specialization._dynamic_shared_opt_in = self._dynamic_shared_opt_in
            specialization.overloads[argtypes] = self.compile(argtypes)
            specialization._compile_enabled, specialization._specialized = False, True
            self.specializations[argtypes] = specialization
        return specialization

    def call(self, args, griddim, blockdim, stream=0, sharedmem=0):
        args = tuple(args)
        name = self.py_func.__qualname__
        if len(args) != len(_parameters(self.py_func)):
            raise KernelArgumentError(f"kernel '{name}' takes {len(_parameters(self.py_func))} "
                                      f"argument(s) ({', '.join(_parameters(self.py_func))}), {len(args)} given")
        try:
            argtypes = None if self._specialized else argument_types(args)
        except KernelArgumentError as error:
            raise KernelArgumentError(f"kernel '{name}' {error}") from None
        kernel = self._select(argtypes)
        kernel.launch(args, griddim, blockdim, stream, sharedmem)

    def _select(self, argtypes) -> CompiledKernel:
        if self._specialized:  # as Numba: one signature, arguments taken as its types unchecked
            return next(iter(self.overloads.values()))
        kernel = self.overloads.get(argtypes)
        if kernel is not None:
            return kernel
        if self._compile_enabled:
            try:
                return self.compile(argtypes)
            except Exception as error:       # noqa: BLE001 (Numba's typing errors, and its own bugs)
                raise _typing_failure(error, self.py_func.__qualname__, argtypes) from error
        return self._convertible_overload(argtypes)

    def _convertible_overload(self, argtypes) -> CompiledKernel:
        """With fixed signatures: the overload Numba's own rules pick (ties are an error)."""
        from numba.cuda.descriptor import cuda_target
        by_signature = {kernel.signature: kernel for kernel in self.overloads.values()}
        best = cuda_target.typing_context.resolve_overload(
            self.py_func, list(by_signature), argtypes, {}, allow_ambiguous=False)
        if best is None:
            raise KernelArgumentError(f"kernel '{self.py_func.__qualname__}': No matching definition for "
                                      f"argument type(s) {', '.join(map(str, argtypes))} (signatures: "
                                      f"{', '.join(str(s) for s in by_signature)})")
        return by_signature[best]

    # Inspection ---------------------------------------------------------------
    def _one_or_all(self, signature, get):
        if signature is not None:
            args = signature.args if hasattr(signature, "args") else tuple(signature)
            return get(self.overloads[tuple(args)])
        if self._specialized:
            return get(next(iter(self.overloads.values())))
        return {argtypes: get(kernel) for argtypes, kernel in self.overloads.items()}

    def _each(self, signature, get):
        """One signature's answer, or (as Numba's inspect_*) a dict over all signatures."""
        if signature is not None:
            return get(self.overloads[tuple(getattr(signature, "args", signature))])
        return {argtypes: get(kernel) for argtypes, kernel in self.overloads.items()}

    def inspect_asm(self, signature=None):
        return self._each(signature, lambda kernel: kernel.ptx)

    def inspect_llvm(self, signature=None):
        return self._each(signature, lambda kernel: kernel.inspect_llvm())

    def inspect_lto_ptx(self, signature=None):
        """The PTX warpsim runs: Numba's, with the code it links merged in (no LTO)."""
        return self._each(signature, lambda kernel: kernel.ptx)

    def inspect_types(self, file=None, **kwargs) -> None:
        for kernel in self.overloads.values():
            kernel.inspect_types(file=file)

    def get_shared_mem_per_block(self, signature=None):
        return self._one_or_all(signature, lambda kernel: kernel.shared_mem_per_block)

    def get_local_mem_per_thread(self, signature=None):
        return self._one_or_all(signature, lambda kernel: kernel.local_mem_per_thread)

    def get_const_mem_size(self, signature=None):
        return self._one_or_all(signature, lambda kernel: kernel.const_mem_size)

    def get_regs_per_thread(self, signature=None):
        return self._one_or_all(signature, lambda kernel: kernel.regs_per_thread)

    def get_max_threads_per_block(self, signature=None):
        return self._one_or_all(signature, lambda kernel: kernel.max_threads_per_block)


_PARAMETER_NAMES: dict = {}     # (function, its code) -> its parameter names: a launch checks its count


def _parameters(py_func) -> list:
    key = (py_func, getattr(py_func, "__code__", None))
    names = _PARAMETER_NAMES.get(key)
    if names is None:
        import inspect
        names = tuple(inspect.signature(py_func).parameters)
        if len(_PARAMETER_NAMES) > 1024:
            _PARAMETER_NAMES.clear()
        _PARAMETER_NAMES[key] = names
    return list(names)


def _signature_args(signature) -> tuple:
    from numba.cuda import types
    from numba.cuda.core import sigutils
    args, return_type = sigutils.normalize_signature(signature)
    if return_type not in (None, types.void):
        raise TypeError("CUDA kernel must have void return type.")
    return tuple(args)


# --- the decorator ----------------------------------------------------------------

def jit(func_or_sig=None, device: bool = False, **options):
    """`@cuda.jit`: a kernel that runs on warpsim, or (device=True) Numba's device function.

    Accepts what numba.cuda.jit accepts: no arguments, a signature, a list of
    signatures, and the same keyword options, which numba.cuda.jit itself
    checks (with its warnings). Each kernel also gets a Numba dispatcher twin,
    never launched, that types the kernel when another kernel calls it as a
    device function (numba-cuda allows that).
    """
    from numba.cuda.decorators import jit as numba_jit
    if device:
        with numba_sees_simulated_device():  # a signature compiles now
            made = numba_jit(func_or_sig, device=True, **options)
        if func_or_sig is None or isinstance(func_or_sig, (str, list, tuple)) or \
                _is_numba_signature(func_or_sig):
            return _compiling_on_warpsim(made)  # a decorator: it compiles when applied
        return made
    lineinfo = options.get("lineinfo")  # None: on unless it breaks (see compile_kernel)

    def kernel(func, signatures=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba_jit warned already, when it checked options
            twin = numba_jit(func, **options)
        return Dispatcher(func, twin, signatures, lineinfo=lineinfo)

    if callable(func_or_sig) and not _is_numba_signature(func_or_sig):
        numba_jit(**options)  # checks the options, warns as Numba does
        return kernel(func_or_sig)
    numba_jit(**options)
    if func_or_sig is None:
        return kernel
    signatures = func_or_sig if isinstance(func_or_sig, list) else (func_or_sig,)
    return lambda func: kernel(func, signatures)


def _compiling_on_warpsim(decorator):
    def decorate(func):
        with numba_sees_simulated_device():
            return decorator(func)
    return decorate


def _is_numba_signature(value) -> bool:
    from numba.cuda import typing
    return isinstance(value, typing.Signature)
