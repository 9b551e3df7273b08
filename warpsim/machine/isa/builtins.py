"""Functions the CUDA runtime provides to device code: printf, assert, device-side launches, malloc,
cudaGraphSetConditional.

NVVM declares them `.extern .func` (vprintf, __assertfail, cudadevrt's
__cudaCDP2GetParameterBufferV2, __cudaCDP2LaunchDeviceV2 and cudaGraphSetConditional) and passes
arguments through .param variables; there is no PTX body to run, so warpsim
implements them here, per calling thread, in thread order (device-side
launches through machine/device_launch.py, conditional graph nodes' values through
machine/graph_conditions.py).

Device-side allocation (malloc/free, and cudadevrt's cudaMalloc/cudaFree from a
kernel: __cudaCDP2Malloc/__cudaCDP2Free) takes memory from the device's global
memory like a host cudaMalloc, so host copies and other kernels can use the
pointer as on a GPU (whose device heap is device memory too). The heap's size
limit (cudaLimitMallocHeapSize) is not applied: only the device's memory is.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from ...errors import TrapError
from ...semantics import printf
from .. import device_launch, graph_conditions
from ..memory import GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE

DEVICE_MALLOC = ("malloc", "__cudaCDP2Malloc")      # malloc(size) -> pointer; cudaMalloc(&p, size) -> error
DEVICE_FREE = ("free", "__cudaCDP2Free")
MEMORY_ALLOCATION = 2                                 # cudaErrorMemoryAllocation
BUILTINS = (("vprintf", "__assertfail") + device_launch.FUNCTIONS + DEVICE_MALLOC + DEVICE_FREE
            + graph_conditions.FUNCTIONS)
# The rest of the CUDA device runtime (cudadevrt): the runtime API called from device code
# (cudaMalloc, streams, events, ...). Not simulated.
DEVICE_RUNTIME_PREFIXES = ("__cudaCDP", "cuda")


def is_device_runtime(name: str) -> bool:
    """Whether a body-less function a kernel calls belongs to the CUDA device runtime."""
    return name.startswith(DEVICE_RUNTIME_PREFIXES) and name not in BUILTINS

def write_bytes(ctx, slot: int, address: int, data: bytes) -> None:
    """Store bytes at a generic address as thread `slot` sees it (shared, local or global)."""
    values = np.frombuffer(data, dtype=np.uint8)
    if SHARED_WINDOW <= address < SHARED_WINDOW + WINDOW_SIZE:
        base = int(ctx.cta[slot]) * ctx.shared_size + address - SHARED_WINDOW
        ctx.shared[base:base + len(values)] = values
    elif LOCAL_WINDOW <= address < LOCAL_WINDOW + WINDOW_SIZE:
        base = slot * ctx.local_size + address - LOCAL_WINDOW
        ctx.local[base:base + len(values)] = values
    else:
        ctx.memory.write_bytes(address, values, operation="device runtime call")


def read_bytes(ctx, slot: int, address: int, nbytes: int) -> bytes:
    """Bytes at a generic address as thread `slot` sees them."""
    if SHARED_WINDOW <= address < SHARED_WINDOW + WINDOW_SIZE:
        base = int(ctx.cta[slot]) * ctx.shared_size + address - SHARED_WINDOW
        return ctx.shared[base:base + nbytes].tobytes()
    if LOCAL_WINDOW <= address < LOCAL_WINDOW + WINDOW_SIZE:
        base = slot * ctx.local_size + address - LOCAL_WINDOW
        return ctx.local[base:base + nbytes].tobytes()
    offset = address - GLOBAL_BASE
    if ctx.memory.host and not 0 <= offset < len(ctx.memory.buffer):    # a registered host range
        host = ctx.memory.host.find(address)
        if host is not None:
            return host.view[address - host.base:address - host.base + nbytes].tobytes()
    return ctx.memory.buffer[offset:offset + nbytes].tobytes()


def device_malloc(memory, size: int) -> int:
    """A device-side malloc of `size` bytes from the device's global memory: the pointer, or 0 when
    it does not fit (as a GPU's malloc returns NULL) or for 0 bytes. The SASS executor's malloc too."""
    from ...errors import OutOfMemoryError
    try:
        return memory.allocate(size) if size else 0
    except OutOfMemoryError:
        return 0


def device_free(memory, pointer: int) -> None:
    """A device-side free: a pointer that is no live allocation (NULL too) is left alone, as a
    GPU's says nothing either."""
    from ...errors import InvalidFree
    if pointer:
        try:
            memory.free(pointer)
        except InvalidFree:
            pass


def _allocation_call(ctx, idx, name: str, arg, return_keys) -> None:
    """malloc/free and device-side cudaMalloc/cudaFree for threads idx, in thread order."""

    def give(slot, value: int, nbytes: int) -> None:
        if return_keys:
            ctx.param_var(return_keys[0])[slot, :nbytes] = np.frombuffer(value.to_bytes(nbytes, "little"), np.uint8)

    for slot in idx:
        slot = int(slot)
        if name in DEVICE_FREE:
            device_free(ctx.memory, arg(0, slot))
            give(slot, 0, 4)
            continue
        size = arg(0 if name == "malloc" else 1, slot)
        pointer = device_malloc(ctx.memory, size)
        if name == "malloc":
            give(slot, pointer, 8)
        else:
            write_bytes(ctx, slot, arg(0, slot), pointer.to_bytes(8, "little"))
            give(slot, 0 if pointer or not size else MEMORY_ALLOCATION, 4)


def call_builtin(ctx, program, idx, name: str, arg_keys, return_keys, site):
    """Run a runtime function for threads idx, in thread order."""
    def arg(k, slot, size=8):
        return int.from_bytes(ctx.param_var(arg_keys[k])[slot, :size].tobytes(), "little")

    if name == "vprintf":
        lines = []
        for slot in idx:
            read = functools.partial(read_bytes, ctx, int(slot))
            text, count = printf.format_printf(read, printf.read_string(read, arg(0, slot)), arg(1, slot))
            lines.append(text)
            if return_keys:
                ctx.param_var(return_keys[0])[slot, :4] = np.frombuffer(
                    np.int32(count).tobytes(), dtype=np.uint8)
        sys.stdout.write("".join(lines))
        sys.stdout.flush()
        return
    if name == "__assertfail":
        slot = int(idx[0])
        read = functools.partial(read_bytes, ctx, slot)
        message = printf.read_string(read, arg(0, slot))
        file = printf.read_string(read, arg(1, slot))
        line = arg(2, slot, 4)
        function = printf.read_string(read, arg(3, slot))
        where = ctx.where(slot)
        raise TrapError(
            f"{file}:{line}: {function}: Assertion `{message}` failed "
            f"({len(idx)} thread(s) of this group)", kernel=ctx.kernel, block=where["block"],
            thread=where["thread"], ptx_line=site.ins.line, instruction=str(site.ins),
            source_line=site.described)
    if name in device_launch.GET_PARAMETER_BUFFER:
        for slot in idx:
            dims = [np.frombuffer(ctx.param_var(arg_keys[k])[slot, :12].tobytes(), dtype=np.uint32)
                    for k in (1, 2)]
            buffer = device_launch.get_parameter_buffer(ctx, program, int(slot), arg(0, slot),
                                                        dims[0], dims[1], arg(3, slot, 4))
            ctx.param_var(return_keys[0])[slot, :8] = np.frombuffer(np.uint64(buffer).tobytes(), np.uint8)
        return
    if name in device_launch.LAUNCH_DEVICE:
        for slot in idx:
            code = device_launch.launch_device(ctx, int(slot), arg(0, slot), arg(1, slot))
            if return_keys:
                ctx.param_var(return_keys[0])[slot, :4] = np.frombuffer(np.int32(code).tobytes(), np.uint8)
        return
    if name in device_launch.WRITES_THROUGH_FIRST or name in device_launch.ORDERING:
        for slot in idx:
            if name in device_launch.WRITES_THROUGH_FIRST:
                nbytes, value = device_launch.written_value(ctx, name)
                write_bytes(ctx, int(slot), arg(0, slot), int(value).to_bytes(nbytes, "little"))
            if return_keys:
                ctx.param_var(return_keys[0])[slot, :4] = 0
        return
    if name in device_launch.ERROR_TEXTS:
        for slot in idx:
            pointer = device_launch.error_text(ctx, name, arg(0, slot, 4))
            ctx.param_var(return_keys[0])[slot, :8] = np.frombuffer(np.uint64(pointer).tobytes(), np.uint8)
        return
    if name in device_launch.COPIES:
        for slot in idx:
            args = {}
            for k, field in enumerate(device_launch.COPIES[name]):
                key, _, size = field.partition(":")
                args[key] = arg(k, slot, int(size) if size else 8)
            code = device_launch.queue_copy(ctx, name, args)
            if return_keys:
                ctx.param_var(return_keys[0])[slot, :4] = np.frombuffer(np.int32(code).tobytes(), np.uint8)
        return
    if name in DEVICE_MALLOC or name in DEVICE_FREE:
        _allocation_call(ctx, idx, name, arg, return_keys)
        return
    if name in graph_conditions.FUNCTIONS:
        for slot in idx:
            graph_conditions.set_conditional(ctx, site, int(slot), arg(0, slot), arg(1, slot, 4))
        return
    if name in device_launch.GET_LAST_ERROR:
        for slot in idx:
            code = device_launch.last_error(ctx, int(slot), reset=name.endswith("GetLastError"))
            if return_keys:
                ctx.param_var(return_keys[0])[slot, :4] = np.frombuffer(np.int32(code).tobytes(), np.uint8)
        return
    raise AssertionError(name)
