"""Raw CUDA kernels, CuPy's way: RawModule, RawKernel and the launch call.

Source goes through NVRTC (warpsim.frontends.nvrtc) or is taken as PTX; the
module is loaded on the current device on first use, and a call packs the
arguments into the kernel's parameter buffer (warpsim.api.args) and launches on
the simulator. Streams are accepted and ignored: every launch runs to
completion in order.

CuPy appends `-ftz=true` after the user's options for every kernel it
compiles, and NVRTC honours the last -ftz it is given (warning about the
earlier one), so f32 subnormals are flushed even when the user asked for
`-ftz=false`. warpsim appends the same option in the same place, so a CuPy
script's results on subnormal values are the GPU's.
"""

from __future__ import annotations

import operator
import os
import threading

from .args import (ArgumentPacker, KernelArgumentError, describe_argument, pack_arguments,  # noqa: F401 (imported from here)
                   parameter_slots)
from .arrays import MemoryPointer, UnownedMemory, current_device, ndarray
from ..errors import CompileError, InvalidValue
from ..frontends.nvrtc import compile_cuda
from ..machine.device import launch_dimensions
from .cuda_errors import JITIFY_UNSET, CUDADriverError, JitifyException, warn_jitify_deprecated
from .headers import include_option, translate_cucomplex as cucomplex_to_complex
from .kernel_attributes import KernelAttributes

class KernelNotFoundError(CUDADriverError, LookupError):
    """get_function asked for a name the module does not define (CUDA_ERROR_NOT_FOUND, as CuPy's)."""

    def __init__(self, message: str):
        super().__init__(message, "CUDA_ERROR_NOT_FOUND: named symbol not found")


class ModuleFileNotFoundError(CUDADriverError, FileNotFoundError):
    """RawModule(path=...) names a file that does not exist (CUDA_ERROR_FILE_NOT_FOUND, as CuPy's)."""

    def __init__(self, message: str):
        super().__init__(message, "CUDA_ERROR_FILE_NOT_FOUND: file not found")


CUPY_APPENDED_OPTIONS = ("-ftz=true",)


def cupy_options(options) -> tuple:
    """The NVRTC options CuPy compiles with: the user's, then -ftz=true (last, so it wins), and the
    folder of CuPy's headers (warpsim's own cupy/*.cuh, see warpsim.api.headers)."""
    if isinstance(options, (str, bytes)):
        options = (options,)
    return tuple(options) + CUPY_APPENDED_OPTIONS + (include_option(),)


# --- raw kernels -------------------------------------------------------------

def _launch_in_process(loaded_module, kernel, grid, block, params, shared_mem, cooperative):
    return loaded_module.launch(kernel, grid, block, params, shared_mem=shared_mem, cooperative=cooperative)


_launcher = None    # set by warpsim.distributed (a layer above): it shards launches when settings ask


def launch_through(launcher) -> None:
    """Route every kernel call through `launcher` (same arguments as _launch_in_process)."""
    global _launcher
    _launcher = launcher


class Function(KernelAttributes):
    """One kernel of a loaded module, called as CuPy's: f(grid, block, args, shared_mem=0)."""

    def _attribute_kernel(self):
        return self.loaded_module, self.kernel_name

    def __init__(self, loaded_module, device, kernel_name: str, requested_name: str,
                 raw_module: "RawModule | None" = None):
        self.loaded_module, self.device = loaded_module, device
        self.kernel_name, self.name = kernel_name, requested_name
        self.params = list(loaded_module.params(kernel_name))
        self._slots = parameter_slots(self.params)     # packed at every launch
        self._pack = ArgumentPacker(kernel_name, self._slots)
        self.raw_module = raw_module

    enable_cooperative_groups = property(
        lambda self: bool(self.raw_module and self.raw_module.enable_cooperative_groups))

    def __reduce__(self):
        """Pickled as its RawModule (source and PTX) and its name; loaded again when unpickled."""
        if self.raw_module is None:
            raise TypeError(f"kernel {self.kernel_name} was not made by a RawModule and cannot be pickled")
        return _function_of, (self.raw_module, self.name)

    def __call__(self, grid, block, args, shared_mem: int = 0, stream=None,
                 enable_cooperative_groups: bool = False) -> None:
        if not isinstance(args, (tuple, list)):   # f(grid, block, x, y, n): x is args, y shared_mem
            raise argument_tuple_error(self.kernel_name, [args] + [value for value, unset in (
                (shared_mem, 0), (stream, None), (enable_cooperative_groups, False))
                if value is not unset])
        grid = launch_dimensions(grid, "grid", self.kernel_name)
        block = launch_dimensions(block, "block", self.kernel_name)
        try:
            shared_mem = operator.index(shared_mem)
        except TypeError:
            raise InvalidValue(f"shared_mem must be an int number of bytes, got {shared_mem!r}",
                               kernel=self.kernel_name) from None
        self.check_launch_resources(block, shared_mem)
        if enable_cooperative_groups:
            self.check_co_resident(grid, block, shared_mem)
        buffer = self._pack.plain(args, self.device)      # (None: look at each argument first)
        if buffer is None:
            for index, arg in enumerate(args):
                if isinstance(arg, ndarray) and arg.device is not self.device:
                    raise KernelArgumentError(f"kernel '{self.kernel_name}' argument {index} is an array "
                                              "on another device than the one the kernel runs on")
            buffer = self._pack(args)
        launch = _launcher or _launch_in_process
        self.last_launch = launch(self.loaded_module, self.kernel_name, grid, block, buffer,
                                  shared_mem, enable_cooperative_groups)

    def __repr__(self) -> str:
        return f"<warpsim Function {self.kernel_name}>"


def argument_tuple_error(kernel_name: str, given: list) -> KernelArgumentError:
    """kernel(grid, block, x, y, n) where CuPy takes kernel(grid, block, (x, y, n)): say so,
    naming what came after block (not the shared_mem or stream those values landed in)."""
    if len(given) == 1:
        got = f"got {describe_argument(given[0])} as args"
    else:
        got = f"got {len(given)} values after block ({', '.join(map(describe_argument, given))})"
    return KernelArgumentError(
        f"kernel '{kernel_name}': the kernel's arguments must be one tuple (or list) after grid and "
        f"block, as in kernel(grid, block, (x, y, n)), even for one argument: (x,); {got}")


class RawModule:
    """CUDA C++ (compiled with NVRTC) or PTX, loaded on the device: kernels via get_function.

    Exactly one of `code` (CUDA source), `path` (.cu compiled, .ptx loaded) or
    `ptx` (PTX text; a warpsim extension) is given. Compilation and loading
    happen on first use, as in CuPy. `backend='nvcc'` also compiles with NVRTC;
    `jitify` is accepted and changes nothing but the exception a failed compile
    raises (JitifyException): the CUDA, CCCL and CuPy headers are always on the
    include path. `enable_cooperative_groups` here changes nothing; a kernel
    call's `enable_cooperative_groups=True` is a cooperative launch (grid sync).
    `translate_cucomplex=True` compiles `#include <cuComplex.h>` as
    cupy/cuComplex_bridge.h, as CuPy does.
    """

    def __init__(self, code: str | None = None, *, path: str | None = None, options=(),
                 backend: str = "nvrtc", translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False, name_expressions=None,
                 jitify=JITIFY_UNSET, ptx: str | None = None):
        if sum(source is not None for source in (code, path, ptx)) != 1:
            raise TypeError("RawModule needs exactly one of code= (CUDA source), path= or ptx=")
        if backend not in ("nvrtc", "nvcc"):
            raise ValueError(f"unknown backend {backend!r}: use 'nvrtc'")
        if backend == "nvcc" and name_expressions:
            raise ValueError("name_expressions is only supported by the 'nvrtc' backend (as in CuPy)")
        if translate_cucomplex and code is not None:
            code = cucomplex_to_complex(code)
        self.jitify = warn_jitify_deprecated(jitify)
        self.enable_cooperative_groups = enable_cooperative_groups
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        self.backend, self.file_path, self.source_name = backend, path, "kernel.cu"
        self.code, self._ptx, self._lowered_names = code, ptx, {}
        self._cubin = None          # a cubin without PTX (RawModule(path='k.cubin'))
        self.compile_log = ""
        if ptx is not None:
            self.source_name = "<ptx>"
        if path is not None:
            self._read_path(os.fspath(path))
        self._loaded: dict[int, tuple] = {}
        self._functions: dict[tuple[int, str], Function] = {}
        # Threads sharing a module compile and load it once (one copy of its globals per device).
        self._cache_lock = threading.RLock()

    def __getstate__(self) -> dict:
        """Pickled as its source and PTX; it is loaded again on first use after unpickling."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_loaded", "_functions", "_cache_lock")}
        state["_ptx"] = self.ptx if self.code is not None else self._ptx
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._loaded, self._functions = {}, {}
        self._cache_lock = threading.RLock()

    def _read_path(self, path: str) -> None:
        suffix = os.path.splitext(path)[1].lower()
        if suffix == ".cubin":
            self._read_cubin(path)
            return
        if suffix in (".fatbin", ".o", ".a"):
            raise ValueError(f"{path}: warpsim simulates PTX or a cubin; load a .ptx or .cubin file or "
                             "compile the .cu source")
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except FileNotFoundError as exc:
            raise ModuleFileNotFoundError(f"RawModule(path={path!r}): {exc.strerror}") from None
        except OSError as exc:
            raise FileNotFoundError(f"RawModule(path={path!r}): {exc.strerror}") from None
        self.source_name = os.path.abspath(path)  # NVRTC writes it into .file: reports can open it
        if suffix == ".ptx":
            self._ptx = text
        else:  # .cu, .cuh, anything else: CUDA C++; its own folder serves its #include "..."
            self.code = text
            self.options += (f"-I{os.path.dirname(os.path.abspath(path))}",)

    def _read_cubin(self, path: str) -> None:
        """A cubin runs from the PTX ptxas stored in it (`-lineinfo` keeps it, line numbers and all):
        the SASS views and the SASS run use the cubin's own machine code. A cubin without PTX
        runs on the SASS executor, which then gives the results (docs/sass.md says what it lacks)."""
        from ..sass.elf import cubin_arch, ptx_text_in_cubin
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError as exc:
            raise ModuleFileNotFoundError(f"RawModule(path={path!r}): {exc.strerror}") from None
        except OSError as exc:
            raise FileNotFoundError(f"RawModule(path={path!r}): {exc.strerror}") from None
        ptx = ptx_text_in_cubin(data)
        self.source_name = os.path.abspath(path)
        if ptx:
            self._ptx = ptx
            return
        if not cubin_arch(data):
            raise ValueError(f"{path}: not a cubin (no CUDA ELF header); load a .ptx, .cubin or .cu file")
        self._cubin = data          # SASS only: its kernels run on the SASS executor (warpsim.sass.loaded)

    @property
    def ptx(self) -> str:
        """The module's PTX (compiled on first access)."""
        with self._cache_lock:
            if self._ptx is None and self._cubin is not None:
                raise ValueError(f"{self.source_name}: this cubin carries only SASS, no PTX (it runs on "
                                 "warpsim's SASS executor)")
            if self._ptx is None:
                self._compile()
        return self._ptx

    def _compile(self) -> None:
        try:
            result = compile_cuda(self.code, cupy_options(self.options), name=self.source_name,
                                  name_expressions=self.name_expressions)
        except CompileError as exc:   # CuPy's CompileException is CompileError; jitify has its own
            if not self.jitify:
                raise
            raise JitifyException(str(exc).split("\n", 1)[0], exc.log) from None
        self._ptx, self._lowered_names = result.ptx, result.lowered_names
        self.compile_log = result.log

    @property
    def lowered_names(self) -> dict[str, str]:
        """Name expression -> mangled kernel name, from NVRTC."""
        self.ptx  # noqa: B018 (compiles if needed)
        return dict(self._lowered_names)

    def compile(self, log_stream=None) -> None:
        """Compile now rather than on first use (CuPy's RawModule.compile); NVRTC's log to log_stream."""
        self.ptx  # noqa: B018
        if log_stream is not None and self.compile_log:
            log_stream.write(self.compile_log)

    def _loaded_module(self):
        device = current_device()
        with self._cache_lock:
            return self._load_on(device)

    def _load_on(self, device):
        if id(device) not in self._loaded:
            if self._cubin is not None:
                from ..sass.loaded import load_cubin
                self._loaded[id(device)] = (device, load_cubin(device, self._cubin, name=self.source_name))
                return self._loaded[id(device)]
            loaded = device.load_module(self.ptx, name=self.source_name)
            if self.code is not None and hasattr(loaded, "sources"):
                loaded.sources[self.source_name] = self.code     # the source view shows it
            self._loaded[id(device)] = (device, loaded)
        return self._loaded[id(device)]

    @property
    def kernel_names(self) -> list:
        """The names of the module's kernels (entry points), as PTX spells them."""
        return list(self._loaded_module()[1].kernel_names)

    def get_function(self, name: str) -> Function:
        """A kernel by extern "C" name, mangled name, or one of the module's name expressions."""
        found = self._functions.get((id(current_device()), name))   # a launch loop's every call
        if found is not None:
            return found
        device, loaded = self._loaded_module()
        key = (id(device), name)
        with self._cache_lock:
            if key not in self._functions:
                self._functions[key] = Function(loaded, device, self._kernel_name(loaded, name), name,
                                                self)
            return self._functions[key]

    def _kernel_name(self, loaded, name: str) -> str:
        kernels = list(loaded.kernel_names)
        if name in kernels:
            return name
        if self._lowered_names.get(name) in kernels:
            return self._lowered_names[name]
        lines = [f"no kernel named '{name}' in {self.source_name}",
                 f"  kernels in the module: {', '.join(kernels) or '(none)'}"]
        if self.name_expressions:
            lines.append(f"  name expressions: {', '.join(self.name_expressions)}")
        close = [expression for expression in self.name_expressions if expression.startswith(f"{name}<")]
        if close:
            lines.append(f"  did you mean {' or '.join(repr(expression) for expression in close)}?")
        elif self.code is not None:
            lines.append(f"  a template or C++ (not extern \"C\") kernel has a mangled name: declare it "
                         f"extern \"C\", or pass name_expressions=('{name}',) to RawModule")
        raise KernelNotFoundError("\n".join(lines))

    def get_global(self, name: str) -> MemoryPointer:
        """The address of a __device__ variable, as a MemoryPointer (name or name expression)."""
        device, loaded = self._loaded_module()
        lookup = getattr(loaded, "global_address", None)
        if lookup is None:
            raise NotImplementedError("get_global needs LoadedModule.global_address, "
                                      "which this warpsim machine does not provide yet")
        address = lookup(self._lowered_names.get(name, name))
        return MemoryPointer(UnownedMemory(address, 0, self, device))


def _function_of(raw_module: "RawModule", name: str) -> Function:
    return raw_module.get_function(name)


class RawKernel(KernelAttributes):
    """One kernel from CUDA source, compiled on first use: kernel(grid, block, args, shared_mem=0).

    Its attributes (num_regs, max_threads_per_block, ...) are those of the
    loaded kernel (warpsim.api.kernel_attributes); it pickles as its source.
    """

    def _attribute_kernel(self):
        return self.kernel.loaded_module, self.kernel.kernel_name

    def _attribute_store(self) -> dict:
        return self.kernel._attribute_store()

    def __init__(self, code: str, name: str, options=(), backend: str = "nvrtc",
                 translate_cucomplex: bool = False, *, enable_cooperative_groups: bool = False,
                 jitify=JITIFY_UNSET):
        self.code, self.name, self.options, self.backend = code, name, tuple(options), backend
        self.enable_cooperative_groups = enable_cooperative_groups
        self.module = RawModule(code=code, options=options, backend=backend,
                                translate_cucomplex=translate_cucomplex,
                                enable_cooperative_groups=enable_cooperative_groups, jitify=jitify)

    @property
    def kernel(self) -> Function:
        return self.module.get_function(self.name)

    @property
    def ptx(self) -> str:
        return self.module.ptx

    def compile(self, log_stream=None) -> None:
        """Compile and load now; NVRTC's log (warnings) goes to log_stream."""
        self.module.compile(log_stream)
        self.kernel  # noqa: B018 (loads)

    def __call__(self, grid, block, args, *more, shared_mem: int = 0, stream=None,
                 enable_cooperative_groups: bool = False) -> None:
        """kernel(grid, block, args, shared_mem=..., stream=...): as CuPy's RawKernel, everything
        after args is by keyword (CuPy raises TypeError otherwise; this says what was meant)."""
        if more or not isinstance(args, (tuple, list)):
            raise argument_tuple_error(self.name, [args, *more])
        function = self.module._functions.get((id(current_device()), self.name)) or self.kernel
        function(grid, block, args, shared_mem, None, enable_cooperative_groups)

    def __repr__(self) -> str:
        return f"<warpsim RawKernel {self.name}>"
