"""Dynamic parallelism: kernels that launch kernels (`<<<>>>` in device code, CUDA's CDP2).

nvcc turns a device-side launch into two calls of the device runtime
(cudadevrt): __cudaCDP2GetParameterBufferV2(kernel, grid, block, shared bytes)
gives a buffer the parent fills with the child's parameters, and
__cudaCDP2LaunchDeviceV2(buffer, stream) launches it. warpsim implements both
as builtins (isa/builtins.py calls these functions): the buffer is a device
allocation, and a launch is queued on the batch. Once every batch of the
parent grid has run, the device runs the queued grids in the order they were
launched, each a launch of its own whose own children run when it is done,
and then the tail launches (cudaStreamTailLaunch), in their order. Device-side
cudaMemcpyAsync / cudaMemsetAsync (and their 2D forms) queue with the grids.

This is a schedule a GPU may choose: under CDP2 a parent cannot wait for its
children (device-side cudaDeviceSynchronize is gone), children in a block's
stream run in order, fire-and-forget launches at any time, tail launches after
the parent grid and all its other work; the parent grid completes when its
children have. Nesting stops at CUDA's 24 levels. The kernel a parent names is its address in this module
(memory.FUNCTION_POINTER_BASE plus its entry block), the same address
`&kernel` gives in device code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import CUDA_ERRORS, LaunchError, WarpsimError
from .dimensions import launch_dimensions
from .memory import FUNCTION_POINTER_BASE

GET_PARAMETER_BUFFER = ("__cudaCDP2GetParameterBufferV2", "cudaGetParameterBufferV2")
LAUNCH_DEVICE = ("__cudaCDP2LaunchDeviceV2", "__cudaCDP2LaunchDeviceV2_ptsz",
                 "cudaLaunchDeviceV2", "cudaLaunchDeviceV2_ptsz")
GET_LAST_ERROR = ("__cudaCDP2GetLastError", "__cudaCDP2PeekAtLastError")   # device-side, per thread
# Device-side streams and events: child grids run one after another in launch order, which keeps
# every order a stream or an event asks for (an event is recorded after the launches it follows,
# a wait comes before the launches that depend on it). Creating one writes a handle through the
# first argument (bytes, value); the rest succeed and change nothing.
WRITES_THROUGH_FIRST = {"__cudaCDP2StreamCreateWithFlags": (8, "stream"),
                        "__cudaCDP2EventCreateWithFlags": (8, "event"),
                        "__cudaCDP2GetDevice": (4, 0), "__cudaCDP2GetDeviceCount": (4, 1)}
ORDERING = ("__cudaCDP2StreamDestroy", "__cudaCDP2EventDestroy", "__cudaCDP2EventRecord",
            "__cudaCDP2EventRecord_ptsz", "__cudaCDP2StreamWaitEvent", "__cudaCDP2StreamWaitEvent_ptsz")
# Device-side copies and fills (cudaMemcpyAsync, cudaMemsetAsync and their 2D forms in device code):
# queued on the batch with the child grids and run in that order, after the parent grid, as a stream
# of the launching thread runs them. Each name's arguments (a 64-bit word each but the fill value and
# the copy kind, 32-bit) in the order cuda_device_runtime_api.h gives them.
COPIES = {"__cudaCDP2MemcpyAsync": ("dst", "src", "count", "kind:4", "stream"),
          "__cudaCDP2Memcpy2DAsync": ("dst", "dpitch", "src", "spitch", "width", "height", "kind:4", "stream"),
          "__cudaCDP2MemsetAsync": ("dst", "value:4", "count", "stream"),
          "__cudaCDP2Memset2DAsync": ("dst", "dpitch", "value:4", "width", "height", "stream")}
COPIES.update({name + "_ptsz": names for name, names in list(COPIES.items())})
# cudaGetErrorName / cudaGetErrorString in device code: a pointer to the text in device memory
ERROR_TEXTS = {"__cudaCDP2GetErrorName": 0, "__cudaCDP2GetErrorString": 1}
STREAM_HANDLES, EVENT_HANDLES = 0x100, 0x10_0000   # device-side handles (not 0x3 or 0x4, CUDA's named streams)
FUNCTIONS = GET_PARAMETER_BUFFER + LAUNCH_DEVICE + GET_LAST_ERROR + tuple(WRITES_THROUGH_FIRST) + ORDERING + \
    tuple(COPIES) + tuple(ERROR_TEXTS)
MAX_DEPTH = 24                      # CUDA's nesting limit for device-side launches
INVALID_VALUE, INVALID_CONFIGURATION, INVALID_DEVICE_FUNCTION = 1, 9, 98
TAIL_LAUNCH_STREAM = 0x3            # cudaStreamTailLaunch
PARAMETER_ALIGN = 64


@dataclass
class ChildLaunch:
    """A grid a kernel launched: its kernel, shape, shared bytes and parameter buffer."""
    kernel: str
    grid: tuple
    block: tuple
    shared_mem: int
    buffer: int
    size: int
    tail: bool = False              # a tail launch: after the parent grid and its other work


@dataclass
class ChildCopy:
    """A copy or fill a kernel queued (COPIES): its arguments by name; 1D ones are 2D of one row."""
    name: str
    args: dict
    tail: bool = False              # (never a tail launch: it runs in launch order)

    def run(self, memory) -> None:
        a = self.args
        rows = a.get("height", 1)
        width = a.get("width", a.get("count", 0))
        for row in range(rows):
            dst = a["dst"] + row * a.get("dpitch", 0)
            if "src" in a:
                memory.copy_within(dst, a["src"] + row * a.get("spitch", 0), width, operation="device-side copy")
            else:
                memory.memset(dst, a["value"], width)


def queue_copy(ctx, name: str, args: dict) -> int:
    """Queue a device-side copy or fill behind the grids the batch launched; CUDA's error code."""
    if args.get("height", 1) > 1 and (args.get("dpitch", 0) < args["width"] or
                                       ("src" in args and args["spitch"] < args["width"])):
        return INVALID_VALUE
    _state(ctx)[1].append(ChildCopy(name, args))
    return 0


def error_text(ctx, name: str, code: int) -> int:
    """The device address of a code's name or string (ERROR_TEXTS), NUL-terminated, written once a
    device memory and kept for its life."""
    texts = ctx.memory.__dict__.setdefault("_error_texts", {})
    key = (ERROR_TEXTS[name], code)
    if key not in texts:
        entry = CUDA_ERRORS.get(code)
        text = entry[ERROR_TEXTS[name]] if entry else "unrecognized error code"
        data = text.encode() + b"\0"
        texts[key] = ctx.memory.allocate(len(data), 8, initialized=True)
        ctx.memory.write_bytes(texts[key], data, operation="device-side cudaGetErrorString")
    return texts[key]


def _errors(ctx) -> dict:
    """Per thread slot: the error of its last failed device-side launch call (none: success)."""
    return ctx.__dict__.setdefault("_device_launch_errors", {})


def last_error(ctx, slot: int, reset: bool) -> int:
    """cudaGetLastError (reset) / cudaPeekAtLastError in device code: this thread's last error."""
    errors = _errors(ctx)
    return errors.pop(slot, 0) if reset else errors.get(slot, 0)


def written_value(ctx, name: str) -> tuple[int, int]:
    """(bytes, value) a WRITES_THROUGH_FIRST function writes: a fresh handle, or a fixed value."""
    nbytes, what = WRITES_THROUGH_FIRST[name]
    if isinstance(what, int):
        return nbytes, what
    count = ctx.__dict__.setdefault("_device_handles", {"stream": 0, "event": 0})
    count[what] += 1
    return nbytes, (STREAM_HANDLES if what == "stream" else EVENT_HANDLES) + count[what]


def _state(ctx) -> tuple[dict, list]:
    """(parameter buffers handed out, grids launched) of the batch, made on first use."""
    found = ctx.__dict__.get("_device_launches")
    if found is None:
        found = ctx.__dict__["_device_launches"] = ({}, [])
    return found


def finished(ctx) -> list:
    """The grids the batch's threads launched, in launch order; buffers handed out but never
    launched are freed."""
    found = ctx.__dict__.pop("_device_launches", None)
    if not found:
        return []
    buffers, grids = found
    for child in buffers.values():
        ctx.memory.free(child.buffer)
    return grids


def get_parameter_buffer(ctx, program, slot: int, function: int, grid, block, shared_mem: int) -> int:
    """A device buffer for a child launch's parameters (0: not a kernel, or a shape CUDA refuses)."""
    kernel = next((name for name, gid in program.function_entry.items()
                   if FUNCTION_POINTER_BASE + gid == function), None)
    fn = program.module.functions.get(kernel) if kernel else None
    if fn is None or fn.kind != "entry":
        _errors(ctx)[slot] = INVALID_DEVICE_FUNCTION
        return 0
    try:
        grid, block = launch_dimensions(tuple(grid), "grid", kernel), launch_dimensions(tuple(block), "block", kernel)
    except WarpsimError:
        _errors(ctx)[slot] = INVALID_CONFIGURATION
        return 0
    size = max((off + n for _, off, n, _ in program.param_layouts[kernel]), default=0)
    buffer = ctx.memory.allocate(max(size, 1), PARAMETER_ALIGN, initialized=True)
    _state(ctx)[0][buffer] = ChildLaunch(kernel, grid, block, int(shared_mem), buffer, size)
    return buffer


def launch_device(ctx, slot: int, buffer: int, stream: int) -> int:
    """Queue the launch whose parameters are in `buffer`; CUDA's error code (0: launched)."""
    buffers, grids = _state(ctx)
    child = buffers.pop(buffer, None)
    if child is None:
        _errors(ctx)[slot] = INVALID_VALUE
        return INVALID_VALUE
    child.tail = stream == TAIL_LAUNCH_STREAM
    grids.append(child)
    return 0


def run_children(loaded, children: list, overrides: dict) -> None:
    """Run the grids a launch's threads launched, in order, each one level deeper."""
    depth = loaded.__dict__.get("_device_launch_depth", 0)
    if depth + 1 >= MAX_DEPTH:
        kernel = next((c.kernel for c in children if isinstance(c, ChildLaunch)), children[0].name)
        raise LaunchError(f"device-side launches nested deeper than CUDA's {MAX_DEPTH} levels "
                          f"(kernel {kernel})", kernel=kernel)
    memory = loaded.device.memory
    loaded.__dict__["_device_launch_depth"] = depth + 1
    try:
        for child in [c for c in children if not c.tail] + [c for c in children if c.tail]:
            if isinstance(child, ChildCopy):
                try:
                    child.run(memory)
                except WarpsimError as exc:
                    raise LaunchError(f"device-side {child.name.replace('__cudaCDP2', 'cuda')}: {exc}") from None
                continue
            try:
                params = memory.read_bytes(child.buffer, child.size, operation="device-side launch") \
                    if child.size else np.zeros(0, dtype=np.uint8)
                loaded._launch(child.kernel, child.grid, child.block, bytes(params), child.shared_mem,
                               (), None, overrides)
            finally:
                memory.free(child.buffer)
    finally:
        loaded.__dict__["_device_launch_depth"] = depth
