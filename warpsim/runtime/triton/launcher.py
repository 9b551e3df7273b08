"""The warpsim backend's launcher: one Triton launch run on warpsim, with its predicted time.

Triton's CompiledKernel calls `launcher(gridX, gridY, gridZ, stream, function,
packed_metadata, launch_metadata, enter_hook, exit_hook, *args)` with every
bound argument, constexprs included, as it calls the NVIDIA launcher. Here
constexprs are dropped (they are compiled in), tensors become device
pointers to their memory, addressed in place (warpsim.machine.host_ranges
registers a torch CPU tensor's storage for the launch; nothing is copied), scalars take the NumPy type of their Triton type, and
the global and profiling scratch buffers Triton's launcher would allocate are
added (per CTA, zeroed). The PTX runs on warpsim's device over
gridX * num_ctas CTAs of 32 * num_warps threads with Triton's dynamic shared
memory; a sampled-CTA recorder gives the launch's predicted time, which
advances the predicted clock (device.py).
"""

from __future__ import annotations

import struct
import sys

import numpy as np

from ...errors import LaunchError, WarpsimError
from ...machine.host_ranges import HostRanges
from ...machine.memory import GLOBAL_BASE

SCALAR_TYPES = {"i1": np.bool_, "u1": np.bool_, "i8": np.int8, "u8": np.uint8, "i16": np.int16,
                "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
                "fp16": np.float16, "bf16": None, "fp32": np.float32, "fp64": np.float64}


class LoadedKernel:
    """What the driver's load_binary returns as Triton's `function`: a kernel loaded on warpsim."""

    def __init__(self, module, name: str):
        self.module, self.name = module, name

    def __repr__(self) -> str:
        return f"<warpsim Triton kernel {self.name}>"


def flatten(signature, args) -> list:
    """(Triton type, value) of each kernel parameter: constexprs dropped, tuples flattened."""
    out = []
    for kind, value in zip(signature, args):
        if isinstance(kind, tuple):
            out += flatten(kind, value)
        elif kind != "constexpr":
            out.append((kind, value))
    return out


def host_block(value) -> tuple[int, int, int]:
    """(block base, block bytes, pointer) of a tensor argument: its storage, or its own bytes."""
    pointer = int(value.data_ptr())
    storage = getattr(value, "untyped_storage", None)
    if storage is not None:                            # a torch tensor: the whole storage
        storage = storage()
        return int(storage.data_ptr()), int(storage.nbytes()), pointer
    nbytes = int(getattr(value, "nbytes", 0))
    return pointer, nbytes, pointer


class WarpsimLauncher:
    """Triton's launcher_cls for the warpsim driver (see the module doc)."""

    def __init__(self, src, metadata):
        self.signature = tuple(src.signature.values())
        self.metadata = metadata
        self.num_ctas = getattr(metadata, "num_ctas", 1)
        if getattr(metadata, "tensordesc_meta", None):
            raise LaunchError(f"kernel {metadata.name}: tensor descriptor arguments are not yet supported "
                              "by warpsim's Triton backend (docs/triton.md, 'Not yet')", kernel=metadata.name)

    def __call__(self, grid_x, grid_y, grid_z, stream, function, packed_metadata, launch_metadata,
                 enter_hook, exit_hook, *args):
        from .device import active_gpu
        if enter_hook is not None:
            enter_hook(launch_metadata)
        run_launch(active_gpu(), function, self.metadata, (grid_x * self.num_ctas, grid_y, grid_z),
                   flatten(self.signature, args))
        if exit_hook is not None:
            exit_hook(launch_metadata)


def run_launch(gpu, function: LoadedKernel, metadata, grid: tuple, params: list) -> None:
    """Run one launch on gpu's device and advance its predicted clock."""
    memory = gpu.device.memory
    name = function.name
    block = (32 * metadata.num_warps, 1, 1)
    programs = grid[0] * grid[1] * grid[2]
    scratch = [memory.allocate(programs * size, align=max(align, 1), initialized=True) if size else 0
               for size, align in ((metadata.global_scratch_size, metadata.global_scratch_align),
                                   (metadata.profile_scratch_size, metadata.profile_scratch_align))]
    blocks, pointers = [], []
    for kind, value in params:
        if kind.startswith("*") and value is not None and hasattr(value, "data_ptr"):
            base, nbytes, pointer = host_block(value)
            if not _in_heap(memory, pointer):
                blocks.append((base, nbytes))
    try:
        for address, size in zip(scratch, (metadata.global_scratch_size, metadata.profile_scratch_size)):
            if address:
                memory.memset(address, 0, programs * size)
        with HostRanges(memory).launch(blocks, f"a tensor's storage, given to {name}") as device_address:
            values = []
            for kind, value in params:
                values.append(_parameter_value(kind, value, device_address, memory, name))
            values += scratch
            packed = pack(function.module, name, values)
            recorder = _timing_recorder(gpu, function, grid, block, metadata.shared)
            function.module.launch(name, grid, block, packed, shared_mem=metadata.shared,
                                   observers=(recorder,) if recorder else ())
        gpu.advance(_predicted_seconds(gpu, recorder, name))
    finally:
        for address in scratch:
            if address:
                memory.free(address)


def _in_heap(memory, pointer: int) -> bool:
    return GLOBAL_BASE <= pointer < GLOBAL_BASE + len(memory.buffer)


def _parameter_value(kind: str, value, device_address, memory, kernel: str):
    if kind.startswith("*"):
        if value is None:
            return ("ptr", 0)
        if not hasattr(value, "data_ptr"):
            raise LaunchError(f"kernel {kernel}: a pointer argument must be a tensor (with data_ptr()), "
                              f"got {type(value).__name__}", kernel=kernel)
        pointer = int(value.data_ptr())
        return ("ptr", pointer if _in_heap(memory, pointer) else device_address(pointer))
    if kind.startswith("tensordesc"):
        raise LaunchError(f"kernel {kernel}: tensor descriptor arguments are not yet supported by warpsim's "
                          "Triton backend", kernel=kernel)
    dtype = SCALAR_TYPES.get(kind)
    if dtype is None:
        raise LaunchError(f"kernel {kernel}: an argument of Triton type {kind} is not yet supported by "
                          "warpsim's Triton backend", kernel=kernel)
    return ("scalar", np.array(value).astype(dtype))


def pack(module, kernel: str, values: list) -> bytes:
    """The parameter buffer: each value at its PTX parameter's offset."""
    layout = module.params(kernel)
    if len(layout) != len(values):
        raise LaunchError(f"kernel {kernel}: the PTX takes {len(layout)} parameters, the launch gives "
                          f"{len(values)}", kernel=kernel)
    buffer = bytearray(max((offset + size for _, offset, size, _, _ in layout), default=0))
    for (_, offset, size, _, _), value in zip(layout, values):
        if isinstance(value, int):                    # a scratch buffer's address (0: none)
            value = ("ptr", value)
        what, data = value
        raw = struct.pack("<Q", data) if what == "ptr" else data.tobytes()
        buffer[offset:offset + size] = raw[:size].ljust(size, b"\0")
    return bytes(buffer)


def _timing_recorder(gpu, function: LoadedKernel, grid, block, shared: int):
    from ...timing.sample import LaunchTimingRecorder
    try:
        return LaunchTimingRecorder(function.module, function.name, grid, block, shared, gpu.gpu)
    except WarpsimError as error:
        _unpredicted(gpu, function.name, error)
        return None


def _predicted_seconds(gpu, recorder, kernel: str) -> float:
    if recorder is None:
        return 0.0
    try:
        return recorder.timing().time_s
    except WarpsimError as error:
        _unpredicted(gpu, kernel, error)
        return 0.0


def _unpredicted(gpu, kernel: str, error) -> None:
    if kernel not in gpu.unpredicted:
        gpu.unpredicted.append(kernel)
        print(f"warpsim: no predicted time for Triton kernel {kernel} ({error}); do_bench and autotune "
              "count only its launch overhead", file=sys.stderr)
