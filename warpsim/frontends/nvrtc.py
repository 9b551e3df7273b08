"""CUDA C++ -> PTX with NVRTC from PyPI (no system CUDA, no GPU needed).

NVRTC is called through ctypes so warpsim needs no binding package: the
library comes from the `nvidia-cuda-nvrtc` wheel and the headers from
`nvidia-cuda-runtime` (cuda_fp16.h, ...) and `nvidia-cuda-cccl` (cub, thrust,
cuda/std). Those are found inside the installed `nvidia` namespace package,
whose layout changed between CUDA 12 (one folder per component) and CUDA 13
(everything under nvidia/cu13), so both are searched.

The result is PTX, never a cubin: warpsim simulates PTX, so `-arch=sm_XX`
from the user is passed to NVRTC as `-arch=compute_XX`. PTX is cached on disk
because NVRTC takes a second or more for CCCL-heavy sources and tests compile
the same kernels over and over.

The `cuda` setting (warpsim.toolchains) picks another NVRTC: the one in the
tool cache (`warpsim toolchain --install 13.0`), with that release's headers.
Several NVRTC libraries share one SONAME (libnvrtc.so.13), so each is loaded
by full path with its own handle, RTLD_LOCAL and, where there is one,
RTLD_DEEPBIND (its calls bind to its own symbols even when another NVRTC was
loaded globally), its builtins library loaded first from the same folder (it
looks for them by name, and the tool cache is on no search path). The PTX
cache is keyed by the library's path and version.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..cache import cache_dir as warpsim_cache_dir, write_atomically
from ..errors import CompileError
from ..toolchains import find_toolchain, requested_cuda, tools_dir, version_matches

__all__ = ["CompiledCuda", "compile_cuda", "nvrtc_version", "nvrtc_library_path",
           "include_dirs", "DEFAULT_ARCH", "DEFAULT_STD"]

DEFAULT_ARCH = "sm_90"
DEFAULT_STD = "c++17"


@dataclass
class CompiledCuda:
    """What one NVRTC compilation produced (or what the cache remembered of it)."""

    ptx: str
    lowered_names: dict[str, str] = field(default_factory=dict)
    log: str = ""
    options: tuple = ()
    arch: str = DEFAULT_ARCH
    cache_hit: bool = False


# --- finding the library and headers ----------------------------------------

def _nvidia_roots() -> list[Path]:
    """Every directory that holds a piece of the `nvidia` namespace package."""
    roots: list[Path] = []
    try:
        import nvidia  # namespace package installed by the nvidia-* wheels
        roots += [Path(p) for p in getattr(nvidia, "__path__", [])]
    except ImportError:
        pass
    for entry in sys.path:
        candidate = Path(entry or ".") / "nvidia"
        if candidate.is_dir():
            roots.append(candidate)
    seen, unique = set(), []
    for root in roots:
        key = str(root.resolve())
        if key not in seen:
            seen.add(key)
            unique.append(root)
    return unique


def _version_key(path: str) -> tuple:
    """Sort key preferring the newest CUDA layout (cu13 over cu12 over others)."""
    digits = [int(part[2:]) for part in Path(path).parts if part[:2] == "cu" and part[2:].isdigit()]
    return (max(digits) if digits else 0, path)


def _library_patterns() -> list:
    if sys.platform == "win32":
        return ["bin/nvrtc64_*.dll", "bin/*/nvrtc64_*.dll"]
    if sys.platform == "darwin":
        return ["lib/libnvrtc*.dylib"]
    return ["lib/libnvrtc.so.*", "lib/libnvrtc.so"]


def _libraries_in(folder: Path) -> list:
    return [p for pattern in _library_patterns() for p in glob.glob(str(folder / pattern))
            if "builtins" not in p and ".alt." not in p]


def nvrtc_library_path(cuda: str | None = "") -> str:
    """Path of the NVRTC shared library of CUDA `cuda` ('' : the `cuda` setting in force; None:
    the installed wheel's); WARPSIM_NVRTC_LIBRARY overrides the search."""
    return _library_path(requested_cuda() if cuda == "" else cuda)


def _library_path(cuda: str | None) -> str:
    return _found_library(cuda, str(tools_dir()), os.environ.get("WARPSIM_NVRTC_LIBRARY"))


@lru_cache(maxsize=None)
def _found_library(cuda: str | None, tools: str, override: str | None) -> str:
    """(tools and override: the tool cache and WARPSIM_NVRTC_LIBRARY the answer depends on)"""
    if override:
        return override
    if cuda and not version_matches(_installed_wheel_version(), cuda):
        found = _libraries_in(find_toolchain(cuda))
        if not found:
            raise CompileError(f"the CUDA {cuda} toolchain in {find_toolchain(cuda)} has no NVRTC library; "
                               f"reinstall it with `warpsim toolchain --install {cuda}`")
        return sorted(found)[-1]
    found = []
    for root in _nvidia_roots():
        found += _libraries_in(root / "*")
    if not found:
        raise CompileError(
            "NVRTC not found: install it from PyPI with `pip install nvidia-cuda-nvrtc` "
            "(or set WARPSIM_NVRTC_LIBRARY to the path of libnvrtc)")
    return sorted(found, key=_version_key)[-1]


def _installed_wheel_version() -> str:
    """The version of the installed nvidia-cuda-nvrtc wheel ('' when there is none)."""
    from importlib.metadata import PackageNotFoundError, version
    for name in ("nvidia-cuda-nvrtc", "nvidia-cuda-nvrtc-cu12"):
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return ""


def _find_dir_with(marker: str, roots: list) -> str | None:
    """The newest `<root>/*/include[/cccl]` directory that contains `marker`."""
    found = []
    for root in roots:
        for pattern in ("*/include", "*/include/cccl"):
            for directory in glob.glob(str(root / pattern)):
                if os.path.exists(os.path.join(directory, marker)):
                    found.append(directory)
    return sorted(found, key=_version_key)[-1] if found else None


HEADER_MARKERS = ("cuda_fp16.h", os.path.join("cub", "block", "block_reduce.cuh"))


def include_dirs(cuda: str | None = "") -> tuple[str, ...]:
    """Include paths added to every compilation: CUDA headers, then CCCL, of the release of
    CUDA `cuda` ('': the `cuda` setting in force; None: the installed wheels)."""
    return _include_dirs(requested_cuda() if cuda == "" else cuda, str(tools_dir()))


@lru_cache(maxsize=None)
def _include_dirs(cuda: str | None, tools: str) -> tuple[str, ...]:
    if cuda and not version_matches(_installed_wheel_version(), cuda):
        folder = find_toolchain(cuda)     # its own headers; the installed ones where it has none
        dirs = [str(d) for d in (folder / "include", folder / "include" / "cccl") if d.is_dir()]
        if dirs:
            return tuple(dirs)
    dirs = []
    for marker in HEADER_MARKERS:
        directory = _find_dir_with(marker, _nvidia_roots())
        if directory and directory not in dirs:
            dirs.append(directory)
    return tuple(dirs)


# --- the ctypes binding -----------------------------------------------------

class _Nvrtc:
    """The few NVRTC entry points warpsim uses, with their C signatures."""

    def __init__(self, path: str, isolated: bool = False):
        self.path = path
        try:
            lib = _load_isolated(path) if isolated else ctypes.CDLL(path)
        except OSError as exc:
            raise CompileError(f"could not load NVRTC from {path}: {exc}") from None
        self.lib = lib
        handle, c_char_pp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)
        signatures = {
            "nvrtcVersion": [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)],
            "nvrtcCreateProgram": [ctypes.POINTER(handle), ctypes.c_char_p, ctypes.c_char_p,
                                   ctypes.c_int, c_char_pp, c_char_pp],
            "nvrtcDestroyProgram": [ctypes.POINTER(handle)],
            "nvrtcAddNameExpression": [handle, ctypes.c_char_p],
            "nvrtcCompileProgram": [handle, ctypes.c_int, c_char_pp],
            "nvrtcGetProgramLogSize": [handle, ctypes.POINTER(ctypes.c_size_t)],
            "nvrtcGetProgramLog": [handle, ctypes.c_char_p],
            "nvrtcGetPTXSize": [handle, ctypes.POINTER(ctypes.c_size_t)],
            "nvrtcGetPTX": [handle, ctypes.c_char_p],
            "nvrtcGetLoweredName": [handle, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)],
        }
        for name, argtypes in signatures.items():
            function = getattr(lib, name)
            function.argtypes, function.restype = argtypes, ctypes.c_int
        lib.nvrtcGetErrorString.argtypes, lib.nvrtcGetErrorString.restype = [ctypes.c_int], ctypes.c_char_p

    def check(self, result: int, what: str) -> None:
        if result != 0:
            message = self.lib.nvrtcGetErrorString(result).decode(errors="replace")
            raise CompileError(f"NVRTC {what} failed: {message} (code {result})")

    def version(self) -> tuple[int, int]:
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        return major.value, minor.value

    def _get_text(self, program, size_function, get_function, what: str) -> str:
        size = ctypes.c_size_t()
        self.check(size_function(program, ctypes.byref(size)), what)
        buffer = ctypes.create_string_buffer(size.value)
        self.check(get_function(program, buffer), what)
        return buffer.value.decode(errors="replace")

    def compile(self, source: str, name: str, options: tuple[str, ...],
                name_expressions: tuple[str, ...]) -> tuple[bool, str, str, dict[str, str]]:
        """Compile; returns (ok, log, ptx, lowered_names). ptx is '' when not ok."""
        lib, program = self.lib, ctypes.c_void_p()
        self.check(lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), name.encode(),
                                          0, None, None), "nvrtcCreateProgram")
        try:
            for expression in name_expressions:
                self.check(lib.nvrtcAddNameExpression(program, expression.encode()),
                           f"nvrtcAddNameExpression({expression!r})")
            encoded = [option.encode() for option in options]
            argv = (ctypes.c_char_p * len(encoded))(*encoded)
            result = lib.nvrtcCompileProgram(program, len(encoded), argv)
            log = self._get_text(program, lib.nvrtcGetProgramLogSize, lib.nvrtcGetProgramLog,
                                 "nvrtcGetProgramLog")
            if result != 0:
                return False, log, "", {}
            ptx = self._get_text(program, lib.nvrtcGetPTXSize, lib.nvrtcGetPTX, "nvrtcGetPTX")
            lowered = {}
            for expression in name_expressions:
                mangled = ctypes.c_char_p()
                self.check(lib.nvrtcGetLoweredName(program, expression.encode(), ctypes.byref(mangled)),
                           f"nvrtcGetLoweredName({expression!r})")
                lowered[expression] = mangled.value.decode()
            return True, log, ptx, lowered
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(program))


ISOLATED_MODE = ctypes.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0)


def _load_isolated(path: str) -> ctypes.CDLL:
    """A tool-cache NVRTC beside whatever NVRTC the process has (see the module docstring)."""
    folder = os.path.dirname(path)
    for builtins in sorted(glob.glob(os.path.join(folder, "libnvrtc-builtins.so.*"))):
        if ".alt." not in builtins:
            ctypes.CDLL(builtins, mode=ISOLATED_MODE)
    return ctypes.CDLL(path, mode=ISOLATED_MODE)


@lru_cache(maxsize=None)
def _loaded(path: str, isolated: bool) -> _Nvrtc:
    return _Nvrtc(path, isolated)


def _nvrtc(cuda: str | None = "") -> _Nvrtc:
    """The NVRTC of CUDA `cuda` ('': the `cuda` setting in force), loaded once per library."""
    cuda = requested_cuda() if cuda == "" else cuda
    path = _library_path(cuda)
    return _loaded(path, _from_tool_cache(path))


def _from_tool_cache(path: str) -> bool:
    return os.path.abspath(path).startswith(os.path.abspath(tools_dir()) + os.sep)


def nvrtc_library():
    """The ctypes handle of the NVRTC library warpsim compiles with now (the `cuda` setting's)."""
    return _nvrtc().lib


def nvrtc_version() -> tuple[int, int]:
    """(major, minor) of the NVRTC library warpsim compiles with (the `cuda` setting's)."""
    return _nvrtc().version()


# --- options ----------------------------------------------------------------

_ARCH_FLAGS = ("-arch", "--gpu-architecture")
_STD_FLAGS = ("-std", "--std")


def _as_text(option) -> str:
    if isinstance(option, (bytes, bytearray)):
        return bytes(option).decode()
    if isinstance(option, str):
        return option
    raise TypeError(f"NVRTC options must be str or bytes, got {type(option).__name__}: {option!r}")


def _arch_name(value: str) -> str:
    """'sm_80', 'compute_80', '80', 'sm_90a' -> 'sm_80' / 'sm_90a'."""
    value = value.strip()
    for prefix in ("sm_", "compute_", "lto_"):
        if value.startswith(prefix):
            value = value[len(prefix):]
            break
    if not value[:2].isdigit():
        raise ValueError(f"unrecognised GPU architecture {value!r}: use e.g. -arch=sm_80")
    return f"sm_{value}"


def normalize_options(options, cuda: str | None = "") -> tuple[tuple[str, ...], str]:
    """User options (CuPy style) -> (the NVRTC options warpsim passes, arch).

    Adds -lineinfo, the include paths (of CUDA `cuda`, '' for the setting in force), a
    default -std, and turns any -arch into the virtual compute_XX form so NVRTC emits PTX.
    """
    if isinstance(options, (str, bytes)):
        options = (options,)
    texts = [_as_text(option) for option in options]
    arch, has_std, has_lineinfo, result = None, False, False, []
    index = 0
    while index < len(texts):
        option = texts[index]
        flag, equals, value = option.partition("=")
        if flag in _ARCH_FLAGS:
            if not equals:  # "-arch sm_80" given as two items
                index += 1
                if index == len(texts):
                    raise ValueError(f"option {option} needs an architecture, e.g. {option}=sm_80")
                value = texts[index]
            arch = _arch_name(value)
        else:
            has_std |= flag in _STD_FLAGS
            has_lineinfo |= option in ("-lineinfo", "--generate-line-info")
            result.append(option)
        index += 1
    arch = arch or DEFAULT_ARCH
    result.append(f"-arch=compute_{arch[3:]}")
    if not has_std:
        result.append(f"-std={DEFAULT_STD}")
    if not has_lineinfo:
        result.append("-lineinfo")
    result += [f"-I{directory}" for directory in include_dirs(cuda)]
    return tuple(result), arch


# --- disk cache -------------------------------------------------------------

def cache_dir() -> Path:
    """Compiled PTX: $WARPSIM_CACHE_DIR/ptx, else ~/.cache/warpsim/ptx."""
    return warpsim_cache_dir("ptx")


def _cache_key(source: str, name: str, options: tuple, name_expressions: tuple, version: tuple,
               library: str) -> str:
    """Everything that changes the PTX; `name` too, since it appears in the PTX's .file lines,
    and the headers of the include directories the options add (an edited header changes it)."""
    headers = [_headers_fingerprint(option[2:]) for option in options
               if option.startswith("-I") and option[2:] not in include_dirs()]
    material = json.dumps([source, name, list(options), list(name_expressions), list(version), library,
                           headers])
    return hashlib.sha256(material.encode()).hexdigest()


HEADER_FILES_FINGERPRINTED = 500     # past this many files a directory counts by its own entry alone


def _headers_fingerprint(directory: str) -> str:
    """The names, sizes and modification times of the files under an include directory (CUDA's
    and CCCL's, which change only with their packages, are left out by the caller)."""
    entries = []
    for root, _, files in os.walk(directory):
        for file in files:
            try:
                stat = os.stat(os.path.join(root, file))
            except OSError:
                continue
            entries.append((os.path.relpath(os.path.join(root, file), directory), stat.st_size, stat.st_mtime_ns))
            if len(entries) > HEADER_FILES_FINGERPRINTED:
                try:
                    return f"{directory}:{os.stat(directory).st_mtime_ns}"
                except OSError:
                    return directory
    return hashlib.sha256(json.dumps(sorted(entries)).encode()).hexdigest()


def _cache_read(path: Path) -> dict | None:
    try:
        with open(path, encoding="utf-8") as handle:
            entry = json.load(handle)
        return entry if isinstance(entry.get("ptx"), str) else None
    except (OSError, ValueError, AttributeError):
        return None  # missing or corrupt: just compile again


def _cache_write(path: Path, entry: dict) -> None:
    write_atomically(path, json.dumps(entry).encode("utf-8"))


# --- the public entry point -------------------------------------------------

def _name_the_source_as_given(ptx: str, name: str) -> str:
    """NVRTC joins a relative source name to the current directory in `.file`; when no such
    file exists (code given as a string), errors and reports should say `kernel.cu:12`, not
    a path that does not exist."""
    if os.path.isabs(name):
        return ptx
    joined = os.path.join(os.getcwd(), name)
    if os.path.exists(joined):
        return ptx
    return ptx.replace(f'"{joined}"', f'"{name}"')


def compile_cuda(source: str, options=(), name: str = "kernel.cu",
                 name_expressions=()) -> CompiledCuda:
    """Compile CUDA C++ source to PTX.

    `options` are CuPy-style (str or bytes): -D, -I, -std=, -arch=sm_XX.
    `name_expressions` (e.g. 'my_kernel<float>') are mapped to their mangled
    names in `lowered_names`. Raises CompileError with NVRTC's log on failure.
    """
    if not isinstance(source, str):
        raise TypeError(f"CUDA source must be str, got {type(source).__name__}")
    if isinstance(name_expressions, str):
        name_expressions = (name_expressions,)
    name_expressions = tuple(_as_text(expression) for expression in (name_expressions or ()))
    cuda = requested_cuda()
    final_options, arch = normalize_options(options, cuda)
    nvrtc = _nvrtc(cuda)
    version = nvrtc.version()
    path = cache_dir() / (_cache_key(source, name, final_options, name_expressions, version, nvrtc.path) + ".json")

    entry = _cache_read(path)
    if entry is not None:
        return CompiledCuda(ptx=_name_the_source_as_given(entry["ptx"], name),
                            lowered_names=dict(entry.get("lowered_names", {})),
                            log=entry.get("log", ""), options=final_options, arch=arch, cache_hit=True)

    ok, log, ptx, lowered = nvrtc.compile(source, name, final_options, name_expressions)
    ptx = _name_the_source_as_given(ptx, name)
    if not ok:
        shown = [option for option in final_options if option[2:] not in include_dirs()]
        raise CompileError(f"NVRTC compilation of {name} failed (NVRTC {version[0]}.{version[1]}, "
                           f"options: {' '.join(shown)})", log.strip())
    _cache_write(path, {"ptx": ptx, "lowered_names": lowered, "log": log, "arch": arch})
    return CompiledCuda(ptx=ptx, lowered_names=lowered, log=log, options=final_options, arch=arch)
