"""The exceptions CuPy raises around kernels, as warpsim raises them.

CuPy programs and tests catch these by CuPy's names
(`cupy.cuda.driver.CUDADriverError`, `cupy.cuda.compiler.CompileException`),
so warpsim raises its own errors as subclasses of them: a kernel name the
module lacks is a CUDADriverError naming CUDA_ERROR_NOT_FOUND, a failed NVRTC
compile a CompileException carrying NVRTC's log.
"""

from __future__ import annotations

from ..errors import CompileError, WarpsimError

__all__ = ["CUDADriverError", "CUDARuntimeError", "CompileException", "JitifyException"]


class CUDADriverError(WarpsimError, RuntimeError):
    """A failure the CUDA driver would report; the message starts with its error name."""

    def __init__(self, message: str, status: str = ""):
        self.status = status
        super().__init__(f"{status}: {message}" if status else message)


class CUDARuntimeError(WarpsimError, RuntimeError):
    """A failure the CUDA runtime would report (cudaError...)."""


class CompileException(CompileError):
    """NVRTC refused the source (CuPy's cupy.cuda.compiler.CompileException); `log` is NVRTC's log."""

    def __init__(self, message: str, log: str = "", source: str = "", name: str = "", options=()):
        super().__init__(message, log)
        self.source, self.name, self.options = source, name, tuple(options)

    def get_message(self) -> str:
        return str(self)

    def dump(self, stream) -> None:
        stream.write(f"{self}\n{self.source}\n")


class JitifyException(CompileException):
    """A compile asked for with jitify=True that failed (CuPy's name for it)."""
