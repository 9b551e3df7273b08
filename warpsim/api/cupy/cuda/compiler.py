"""`cupy.cuda.compiler`: compiling CUDA C++ the way CuPy's kernels are compiled, through warpsim's NVRTC.

`compile_using_nvrtc` compiles with the NVRTC from PyPI (warpsim.frontends.nvrtc)
and returns PTX; `compile_using_nvcc` runs nvcc (PyPI's) and returns its cubin or
PTX; CuPy's exceptions are the ones raised. The few private names
CuPy's own tests patch (`_kernel_cache_backend`, `_empty_file_preprocess_cache`,
`_get_bool_env_variable`) exist so those tests run; warpsim's compile cache is
its own (warpsim.cache) and does not consult them. Everything else in CuPy's
compiler module raises AttributeError naming it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from .._missing import missing_attribute, not_provided
from ...cuda_errors import (JITIFY_UNSET, CompileException, JitifyException,  # noqa: F401
                            warn_jitify_deprecated)
from ....errors import CompileError
from ....frontends.nvrtc import compile_cuda
from . import _compiler_cache
from .device import COMPUTE_CAPABILITY

_tegra_archs = ("32", "53", "62", "72", "87")
_kernel_cache_backend = _compiler_cache.DiskKernelCacheBackend()
_empty_file_preprocess_cache: dict = {}


class NVCCException(Exception):
    """nvcc failed (CuPy's name); `_run_cc` raises it with nvcc's output."""


def _get_bool_env_variable(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return int(value) == 1
    except ValueError:
        return False


def _get_arch() -> str:
    return COMPUTE_CAPABILITY


def _get_max_compute_capability() -> str:
    return COMPUTE_CAPABILITY


def _get_arch_for_options_for_nvrtc(arch=None):
    """(NVRTC's -arch option, what it makes); warpsim always simulates the PTX."""
    return f"-arch=compute_{arch or _get_arch()}", "ptx"


def _run_cc(cmd, cwd, backend, log_stream=None) -> str:
    """Run a compiler command line (nvcc from PyPI or PATH) and return its output."""
    try:
        done = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True)
    except OSError as exc:
        raise NVCCException(f"{cmd[0]}: {exc.strerror}") from None
    output = done.stdout + done.stderr
    if log_stream is not None:
        log_stream.write(output)
    if done.returncode:
        raise NVCCException(f"{backend} failed (exit {done.returncode}):\n{' '.join(cmd)}\n{output}")
    return output


def compile_using_nvrtc(source: str, options=(), arch=None, filename: str = "kern.cu",
                        name_expressions=None, log_stream=None, cache_in_memory: bool = False,
                        jitify=JITIFY_UNSET):
    """PTX of `source` compiled by NVRTC for `arch` (default sm_90); CompileException on failure."""
    jitify = warn_jitify_deprecated(jitify)
    arch_option, _ = _get_arch_for_options_for_nvrtc(arch)
    try:
        result = compile_cuda(source, tuple(options) + (arch_option,), name=filename,
                              name_expressions=tuple(name_expressions or ()))
    except CompileError as exc:
        if not jitify:
            raise
        raise JitifyException(str(exc).split("\n", 1)[0], exc.log) from None
    if log_stream is not None and result.log:
        log_stream.write(result.log)
    if name_expressions:
        return result.ptx, dict(result.lowered_names)
    return result.ptx


def get_nvcc_path() -> str | None:
    """nvcc as CuPy finds it: $NVCC, else the PyPI wheel's (nvidia-cuda-nvcc; the `cuda` setting's
    toolchain when there is one), else one on PATH (cupy.cuda.get_nvcc_path)."""
    if os.environ.get("NVCC"):
        return os.environ["NVCC"]
    from ....toolchains import cuda_tool, pypi_tools, requested_cuda
    if requested_cuda():
        return cuda_tool("nvcc")            # the `cuda` setting's, or an error saying how to install it
    found = pypi_tools("nvcc")
    return found[0] if found else shutil.which("nvcc")


def compile_using_nvcc(source, options=(), arch=None, filename="kern.cu", code_type="cubin",
                       separate_compilation=False, log_stream=None):
    """What nvcc (PyPI's, or $NVCC) makes of `source` for sm_`arch`, as CuPy's does: the cubin's
    or PTX's bytes (code_type 'cubin' or 'ptx'); NVCCException with nvcc's output on failure.
    A cubin holds SASS only: load the 'ptx' result to run it on warpsim."""
    if code_type not in ("cubin", "ptx"):
        raise ValueError(f"Invalid code_type {code_type!r}: 'cubin' or 'ptx'")
    nvcc = get_nvcc_path()
    if not nvcc:
        raise not_provided("cupy.cuda.compiler.compile_using_nvcc",
                           "no nvcc found: pip install nvidia-cuda-nvcc, or set $NVCC")
    arch = str(arch or _get_arch())
    with tempfile.TemporaryDirectory(prefix="warpsim_nvcc_") as folder:
        path = os.path.join(folder, os.path.basename(filename))
        output = os.path.splitext(path)[0] + "." + code_type
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        command = [nvcc, f"--{code_type}", f"-arch=sm_{arch}" if code_type == "cubin" else f"-arch=compute_{arch}",
                   *(["-rdc=true"] if separate_compilation else []), *map(str, options), path, "-o", output]
        _run_cc(command, folder, "nvcc", log_stream)
        with open(output, "rb") as handle:
            return handle.read()


def is_valid_kernel_name(name: str) -> bool:
    return name.isidentifier()


def __getattr__(name):
    raise missing_attribute("cupy.cuda.compiler", name)
