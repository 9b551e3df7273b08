"""Run an unchanged Numba or CuPy program on warpsim: `warpsim run python script.py [args]`.

A CuPy program's `import cupy` gives warpsim's CuPy-compatible API (warpsim.api.cupy) for
the run (`cupy_on_warpsim()`); a CuPy name warpsim lacks fails naming it.

    warpsim run python my_numba_program.py --size 4096
    python -m warpsim.cli.run my_numba_program.py --size 4096
    python -m warpsim.cli.run -m my_package.main

How: the program keeps its `from numba import cuda`; kernels are compiled by
numba-cuda and typed against the real numba.cuda module, exactly as on a
GPU. Only the host API is redirected: for the time the program runs, the
names in `warpsim.cuda.HOST_API` (jit, to_device, device_array,
device_array_like, synchronize, is_available, get_current_device, stream,
event, ...) are, inside the numba.cuda module object, warpsim.cuda's, and
they are put back afterwards (`numba_on_warpsim()` does it for a `with`
block, when the program imports numba.cuda: a program that does not waits for
no numba-cuda import). That host API is the one point where a GPU program meets the
driver, so the kernels, their intrinsics and everything Numba does while
compiling stay Numba's own. numba-cuda's runtime also sees warpsim's
context as the current one (the thread-local slot it keeps for contexts
attached by third parties), so numba code that asks for the current
device's compute capability gets 9.0. numba.cuda's own helpers that call these names at run time
(numba.cuda.random's create_xoroshiro128p_states, for example) then run on
warpsim too.

Limits: a name imported from a numba.cuda submodule rather than from
numba.cuda itself (`from numba.cuda.cudadrv.devicearray import
DeviceNDArray`, `numba.cuda.api.to_device`) is not redirected and needs a
driver; vectorize/guvectorize with target='cuda', IPC, external memory
managers and kernels that link external code are not
simulated (`numba.cuda.open_ipc_array` and `set_memory_manager` are an
AttributeError saying so while the program runs); streams and events are accepted but every launch runs to
completion in order; NUMBA_ENABLE_CUDASIM is switched off (the two
simulators would otherwise fight over numba.cuda).
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from dataclasses import dataclass

from ..runtime.triton.activation import triton_on_warpsim  # Triton's driver is warpsim's for the run

__all__ = ["ProgramExit", "cupy_on_warpsim", "numba_on_warpsim", "run_program", "run_script"]

_ABSENT = object()


# numba.cuda host names that need a real driver and that warpsim does not simulate: while the
# program runs, using one is an AttributeError that says so, not a "CUDA driver not found".
NUMBA_NOT_SIMULATED = {
    "open_ipc_array": "CUDA IPC is not simulated",
    "set_memory_manager": "external memory managers are not simulated",
}


def _numba_missing(name: str):
    why = NUMBA_NOT_SIMULATED.get(name)
    if why is None:
        raise AttributeError(f"module 'numba.cuda' has no attribute '{name}'")
    raise AttributeError(f"module 'numba.cuda' has no attribute '{name}' under `warpsim run`: "
                         f"warpsim does not provide numba.cuda.{name} ({why}; see docs/numba.md)")


@contextlib.contextmanager
def numba_on_warpsim():
    """Inside the block, numba.cuda's host API is warpsim's (see the module docstring). Yields
    numba.cuda where it is imported already; else None, and numba.cuda is redirected when the
    program imports it (importing numba-cuda takes most of a second, which a program that never
    uses it should not wait for)."""
    if os.environ.pop("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        print("warpsim: NUMBA_ENABLE_CUDASIM ignored: kernels run on warpsim", file=sys.stderr)
    with contextlib.ExitStack() as redirected:
        if "numba.cuda" in sys.modules:
            yield redirected.enter_context(_numba_redirected(sys.modules["numba.cuda"]))
            return
        hook = _RedirectNumbaOnImport(lambda numba_cuda: redirected.enter_context(_numba_redirected(numba_cuda)))
        sys.meta_path.insert(0, hook)
        try:
            yield None
        finally:
            if hook in sys.meta_path:
                sys.meta_path.remove(hook)


class _RedirectNumbaOnImport:
    """A meta path finder for numba.cuda alone: the module the finders after it give (numba-cuda
    installs one of its own that puts its package in place of Numba's built-in one), and once it
    has run, `redirect(module)`."""

    def __init__(self, redirect):
        self.redirect = redirect

    def find_spec(self, name, path=None, target=None):
        if name != "numba.cuda":
            return None
        finders = sys.meta_path[sys.meta_path.index(self) + 1:] if self in sys.meta_path else sys.meta_path
        for finder in finders:
            spec = getattr(finder, "find_spec", lambda *a: None)(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ThenRedirect(spec.loader, self.redirect)
                return spec
        return None


class _ThenRedirect:
    """A loader that runs `loader`'s module, then redirects it; the module keeps `loader` as its own
    (resources and sources are found through it)."""

    def __init__(self, loader, redirect):
        self.loader, self.redirect = loader, redirect

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        self.redirect(module)


@contextlib.contextmanager
def _numba_redirected(numba_cuda):
    """numba.cuda's host names warpsim's while the block runs, put back after it."""
    from .. import cuda as warpsim_cuda
    from numba.cuda.core import config
    if config.ENABLE_CUDASIM:
        raise RuntimeError("numba.cuda was imported with NUMBA_ENABLE_CUDASIM=1 before warpsim "
                           "could redirect it; run the program in a fresh process")
    from ..cuda.dispatcher import numba_sees_simulated_device
    replaced = tuple(warpsim_cuda.HOST_API) + tuple(NUMBA_NOT_SIMULATED) + ("__getattr__",)
    saved = {name: numba_cuda.__dict__.get(name, _ABSENT) for name in replaced}
    for name in warpsim_cuda.HOST_API:
        setattr(numba_cuda, name, getattr(warpsim_cuda, name))
    for name in NUMBA_NOT_SIMULATED:
        numba_cuda.__dict__.pop(name, None)
    numba_cuda.__getattr__ = _numba_missing
    try:
        with numba_sees_simulated_device():
            yield numba_cuda
    finally:
        for name, value in saved.items():
            if value is _ABSENT:
                numba_cuda.__dict__.pop(name, None)
            else:
                setattr(numba_cuda, name, value)


# Interpreter options that take a value (`python -W ignore script.py`).
OPTIONS_WITH_VALUE = ("-W", "-X", "--check-hash-based-pycs")


def strip_interpreter(argv: list) -> list:
    """`python [options] script.py` and `script.py` both name the script.

    The interpreter's own options are dropped: the program runs in this
    process, whose interpreter is already set up.
    """
    if argv and ((os.path.basename(argv[0]).startswith("python") and not argv[0].endswith(".py"))
                 or os.path.abspath(argv[0]) == os.path.abspath(sys.executable)):
        argv = argv[1:]
        while argv and argv[0].startswith("-") and argv[0] not in ("-m", "-c"):
            argv = argv[2:] if argv[0] in OPTIONS_WITH_VALUE else argv[1:]
    return argv


# CuPy's separate backend package: its modules CuPy's tests import, and warpsim's stand-ins for them.
CUPY_BACKENDS = {
    "cupy_backends.cuda.libs.nvrtc": "warpsim.api.cupy.cuda.nvrtc",
    "cupy_backends.cuda.stream": "warpsim.api.cupy.cuda.stream",
    "cupy_backends.cuda.api.runtime": "warpsim.api.cupy.cuda.runtime",
    "cupy_backends.cuda.api.driver": "warpsim.api.cupy.cuda.driver",
}


# CuPy's packages and warpsim's stand-ins for them (each submodule maps to the same-named one).
CUPY_STAND_INS = {"cupy": "warpsim.api.cupy", "cupyx": "warpsim.api.cupyx"}

# CuPy module name -> why warpsim's stand-in could not be imported (an optional dependency that
# is not installed, such as SciPy for cupyx.scipy.special): what `import` of it then says.
UNAVAILABLE_CUPY_MODULES: dict = {}

# Modules CuPy has that warpsim leaves out on purpose, and why.
NOT_PROVIDED_CUPY_MODULES = {
    "cupyx.jit": "CuPy's Python-to-CUDA compiler; write a RawKernel or ElementwiseKernel, or use "
                 "cupy.fuse",
}


class MissingCupyModules:
    """A finder for `import cupy.X` where warpsim has no X: ModuleNotFoundError naming it.

    Every module warpsim does provide is already in sys.modules under its CuPy
    name, so this is asked only about the others.
    """

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname in UNAVAILABLE_CUPY_MODULES:
            raise ModuleNotFoundError(UNAVAILABLE_CUPY_MODULES[fullname], name=fullname)
        if _is_cupy_module(fullname):
            why = NOT_PROVIDED_CUPY_MODULES.get(fullname)
            raise ModuleNotFoundError(
                f"No module named '{fullname}': warpsim does not provide {fullname} "
                + (f"({why}; " if why else "(under `warpsim run`, cupy is warpsim's CuPy-compatible "
                   "API; ") + "see docs/cupy.md)", name=fullname)
        return None


def cupy_modules() -> dict:
    """CuPy module name -> warpsim's module: CUPY_STAND_INS and every submodule, and CUPY_BACKENDS.

    A stand-in that needs an optional dependency which is missing is left out
    (UNAVAILABLE_CUPY_MODULES says why), so the rest still runs."""
    import importlib
    import pkgutil
    import types
    modules = {}
    for cupy_name, package_name in CUPY_STAND_INS.items():
        package = importlib.import_module(package_name)
        modules[cupy_name] = package
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            name = cupy_name + info.name[len(package_name):]
            try:
                modules[name] = importlib.import_module(info.name)
            except ImportError as error:
                UNAVAILABLE_CUPY_MODULES[name] = f"No module named '{name}': {error}"
    for name, target in CUPY_BACKENDS.items():
        modules[name] = importlib.import_module(target)
        parts = name.split(".")
        for depth in range(len(parts) - 1, 0, -1):      # cupy_backends, cupy_backends.cuda, ...
            parent = ".".join(parts[:depth])
            if parent not in modules:
                modules[parent] = types.ModuleType(parent, "warpsim's stand-in for CuPy's " + parent)
            setattr(modules[parent], parts[depth], modules[".".join(parts[:depth + 1])])
    return modules


CUPY_PACKAGES = ("cupy", "cupy_backends", "cupyx")
CHILD_IMPORTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child_imports")


def _is_cupy_module(name: str) -> bool:
    return name.split(".")[0] in CUPY_PACKAGES


def install_cupy_modules() -> dict:
    """Make `import cupy` (and its submodules) give warpsim's for the rest of this process."""
    modules = cupy_modules()
    for name in [name for name in sys.modules if _is_cupy_module(name)]:
        del sys.modules[name]            # a real CuPy's modules: hidden while warpsim's are in place
    sys.modules.update(modules)
    if not any(isinstance(finder, MissingCupyModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, MissingCupyModules())
    return modules


@contextlib.contextmanager
def cupy_on_warpsim():
    """`import cupy` (and cupy.cuda, cupy.testing, ...) gives warpsim.api.cupy while the program runs.

    warpsim's CuPy surface (arrays, kernels, cupy.cuda's devices, streams,
    memory and runtime, cupy.testing) is what a CuPy program meets; any other
    name CuPy has fails with AttributeError or ModuleNotFoundError naming it
    and saying warpsim does not provide it. Python processes the program
    starts get the same (CHILD_IMPORTS leads their PYTHONPATH). The modules
    that were there before, the real CuPy included, are put back afterwards.
    """
    saved = {name: module for name, module in sys.modules.items() if _is_cupy_module(name)}
    saved_meta_path, saved_pythonpath = sys.meta_path[:], os.environ.get("PYTHONPATH")
    modules = install_cupy_modules()
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [CHILD_IMPORTS, saved_pythonpath]))
    try:
        yield modules["cupy"]
    finally:
        sys.meta_path[:] = saved_meta_path
        if saved_pythonpath is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved_pythonpath
        for name in [name for name in sys.modules if _is_cupy_module(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


@dataclass(frozen=True)
class ProgramExit:
    """How a program run by run_program ended: its exit status and, when it failed, why."""
    status: int
    reason: str = ""          # 'RuntimeError: ...', 'sys.exit(3)', ... ('' when it succeeded)


def run_script(argv) -> int:
    """Run `[python] script.py args...` (or `-m module args...`, `-c code`) with numba.cuda and
    cupy on warpsim; returns the program's exit status."""
    return run_program(argv).status


def run_program(argv) -> ProgramExit:
    """run_script, saying why the program failed (what `warpsim check` reports of a failed target)."""
    argv = strip_interpreter(_take_gpu(list(argv)))
    if not argv:
        print("usage: warpsim run python script.py [args...]  (or -m module, -c code)",
              file=sys.stderr)
        return ProgramExit(2, "no program given")
    from .programs import is_elf, run_executable
    if is_elf(argv[0]):                   # a compiled CUDA program: warpsim's libcudart.so.13 serves it
        return ProgramExit(*run_executable(argv))
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        with numba_on_warpsim(), cupy_on_warpsim(), triton_on_warpsim():
            if argv[0] == "-m" and len(argv) > 1:
                sys.argv = [argv[1]] + argv[2:]
                sys.path.insert(0, os.getcwd())
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            elif argv[0] == "-c" and len(argv) > 1:
                sys.argv = ["-c"] + argv[2:]
                sys.path.insert(0, "")
                exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
            else:
                path = argv[0]
                if not os.path.exists(path):
                    print(f"warpsim run: can't open file '{path}'", file=sys.stderr)
                    return ProgramExit(2, f"can't open file '{path}'")
                sys.argv = argv
                sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
                runpy.run_path(path, run_name="__main__")
        return ProgramExit(0)
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return ProgramExit(code or 0, f"sys.exit({code})" if code else "")
        print(code, file=sys.stderr)
        return ProgramExit(1, f"sys.exit({code!r})")
    except KeyboardInterrupt:
        return ProgramExit(130, "KeyboardInterrupt")
    except Exception as error:  # the program's own error: show it as Python would, then fail
        traceback.print_exc()
        first_line = (str(error).splitlines() or [""])[0]
        return ProgramExit(1, f"{type(error).__name__}: {first_line}" if first_line else type(error).__name__)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def _take_gpu(argv: list) -> list:
    """`warpsim run --gpu a100 python x.py`: the GPU whose time Triton's do_bench predicts (WARPSIM_GPU)."""
    if argv and argv[0].partition("=")[0] == "--gpu":
        name, _, value = argv[0].partition("=")
        value, argv = (value, argv[1:]) if value else (argv[1] if len(argv) > 1 else "", argv[2:])
        os.environ["WARPSIM_GPU"] = value
    return argv


if __name__ == "__main__":
    sys.exit(run_script(sys.argv[1:]))
