"""Run @triton.jit kernels on the simulated GPU: `from warpsim import triton as wt`.

    wt.launch(add_kernel, grid, x, y, out, n, BLOCK_SIZE=1024)
    wt.kernel(add_kernel)[grid](x, y, out, n, BLOCK_SIZE=1024)   # reads like add_kernel[grid](...)

The kernel is compiled by Triton's own compiler through
warpsim.frontends.triton, exactly as Triton's JIT would specialize it, for the
GPU the launch is for (`target_arch`): `arch=` when given, else the GPU the
settings chose (warpsim.settings(gpu=...), `warpsim profile --gpu`, WARPSIM_GPU:
sm_90 for the H100 and H200, sm_80 for the A100, sm_89 for the L4), else sm_80.
Its PTX is loaded and launched on the current warpsim device: one CTA per
program id (num_ctas > 1: a cluster of that many CTAs per program, as Triton's
launcher makes it), 32 * num_warps threads, Triton's dynamic shared memory
(opting in above 48 KB as Triton does), and the global and profiling scratch
buffers Triton's launcher would allocate (per CTA, zeroed; none when Triton asks
for none). Host-side tensor descriptors (`tensor_descriptor(array,
block_shape)`) are passed as Triton's launcher passes them: a tensor map
(`encode_tensor_map`, the GPU's 128-byte layout), the shape and the strides.

Arguments: warpsim device arrays, or NumPy arrays or torch tensors, which are
copied to the device before the launch and back after it (as numba.cuda does
with host arrays; a tensor's whole storage, so views keep their offsets and
strides), of any dtype Triton takes (bf16, fp8: torch's or ml_dtypes');
Python or NumPy scalars (bf16 ones rounded to nearest even); constexprs and options (num_warps,
num_stages) by keyword. `grid` is a tuple or, as in Triton, a function of the
launch's arguments by name (`lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)`).
Kernels show in warpsim.profile() and warpsim.check() with their Python lines.
"""

from __future__ import annotations

import ctypes
import hashlib

import numpy as np

from ..errors import LaunchError
from ..frontends.triton import DEFAULT_ARCH, CompiledTriton, compile_triton
from ..runtime.triton.launcher import bfloat16_bits, host_block
from ..runtime.triton.tensor_maps import encode_tensor_map
from ..settings import current
from ..timing.presets import gpu_preset
from .arrays import asarray, ndarray
from .raw import RawModule

__all__ = ["launch", "kernel", "compile", "target_arch", "TritonLauncher", "tensor_descriptor", "encode_tensor_map"]

_SCALAR_TYPES = {"i1": np.bool_, "u1": np.bool_, "i8": np.int8, "u8": np.uint8, "i16": np.int16,
                 "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
                 "fp16": np.float16, "fp32": np.float32, "fp64": np.float64}


class _DeviceDtype(str):
    """A dtype name (what Triton's specializer reads) that also says its size, as torch dtypes do.

    NumPy dtypes by name (ml_dtypes' bfloat16, float8_e4m3fn, float8_e5m2 included: Triton maps those
    names to bf16, fp8e4nv, fp8e5); a torch dtype by its name after "torch.".
    """

    def __new__(cls, dtype):
        if not isinstance(dtype, np.dtype) and hasattr(dtype, "itemsize") and str(dtype).startswith("torch."):
            name = super().__new__(cls, str(dtype).split(".", 1)[1])
            name.itemsize, name.is_floating_point = int(dtype.itemsize), bool(dtype.is_floating_point)
            return name
        dtype = np.dtype(dtype)
        name = super().__new__(cls, dtype.name)
        name.itemsize = dtype.itemsize
        name.is_floating_point = dtype.kind == "f" or "float" in dtype.name     # ml_dtypes' kind is 'V'
        return name


class _DeviceArgument:
    """What Triton's specializer reads of a tensor: its address and dtype (`host`: copy back to it).

    `offset`: bytes from the array's start to the tensor's first element (a torch tensor's copy holds
    its whole storage, so strided views and offsets read as on a GPU)."""

    def __init__(self, array: ndarray, host=None, dtype=None, offset: int = 0):
        self.array, self.host, self.offset = array, host, offset
        self.dtype = _DeviceDtype(array.dtype if dtype is None else dtype)

    def data_ptr(self) -> int:
        return self.array.data.ptr + self.offset


class _TorchStorage:
    """A torch tensor's storage as host bytes: read into a device copy, written back after the launch
    (as NumPy arguments are), without importing torch."""

    def __init__(self, tensor):
        self.base, self.nbytes, self.pointer = host_block(tensor)

    def read(self) -> np.ndarray:
        return np.ctypeslib.as_array((ctypes.c_uint8 * self.nbytes).from_address(self.base)).copy()

    def __setitem__(self, _, values) -> None:           # `host[...] = device bytes`, as for NumPy
        ctypes.memmove(self.base, np.ascontiguousarray(values, dtype=np.uint8).ctypes.data, self.nbytes)

    @property
    def shape(self) -> tuple:
        return (self.nbytes,)


def _is_torch_tensor(arg) -> bool:
    return hasattr(arg, "data_ptr") and hasattr(arg, "untyped_storage") and hasattr(arg, "dtype")


def tensor_descriptor(array, block_shape, padding: str = "zero"):
    """A Triton TensorDescriptor over a warpsim array (a NumPy array is copied in, and back after
    each launch), for kernels that take host-side tensor descriptors (TMA), as
    `TensorDescriptor(tensor, tensor.shape, tensor.stride(), block_shape)` does on a GPU."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    host = array if isinstance(array, np.ndarray) else None
    device = asarray(np.ascontiguousarray(array)) if host is not None else array
    strides = [s // device.itemsize for s in device.strides]
    return TensorDescriptor(_DeviceArgument(device, host), list(device.shape), strides, list(block_shape),
                            padding)


def _is_descriptor(arg) -> bool:
    return type(arg).__name__ == "TensorDescriptor" and isinstance(getattr(arg, "base", None), _DeviceArgument)


def _to_device(args) -> tuple[list, list]:
    """(arguments for Triton, (host array, device copy) pairs to copy back after the launch)."""
    converted, copies = [], []
    for arg in args:
        if isinstance(arg, np.ndarray):
            device = asarray(np.ascontiguousarray(arg))
            copies.append((arg, device))
            arg = device
        elif _is_torch_tensor(arg):
            storage = _TorchStorage(arg)
            device = asarray(storage.read())
            copies.append((storage, device))
            converted.append(_DeviceArgument(device, dtype=arg.dtype, offset=storage.pointer - storage.base))
            continue
        elif _is_descriptor(arg) and arg.base.host is not None:
            copies.append((arg.base.host, arg.base.array))
        converted.append(_DeviceArgument(arg) if isinstance(arg, ndarray) else arg)
    return converted, copies


def _grid3(grid, meta: dict) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(meta)
    grid = tuple(int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,)))
    if not 1 <= len(grid) <= 3:
        raise LaunchError(f"a Triton grid has 1 to 3 dimensions, got {grid}")
    return grid + (1,) * (3 - len(grid))


def _meta(fn, args, kwargs) -> dict:
    """The launch's arguments by parameter name (what a callable grid receives in Triton)."""
    names = [p.name for p in fn.params]
    meta = {p.name: p.default for p in fn.params if p.has_default}
    meta.update(zip(names, args))
    meta.update(kwargs)
    return meta


_MODULES: dict = {}
OPT_IN_SHARED = 48 * 1024     # above this a kernel opts in to more dynamic shared memory


def _function(compiled: CompiledTriton):
    """The loaded kernel for this PTX (one RawModule per distinct PTX)."""
    digest = hashlib.sha256(compiled.ptx.encode()).hexdigest()
    if digest not in _MODULES:
        _MODULES[digest] = RawModule(ptx=compiled.ptx)
    return _MODULES[digest].get_function(compiled.name)


def _parameter_values(compiled: CompiledTriton, grid) -> list:
    values = []
    kinds = [kind for kind in compiled.signature.values() if kind != "constexpr"]
    metas = iter(compiled.tensordesc_meta)
    for value, kind in zip(compiled.runtime_args, kinds):
        if kind.startswith("tensordesc"):
            meta = next(metas, None)
            if meta is None or not _is_descriptor(value):
                raise LaunchError(f"kernel {compiled.name}: tensor descriptor arguments are supported at "
                                  f"sm_90 (TMA), made with warpsim.triton.tensor_descriptor", kernel=compiled.name)
            values += [encode_tensor_map(value, meta), *(np.int32(d) for d in value.shape),
                       *(np.int64(s) for s in value.strides)]
        elif isinstance(value, _DeviceArgument):
            values.append(np.uint64(value.data_ptr()) if value.offset else value.array)
        elif value is None:
            values.append(None)
        elif kind == "bf16":
            values.append(bfloat16_bits(value))
        elif kind in _SCALAR_TYPES:
            values.append(_SCALAR_TYPES[kind](value))
        else:
            raise LaunchError(f"kernel {compiled.name}: argument of Triton type {kind} is not supported "
                              "by warpsim's Triton launcher", kernel=compiled.name)
    programs = grid[0] * grid[1] * grid[2]
    for size in (compiled.global_scratch_size, compiled.profile_scratch_size):
        values.append(ndarray((programs * size,), np.uint8) if size else None)
    return values


def target_arch(arch: int | None = None) -> int:
    """The compute capability Triton compiles for, as an int (90 for sm_90): `arch` when given, else
    that of the GPU the settings chose for the timing model, else DEFAULT_ARCH (sm_80)."""
    if arch is not None:
        return int(arch)
    gpu = current().gpu
    if not gpu:
        return DEFAULT_ARCH
    major, minor = gpu_preset(gpu).compute_capability
    return 10 * major + minor


def compile(fn, *args, arch: int | None = None, **kwargs) -> CompiledTriton:
    """The PTX and metadata Triton compiles `fn` to for these arguments (nothing is launched);
    arch as `target_arch` chooses it."""
    converted, _ = _to_device(args)
    return compile_triton(fn, converted, kwargs, target_arch(arch))


def launch(fn, grid, *args, arch: int | None = None, **kwargs) -> CompiledTriton:
    """Compile `fn` for these arguments (arch as `target_arch` chooses it) and run it on the warpsim
    device over `grid` programs."""
    converted, copies = _to_device(args)
    compiled = compile_triton(fn, converted, kwargs, target_arch(arch))
    grid = _grid3(grid, _meta(fn, args, kwargs))
    grid = (grid[0] * compiled.num_ctas, grid[1], grid[2])     # num_ctas > 1: a cluster per program, as Triton
    values = _parameter_values(compiled, grid)
    for scratch in values[-2:]:
        if isinstance(scratch, ndarray):
            scratch.fill(0)
    function = _function(compiled)
    if compiled.shared > OPT_IN_SHARED:             # as Triton's launcher: cuFuncSetAttribute first
        function.max_dynamic_shared_size_bytes = compiled.shared
    function(grid, (compiled.threads_per_program, 1, 1), tuple(values), shared_mem=compiled.shared)
    for host, device in copies:
        host[...] = device.get().reshape(host.shape)
    return compiled


class TritonLauncher:
    """`launcher[grid](*args, **kwargs)`: the kernel on warpsim, written as Triton launches it."""

    def __init__(self, fn, arch: int | None = None):
        self.fn, self.arch = fn, arch          # None: chosen at each launch (target_arch)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: launch(self.fn, grid, *args, arch=self.arch, **kwargs)

    def __repr__(self) -> str:
        arch = f"sm_{self.arch}" if self.arch is not None else "the settings' GPU's arch"
        return f"<warpsim Triton launcher for {getattr(self.fn, '__name__', self.fn)} at {arch}>"


def kernel(fn, arch: int | None = None) -> TritonLauncher:
    """Wrap a @triton.jit function so that `kernel(fn)[grid](...)` runs it on warpsim."""
    return TritonLauncher(fn, arch)
