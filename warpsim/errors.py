"""Errors a user sees. Each names the problem and where it is (and a warning, the user's line that caused it)."""

from __future__ import annotations

import os
import sys


# cudaError_t (driver_types.h, CUDA 13): code: (name, string as cudaGetErrorString gives it); the runtime
# returns them (runtime/errors.py), device code reads them (device-side cudaGetErrorString)
CUDA_ERRORS = {
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


class WarpsimError(Exception):
    """Base of every error warpsim raises on purpose."""


class CompileError(WarpsimError):
    """NVRTC or numba-cuda refused the source; `log` holds the compiler's log."""

    def __init__(self, message: str, log: str = ""):
        self.log = log
        super().__init__(f"{message}\n{log}" if log else message)


class PtxParseError(WarpsimError):
    """PTX text that does not parse: names file:line:column and the text."""

    def __init__(self, message: str, source: str, line: int, col: int, text: str = ""):
        self.source, self.line, self.col, self.text = source, line, col, text
        where = f"{source}:{line}:{col}"
        snippet = f"\n    {text}\n    {' ' * max(0, col - 1)}^" if text else ""
        super().__init__(f"{where}: {message}{snippet}")


class PtxVerifyError(PtxParseError):
    """PTX that parses but that ptxas would reject (undeclared registers, unknown labels,
    operand types, ...). `problems` holds (line, column, message) of each, first ten."""

    def __init__(self, problems: list, source: str, text: str = ""):
        self.problems = problems
        lines = text.split("\n")
        line, col, message = problems[0]
        others = "".join(f"\n{source}:{ln}:{cl}: {msg}" for ln, cl, msg in problems[1:])
        line_text = lines[line - 1].rstrip() if 0 < line <= len(lines) else ""
        super().__init__(message, source, line, col, line_text)
        self.args = (self.args[0] + others,)

    def __str__(self):
        return self.args[0]


class UnsupportedInstruction(WarpsimError):
    """An opcode or modifier combination warpsim does not simulate (raised before any launch)."""

    def __init__(self, instruction, reason: str = "", source: str = "<ptx>", function: str = "",
                 source_line: str = ""):
        self.instruction, self.reason = instruction, reason
        mods = "." + ".".join(instruction.mods) if instruction.mods else ""
        why = f": {reason}" if reason else ""
        where = f"{source}, PTX line {instruction.line} column {instruction.col}"
        if function:
            where += f", in {function}"
        if source_line:
            where += f" ({source_line})"
        super().__init__(f"{where}: unsupported instruction '{instruction.opcode}' "
                         f"(modifiers '{mods or 'none'}'){why}")


class DeviceRuntimeNotSimulated(UnsupportedInstruction):
    """A kernel calls a function of the CUDA device runtime (cudadevrt) that warpsim does not
    simulate: a runtime call from device code other than a launch, a stream, an event or an error
    (cudaMalloc, copies, memsets, attributes)."""


class OutOfMemoryError(WarpsimError, MemoryError):
    """An allocation the device's memory cannot hold (CuPy's cupy.cuda.memory.OutOfMemoryError).

    Raised before anything changed: the heap is as it was, later allocations
    that fit still succeed. The device's size is `warpsim.settings(device_memory=...)`.
    """

    def __init__(self, size: int, total: int, limit: int, reason: str = ""):
        self.size, self.total, self.limit = size, total, limit
        why = f"; {reason}" if reason else ""
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} "
                         f"bytes, device memory: {limit:,} bytes{why})")


class LaunchError(WarpsimError):
    """Something went wrong while a kernel ran; carries where it happened."""

    def __init__(self, message: str, *, kernel: str = "", block=None, thread=None,
                 ptx_line: int | None = None, instruction: str = "", source_line: str = ""):
        self.kernel, self.block, self.thread = kernel, block, thread
        self.ptx_line, self.instruction = ptx_line, instruction
        # 'file.cu:12', optionally followed by that line's text on the next line
        self.source_line, _, text = source_line.partition("\n")
        self.source_text = text.strip()
        parts = [message]
        if kernel:
            parts.append(f"  kernel: {kernel}")
        if block is not None:
            parts.append(f"  block: {tuple(block)}  thread: {tuple(thread) if thread is not None else '?'}")
        if ptx_line:
            parts.append(f"  PTX line {ptx_line}: {instruction}")
        if source_line:
            parts.append(f"  source: {source_line}")
        super().__init__("\n".join(parts))


class CUDADriverError(WarpsimError, RuntimeError):
    """A failure the CUDA driver would report; the message starts with its error name.

    CuPy's cupy.cuda.driver.CUDADriverError (warpsim.api.cupy.cuda.driver gives this class).
    """

    def __init__(self, message: str, status: str = ""):
        self.status = status
        super().__init__(f"{status}: {message}" if status else message)


class CUDARuntimeError(WarpsimError, RuntimeError):
    """A failure the CUDA runtime would report (cudaError...): CuPy's
    cupy.cuda.runtime.CUDARuntimeError (warpsim.api.cupy.cuda.runtime gives this class)."""


class MemoryRefused(CUDARuntimeError, CUDADriverError, ValueError):
    """A host-side memory operation CUDA refuses (a free, a copy, a memset): nothing changed.

    `cuda_error` is the driver API's name for it (cuMemFree, cuMemcpy*, cuMemsetD8 return it;
    also `status`), `runtime_error` the runtime API's (cudaFree, cudaMemcpy, cudaMemset; CuPy
    raises it as a CUDARuntimeError). `operation`, `address` and `size` say what was asked.
    A ValueError too, so code that caught the plain ValueError warpsim raised before still does.
    """

    cuda_error = "CUDA_ERROR_INVALID_VALUE"
    runtime_error = "cudaErrorInvalidValue"

    def __init__(self, reason: str, *, operation: str = "", address: int | None = None,
                 size: int | None = None):
        self.reason, self.operation, self.address, self.size = reason, operation, address, size
        super().__init__(f"{self.cuda_error} ({self.runtime_error}): {reason}")
        self.status = self.cuda_error

    def __reduce__(self):
        return _remake_memory_refusal, (type(self), self.reason, self.operation, self.address, self.size)


def _remake_memory_refusal(kind: type, reason: str, operation: str, address, size) -> "MemoryRefused":
    return kind(reason, operation=operation, address=address, size=size)


class InvalidFree(MemoryRefused):
    """A free of an address that is not the start of a live allocation: never allocated, inside
    an allocation, or freed already (cuMemFree / cudaFree refuse it: CUDA_ERROR_INVALID_VALUE)."""


class OutsideAllocation(MemoryRefused):
    """A host copy or memset whose device range is not inside one live allocation (or one
    registered host range): past an allocation's end, in no allocation, or in freed memory."""


class NegativeSize(MemoryRefused, OverflowError):
    """A copy or memset of a negative number of bytes. CUDA takes a size_t, so the driver sees a
    huge size; CuPy refuses it converting to size_t (an OverflowError, as this is too)."""


class HostBufferTooSmall(WarpsimError, ValueError):
    """A copy whose host side holds fewer bytes than the size asked for. CUDA cannot check a host
    buffer's size (the GPU would read or write past it); warpsim refuses before copying."""


class IncompatibleArrays(WarpsimError):
    """A copy between two arrays that do not match (Numba's copy_to_host / copy_to_device): the
    message starts with Numba's own ("incompatible shape: (4,) vs. (5,)") and names both sizes."""


class IncompatibleDtype(IncompatibleArrays, TypeError):
    """Arrays of different dtypes (a TypeError, as Numba's)."""


class IncompatibleShape(IncompatibleArrays, ValueError):
    """Arrays of different shapes, axes of length 1 aside (a ValueError, as Numba's)."""


class LaunchRefused(LaunchError, CUDADriverError):
    """A launch CUDA refuses before any thread runs: nothing ran and memory is as it was.

    `cuda_error` is the driver API's name for it (what cuLaunchKernel returns and
    CuPy and Numba report; also `status`, as CuPy's CUDADriverError has it),
    `runtime_error` the runtime API's (what <<<...>>> and cudaLaunchKernel return).
    The message starts with both; the driver's names are those the H200 returned for each
    case (validation/launch_errors). Each kind of refusal is a subclass, so a program
    can catch the one it expects; warpsim.cuda raises the same kinds as Numba's
    exception too (cuda.core's CUDAError).
    """

    cuda_error = "CUDA_ERROR_INVALID_VALUE"
    runtime_error = "cudaErrorInvalidValue"

    def __init__(self, reason: str, *, kernel: str = ""):
        self.reason = reason
        super().__init__(f"{self.cuda_error} ({self.runtime_error}): {reason}", kernel=kernel)
        self.status = self.cuda_error

    def __reduce__(self):            # pickled (Dask workers) as what it was made from, not its text
        return _remake_refusal, (type(self), self.reason, self.kernel)


def _remake_refusal(kind: type, reason: str, kernel: str) -> "LaunchRefused":
    return kind(reason, kernel=kernel)


class InvalidConfiguration(LaunchRefused, ValueError):
    """Grid or block dimensions CUDA does not allow: an axis below 1 or past its limit, more
    than 1024 threads a block (a ValueError too, as Numba's check of the dimensions is)."""

    runtime_error = "cudaErrorInvalidConfiguration"


class InvalidValue(LaunchRefused):
    """A launch value CUDA refuses: dynamic shared memory that is negative, not an int or past
    the kernel's limit, a block .maxntid (__launch_bounds__) or .reqntid forbids, a short
    parameter buffer."""


class LaunchOutOfResources(LaunchRefused):
    """A block the SM cannot hold: its threads need more registers than the register file has."""

    cuda_error = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
    runtime_error = "cudaErrorLaunchOutOfResources"


class ClusterSizeMismatch(LaunchRefused):
    """A grid that is not a whole number of the kernel's thread-block clusters (sm_90)."""

    cuda_error = "CUDA_ERROR_CLUSTER_SIZE_MISMATCH"
    runtime_error = "cudaErrorInvalidClusterSize"


class CooperativeLaunchTooLarge(LaunchRefused):
    """A cooperative launch (grid-wide sync) with more blocks than can be resident at once:
    blocks per SM by occupancy, times the GPU's SMs."""

    cuda_error = "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"
    runtime_error = "cudaErrorCooperativeLaunchTooLarge"


class MemoryFault(LaunchError):
    """An out-of-bounds, misaligned or unmapped access; never touches host memory."""


class DeadlockError(LaunchError):
    """No thread can make progress (barrier or warp-synchronous wait that never completes)."""


class BudgetExceeded(LaunchError):
    """The launch ran past its instruction budget (runaway loop)."""


class StackOverflow(LaunchError):
    """A call took a thread's stack past its limit (warpsim.settings(stack_size=...),
    CUDA's cudaLimitStackSize); on a GPU the launch fails with an illegal address."""


class TrapError(LaunchError):
    """The kernel executed trap (or brkpt), as assert() does."""


class IllegalInstruction(LaunchError):
    """A lane ran an instruction the GPU stops a launch at (cudaErrorIllegalInstruction): on sm_70 and
    later, a warp synchronization whose member mask leaves out the lane running it."""


class InternalError(LaunchError):
    """A bug in warpsim, not in the kernel: a Python error raised while a block ran.

    It names the kernel, block, thread and PTX instruction that were running;
    the original exception is chained as its cause.
    """


class MissingDependency(WarpsimError, ModuleNotFoundError):
    """An optional package a feature needs is not installed; names the extra that installs it.

    A ModuleNotFoundError too, so code that already tolerates a missing module
    (`except ImportError`) keeps working.
    """

    def __init__(self, module: str, *, extra: str, needed_for: str):
        self.extra = extra
        super().__init__(f"{module} is not installed (it is needed for {needed_for}): "
                         f"pip install warpsim[{extra}]", name=module)


def import_optional(module: str, *, extra: str, needed_for: str):
    """Import an optional dependency (triton, pytest, ...) where it is used, so that a plain
    `pip install warpsim` imports every module; MissingDependency names the extra."""
    import importlib
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != module and not module.startswith(f"{error.name}."):
            raise                       # the package is there but one of its own imports failed
        raise MissingDependency(module, extra=extra, needed_for=needed_for) from None


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_IN_WARPSIM: dict = {}     # code file name -> whether it is warpsim's (Numba warns at every small launch)


def user_stacklevel() -> int:
    """The `stacklevel` that makes a warning its caller gives point at the first frame outside
    warpsim: the user's line that launched or allocated, however deep inside warpsim it arose."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _in_warpsim(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _in_warpsim(filename: str) -> bool:
    inside = _IN_WARPSIM.get(filename)
    if inside is None:
        inside = _IN_WARPSIM[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return inside
