"""The exceptions CuPy raises around kernels, as warpsim raises them.

CuPy programs and tests catch these by CuPy's names
(`cupy.cuda.driver.CUDADriverError`, `cupy.cuda.compiler.CompileException`),
so warpsim's errors are those classes: a kernel name the module lacks is a
CUDADriverError naming CUDA_ERROR_NOT_FOUND, and a failed NVRTC compile is
warpsim's CompileError, which is CuPy's CompileException (the same class),
carrying NVRTC's log. A launch CUDA refuses is a CUDADriverError too
(warpsim.errors.LaunchRefused and its kinds: InvalidConfiguration, InvalidValue, ...).
"""

from __future__ import annotations

import warnings

from ..errors import CompileError, CUDADriverError, CUDARuntimeError

__all__ = ["CUDADriverError", "CUDARuntimeError", "CompileException", "JitifyException",
           "JITIFY_UNSET", "warn_jitify_deprecated"]

JITIFY_UNSET = None     # `jitify` not passed: CuPy warns only when it is


CompileException = CompileError
"""CuPy's cupy.cuda.compiler.CompileException is warpsim's CompileError (NVRTC's log in `log`)."""


class JitifyException(CompileError):
    """A compile asked for with jitify=True that failed (CuPy's name for it)."""


def warn_jitify_deprecated(jitify) -> bool:
    """CuPy's DeprecationWarning for a `jitify=` argument (either value); returns jitify as a bool.

    warpsim has no Jitify: with jitify=True the source is compiled by NVRTC as it is.
    """
    if jitify is JITIFY_UNSET:
        return False
    if jitify:
        warnings.warn("jitify=True is deprecated (as in CuPy, which removes it in v15); warpsim "
                      "compiles the source with NVRTC as it is, without Jitify", DeprecationWarning,
                      stacklevel=3)
    else:
        warnings.warn("The jitify argument is deprecated (as in CuPy). "
                      "Avoid passing `jitify=False` to silence this warning.", DeprecationWarning,
                      stacklevel=3)
    return bool(jitify)
