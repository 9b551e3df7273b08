"""The warpsim backend's launcher: one Triton launch run on warpsim, with its predicted time.

Triton's CompiledKernel calls `launcher(gridX, gridY, gridZ, stream, function,
packed_metadata, launch_metadata, enter_hook, exit_hook, *args)` with every
bound argument, constexprs included, as it calls the NVIDIA launcher. Here
constexprs are dropped (they are compiled in), tensors (torch CPU tensors,
NumPy arrays: host_arrays.py) become device pointers to their memory,
addressed in place (warpsim.machine.host_ranges registers a tensor's storage
for the launch; nothing is copied), host-side tensor descriptors become what
Triton's launcher passes (tensor_maps.py: a tensor map, shape and strides at
sm_90), scalars take the NumPy type of their Triton type (bf16: the upper half
of the fp32 value, rounded to nearest even), and the global and profiling scratch buffers Triton's launcher would allocate are
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
from ...machine.host_ranges import HostRanges, host_bytes, merged
from ...machine.memory import GLOBAL_BASE
from .cuda_tensors import storage_block
from .host_arrays import array_block
from .taken_addresses import live_tensors
from .tensor_maps import descriptor_parameters

SCALAR_TYPES = {"i1": np.bool_, "u1": np.bool_, "i8": np.int8, "u8": np.uint8, "i16": np.int16,
                "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
                "fp16": np.float16, "fp32": np.float32, "fp64": np.float64}


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
    if isinstance(value, np.ndarray):
        return array_block(value)
    pointer = int(value.data_ptr())
    storage = getattr(value, "untyped_storage", None)
    if storage is not None:                            # a torch tensor: the whole storage
        base, nbytes = storage_block(storage())
        return base, nbytes, pointer
    nbytes = int(getattr(value, "nbytes", 0))
    return pointer, nbytes, pointer


class WarpsimLauncher:
    """Triton's launcher_cls for the warpsim driver (see the module doc)."""

    def __init__(self, src, metadata):
        self.signature = tuple(src.signature.values())
        self.metadata = metadata
        self.num_ctas = getattr(metadata, "num_ctas", 1)

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
    tensors = list(_tensors(params))
    blocks = _host_blocks(memory, tensors)       # one per tensor outside the heap
    taken = _host_blocks(memory, live_tensors())
    try:
        for address, size in zip(scratch, (metadata.global_scratch_size, metadata.profile_scratch_size)):
            if address:
                memory.memset(address, 0, programs * size)
        with HostRanges(memory).launch(blocks, f"a tensor's storage, given to {name}") as device_address, \
                HostRanges(memory).launch(taken, "a tensor whose data_ptr() the script took"):
            def address_of(tensor) -> int:
                pointer = int(host_block(tensor)[2])
                return pointer if _in_heap(memory, pointer) else device_address(pointer)
            descriptor_metas = iter(getattr(metadata, "tensordesc_meta", None) or ())
            values = []
            for kind, value in params:
                values += _parameter_values(kind, value, address_of, descriptor_metas, name)
            values += scratch
            packed = pack(function.module, name, values)
            recorder = _timing_recorder(gpu, function, grid, block, metadata.shared)
            heap_tensors = len(blocks) < len(tensors)
            alone = None if heap_tensors else _sass_alone(gpu, function, grid, block, metadata.shared, recorder)
            saved = _snapshot(memory, blocks + taken, scratch, programs, metadata) if alone else None
            try:
                function.module.launch(name, grid, block, packed, shared_mem=metadata.shared,
                                       observers=tuple(o for o in (alone, recorder) if o is not None))
            except WarpsimError:
                if alone is None or not alone.started:      # the PTX run's own error
                    raise
                # the SASS run stopped partway (an instruction form it lacks, or a fault): the
                # memory it wrote goes back, and the PTX run takes the launch and says what happened
                _restore(memory, saved)
                recorder = _timing_recorder(gpu, function, grid, block, metadata.shared)
                alone = None
                function.module.launch(name, grid, block, packed, shared_mem=metadata.shared,
                                       observers=(recorder,) if recorder else ())
            if alone is not None and alone.ran_alone:
                recorder = alone.observers[0]
        gpu.advance(_predicted_seconds(gpu, recorder, name, _launch_key(name, grid, params)))
    finally:
        for address in scratch:
            if address:
                memory.free(address)


def _host_blocks(memory, tensors) -> list:
    """The (base, nbytes) host blocks of tensors outside warpsim's heap."""
    blocks = []
    for tensor in tensors:
        base, nbytes, pointer = host_block(tensor)
        if not _in_heap(memory, pointer):
            blocks.append((base, nbytes))
    return blocks


def _is_tensor(value) -> bool:
    return isinstance(value, np.ndarray) or hasattr(value, "data_ptr")


def _tensors(params: list):
    """The tensors a launch addresses: pointer arguments and host-side descriptors' bases."""
    for kind, value in params:
        if kind.startswith("*") and value is not None and _is_tensor(value):
            yield value
        elif kind.startswith("tensordesc") and _is_tensor(getattr(value, "base", None)):
            yield value.base


def _in_heap(memory, pointer: int) -> bool:
    return GLOBAL_BASE <= pointer < GLOBAL_BASE + len(memory.buffer)


def _parameter_values(kind: str, value, address_of, descriptor_metas, kernel: str) -> list:
    """The PTX parameter values of one Triton argument (a descriptor gives several)."""
    if kind.startswith("*"):
        if value is None:
            return [("ptr", 0)]
        if not _is_tensor(value):
            raise LaunchError(f"kernel {kernel}: a pointer argument must be a tensor (with data_ptr()) or a "
                              f"NumPy array, got {type(value).__name__}", kernel=kernel)
        return [("ptr", address_of(value))]
    if kind.startswith("tensordesc"):
        base = getattr(value, "base", None)
        if not _is_tensor(base):
            raise LaunchError(f"kernel {kernel}: a tensor descriptor argument must be a "
                              f"triton.tools.tensor_descriptor.TensorDescriptor over a tensor, got "
                              f"{type(value).__name__}", kernel=kernel)
        try:
            return descriptor_parameters(value, next(descriptor_metas, None), address_of(base))
        except ValueError as error:                 # encode_tiled refuses what the driver refuses
            raise LaunchError(f"kernel {kernel}: tensor descriptor {value.shape} / {value.block_shape}: "
                              f"{error}", kernel=kernel) from None
    if kind == "bf16":
        return [("scalar", bfloat16_bits(value))]
    dtype = SCALAR_TYPES.get(kind)
    if dtype is None:
        raise LaunchError(f"kernel {kernel}: an argument of Triton type {kind} is not yet supported by "
                          "warpsim's Triton backend", kernel=kernel)
    return [("scalar", np.array(value).astype(dtype))]


def bfloat16_bits(value) -> np.uint16:
    """A bf16 scalar's bits: the fp32 value's upper half, rounded to nearest even (NaN stays NaN)."""
    bits = int(np.array(float(value), dtype=np.float32).view(np.uint32))
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF:
        return np.uint16((bits >> 16) | 0x0040)
    bits += 0x7FFF + ((bits >> 16) & 1)
    return np.uint16((bits >> 16) & 0xFFFF)


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
        raw = struct.pack("<Q", data) if what == "ptr" else data if what == "tensormap" else data.tobytes()
        buffer[offset:offset + size] = raw[:size].ljust(size, b"\0")
    return bytes(buffer)


def _timing_recorder(gpu, function: LoadedKernel, grid, block, shared: int):
    from ...timing.sample import LaunchTimingRecorder
    try:
        return LaunchTimingRecorder(function.module, function.name, grid, block, shared, gpu.gpu)
    except WarpsimError as error:
        _unpredicted(gpu, function.name, error)
        return None


def _sass_alone(gpu, function: LoadedKernel, grid, block, shared: int, ptx_recorder):
    """The launch's run on the SASS executor in place of its PTX run, with the timing sample taken
    from it (the model then times what the H200 issues, not PTX counts mapped to SASS lines); None
    where the SASS cannot be had (the PTX run and its recorder stay, as they do where the SASS
    run declines: sass/alone.py)."""
    from ...sass.alone import SassAloneRun, why_not_alone
    from ...timing.sample import SassTimingRecorder
    if ptx_recorder is None or why_not_alone(function.module):
        return None
    try:
        sampler = SassTimingRecorder(function.module, function.name, grid, block, shared, gpu.gpu)
    except (WarpsimError, ValueError):
        return None
    alone = SassAloneRun(None, observers=[sampler])
    alone.stand_for(ptx_recorder)
    return alone


def _snapshot(memory, host_blocks, scratch, programs, metadata) -> list:
    """Copies of what a launch can write (its tensors' host blocks, its scratch buffers), so a SASS
    run that stops partway can be undone before the PTX run takes the launch."""
    saved = [("host", base, host_bytes(base, nbytes).copy()) for base, nbytes in merged(host_blocks)]
    for address, size in zip(scratch, (metadata.global_scratch_size, metadata.profile_scratch_size)):
        if address:
            saved.append(("heap", address, memory.read_bytes(address, programs * size).copy()))
    return saved


def _restore(memory, saved) -> None:
    for where, address, data in saved:
        if where == "host":
            host_bytes(address, len(data))[:] = data
        else:
            memory.write_bytes(address, data)


def _launch_key(name: str, grid: tuple, params: list) -> tuple:
    """What makes two launches the same one for the L2 (device.py): the kernel and grid, and its
    tensors' shapes, strides and types rather than their addresses; a GPU's caching allocator gives
    a script's fresh output tensor of the same size the block the last one freed, so a loop that
    allocates its outputs each time still finds them in L2."""
    def part(value):
        if _is_tensor(value):
            return (tuple(value.shape), tuple(value.stride()) if callable(getattr(value, "stride", None))
                    else tuple(value.strides), str(value.dtype))
        return repr(value)
    return name, tuple(grid), tuple(part(v) for _, v in params)


def _predicted_seconds(gpu, recorder, kernel: str, key) -> float:
    """The launch's predicted time, from what the GPU's L2 holds of its data (device.py)."""
    if recorder is None:
        return 0.0
    try:
        timing = recorder.timing(l2_since=gpu.l2_since(key))
        gpu.l2_ran(key, timing.details.get("footprint_bytes", 0.0))
        return timing.time_s
    except WarpsimError as error:
        _unpredicted(gpu, kernel, error)
        return 0.0


def _unpredicted(gpu, kernel: str, error) -> None:
    if kernel not in gpu.unpredicted:
        gpu.unpredicted.append(kernel)
        print(f"warpsim: no predicted time for Triton kernel {kernel} ({error}); do_bench and autotune "
              "count only its launch overhead", file=sys.stderr)
