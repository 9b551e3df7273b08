"""cudaError_t: which warpsim exceptions become which code (the codes, names and strings of CUDA 13's
runtime are errors.CUDA_ERRORS).

Sticky errors (a fault inside a kernel) leave the context unusable, as on a GPU:
every later call returns the same code and cudaGetLastError does not clear it.
"""

from __future__ import annotations

from ..errors import CUDA_ERRORS as ERRORS
from ..errors import (DeadlockError, IllegalInstruction, InvalidConfiguration, LaunchError,
                      LaunchOutOfResources, LaunchRefused, MemoryFault, OutOfMemoryError, StackOverflow,
                      TrapError)

CODES = {name: code for code, (name, _) in ERRORS.items()}
STICKY = {700, 710, 715, 716, 719, 702}


def code_of(error: BaseException) -> int:
    """The cudaError_t a warpsim exception stands for."""
    if isinstance(error, OutOfMemoryError):
        return CODES["cudaErrorMemoryAllocation"]
    if isinstance(error, LaunchRefused):
        return CODES.get(error.runtime_error, CODES["cudaErrorInvalidValue"])
    if isinstance(error, (InvalidConfiguration,)):
        return CODES["cudaErrorInvalidConfiguration"]
    if isinstance(error, LaunchOutOfResources):
        return CODES["cudaErrorLaunchOutOfResources"]
    if isinstance(error, MemoryFault):
        return CODES["cudaErrorMisalignedAddress" if "misaligned" in str(error) else
                     "cudaErrorIllegalAddress"]
    if isinstance(error, StackOverflow):
        return CODES["cudaErrorIllegalAddress"]
    if isinstance(error, IllegalInstruction):
        return CODES["cudaErrorIllegalInstruction"]
    if isinstance(error, TrapError):
        return CODES["cudaErrorAssert"] if "assert" in str(error).lower() else CODES["cudaErrorLaunchFailure"]
    if isinstance(error, DeadlockError):
        return CODES["cudaErrorLaunchTimeout"]
    if isinstance(error, LaunchError):
        return CODES["cudaErrorLaunchFailure"]
    return CODES["cudaErrorUnknown"]


def error_name(code: int) -> str:
    return ERRORS.get(code, ("cudaErrorUnknown", ""))[0] if code in ERRORS else "unrecognized error code"


def error_string(code: int) -> str:
    return ERRORS[code][1] if code in ERRORS else "unrecognized error code"
