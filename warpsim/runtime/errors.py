"""cudaError_t: the codes, names and strings of CUDA 13's runtime (driver_types.h), and which
warpsim exceptions become which code.

Sticky errors (a fault inside a kernel) leave the context unusable, as on a GPU:
every later call returns the same code and cudaGetLastError does not clear it.
"""

from __future__ import annotations

from ..errors import (DeadlockError, IllegalInstruction, InvalidConfiguration, LaunchError,
                      LaunchOutOfResources, LaunchRefused, MemoryFault, OutOfMemoryError, StackOverflow,
                      TrapError)

# code: (name, string as cudaGetErrorString gives it)
ERRORS = {
    0: ("cudaSuccess", "no error"),
    1: ("cudaErrorInvalidValue", "invalid argument"),
    2: ("cudaErrorMemoryAllocation", "out of memory"),
    3: ("cudaErrorInitializationError", "initialization error"),
    9: ("cudaErrorInvalidConfiguration", "invalid configuration argument"),
    12: ("cudaErrorInvalidPitchValue", "invalid pitch argument"),
    13: ("cudaErrorInvalidSymbol", "invalid device symbol"),
    15: ("cudaErrorUnsupportedLimit", "limit is not supported on this architecture"),
    17: ("cudaErrorInvalidDevicePointer", "invalid device pointer"),
    20: ("cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"),
    21: ("cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"),
    98: ("cudaErrorInvalidDeviceFunction", "invalid device function"),
    100: ("cudaErrorNoDevice", "no CUDA-capable device is detected"),
    101: ("cudaErrorInvalidDevice", "invalid device ordinal"),
    200: ("cudaErrorInvalidKernelImage", "device kernel image is invalid"),
    209: ("cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"),
    400: ("cudaErrorInvalidResourceHandle", "invalid resource handle"),
    401: ("cudaErrorIllegalState", "the operation cannot be performed in the present state"),
    500: ("cudaErrorSymbolNotFound", "named symbol not found"),
    600: ("cudaErrorNotReady", "device not ready"),
    712: ("cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"),
    713: ("cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"),
    715: ("cudaErrorIllegalInstruction", "an illegal instruction was encountered"),
    700: ("cudaErrorIllegalAddress", "an illegal memory access was encountered"),
    701: ("cudaErrorLaunchOutOfResources", "too many resources requested for launch"),
    702: ("cudaErrorLaunchTimeout", "the launch timed out and was terminated"),
    710: ("cudaErrorAssert", "device-side assert triggered"),
    716: ("cudaErrorMisalignedAddress", "misaligned address"),
    719: ("cudaErrorLaunchFailure", "unspecified launch failure"),
    720: ("cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"),
    800: ("cudaErrorNotPermitted", "operation not permitted"),
    801: ("cudaErrorNotSupported", "operation not supported"),
    900: ("cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"),
    901: ("cudaErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"),
    902: ("cudaErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"),
    903: ("cudaErrorStreamCaptureUnmatched", "capture was not initiated in this stream"),
    904: ("cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"),
    905: ("cudaErrorStreamCaptureIsolation", "operation would make the legacy stream depend on a capturing blocking "
          "stream"),
    910: ("cudaErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which "
          "violated constraints specific to instantiated graph update"),
    912: ("cudaErrorInvalidClusterSize", "a kernel launch error has occurred due to cluster misconfiguration"),
    999: ("cudaErrorUnknown", "unknown error"),
}
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
