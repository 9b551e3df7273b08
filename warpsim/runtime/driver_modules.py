"""The driver API's modules, functions, launches and tensor maps, on the runtime's loaded-module machinery.

cuModuleLoadData takes what the driver takes: PTX text (NUL-terminated), a
fatbinary (its PTX of the highest architecture not above the GPU's, else its
cubin: the rule registered fatbinaries follow, RuntimeContext.module_from_entries),
or a cubin, whose SASS runs on the SASS executor (docs/sass.md). The module is
loaded at once, as the driver compiles PTX at load: a PTX error is
CUDA_ERROR_INVALID_PTX there, its reason on stderr and in
cuModuleLoadDataEx's CU_JIT_ERROR_LOG_BUFFER. The other JIT options are tuning
hints warpsim has no use for. A CUfunction is registered with the runtime as a
host function is (context.kernels), so cuLaunchKernel is the runtime's launch,
captures and cooperative grids and dynamic shared memory opt-ins included;
cuLaunchCooperativeKernel is cudaLaunchCooperativeKernel's and cuLaunchKernelEx
cudaLaunchKernelExC's (its CUlaunchAttribute array is cudaLaunchAttribute's layout).

cuTensorMapEncodeTiled is warpsim.machine.isa.bulk_copy.encode_tiled, which
writes the bytes an H200's driver writes; what the driver refuses is
CUDA_ERROR_INVALID_VALUE, what it takes and warpsim's TMA does not copy through
(interleaved layouts, element strides, sm_100's data types and swizzle atoms) is
CUDA_ERROR_NOT_SUPPORTED, the reason said once on stderr. cuTensorMapEncodeIm2col
encodes a map no copy can use (its docstring).
"""

from __future__ import annotations

import ctypes
import re
import struct
import sys

from ..errors import PtxParseError, WarpsimError
from ..frontends.fatbin import FATBIN_MAGIC, FatbinError, parse_fatbin
from ..machine.isa.bulk_copy import NotSimulated, encode_tiled
from ..semantics.tensor_maps import DRIVER_DATA_TYPES, ELEMENT_TYPES, SWIZZLE_MODES
from . import calls, device_limits, hoststructs
from .context import FatbinModule
from .driver import (CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_IMAGE,
                     CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NO_BINARY_FOR_GPU,
                     CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_SUPPORTED, CUDA_SUCCESS, c_text, driver_call, refuse,
                     state)
from .hostmemory import readable_range

_write, _read = hoststructs.write, hoststructs.read
ELF_MAGIC = b"\x7fELF"
ELF_NOBITS = 8
# CUjit_option
JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE, JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE = 3, 4, 5, 6


class ImageRefused(Exception):
    """An image cuModuleLoadData cannot load: its CUresult and why."""

    def __init__(self, code: int, why: str):
        super().__init__(why)
        self.code = code


# --- reading images ---------------------------------------------------------------------------

def _elf_size(address: int, header: bytes) -> int:
    """A cubin's bytes from its ELF header: to the end of its furthest section or header table."""
    program_offset, section_offset = struct.unpack_from("<QQ", header, 0x20)
    program_size, program_count, section_size, section_count = struct.unpack_from("<HHHH", header, 0x36)
    end = max(64, program_offset + program_size * program_count, section_offset + section_size * section_count)
    _check_host(address, end)
    table = ctypes.string_at(address + section_offset, section_size * section_count)
    for k in range(section_count):
        kind, = struct.unpack_from("<I", table, k * section_size + 4)
        offset, size = struct.unpack_from("<QQ", table, k * section_size + 0x18)
        if kind != ELF_NOBITS:
            end = max(end, offset + size)
    return end


def _check_host(address: int, count: int) -> None:
    why = readable_range(address, count)
    if why:
        raise hoststructs.HostPointerError(why)


def image_at(address: int) -> bytes:
    """The image cuModuleLoadData is given: a cubin or a fatbinary (their headers give their sizes),
    else NUL-terminated text."""
    _check_host(address, 1)
    if not readable_range(address, 64):
        head = ctypes.string_at(address, 64)
        size = _elf_size(address, head) if head[:4] == ELF_MAGIC else None
        magic, _, header_size, entries_size = struct.unpack_from("<IHHQ", head)
        if size is None and magic == FATBIN_MAGIC:
            size = header_size + entries_size
        if size is not None:
            _check_host(address, size)
            return ctypes.string_at(address, size)
    return ctypes.string_at(address)


def load_module(context, data: bytes, name: str) -> FatbinModule:
    """A module of an image's bytes, loaded (ImageRefused if it cannot be)."""
    handle = context.new_handle()
    try:
        if data[:4] == ELF_MAGIC:
            module = FatbinModule(handle, "", name, cubin=data)
        elif len(data) >= 4 and struct.unpack_from("<I", data)[0] == FATBIN_MAGIC:
            module = context.module_from_entries(handle, parse_fatbin(data), name)
            if not module.ptx and not module.cubin:
                raise ImageRefused(CUDA_ERROR_NO_BINARY_FOR_GPU, f"{name}: the fatbinary holds neither PTX nor a "
                                   "cubin warpsim runs (sm_80..sm_90)")
        else:
            text = data.split(b"\0", 1)[0].decode()
            if not re.search(r"^\s*\.version\b", text, re.MULTILINE):
                raise ImageRefused(CUDA_ERROR_INVALID_IMAGE, f"{name}: the image is neither a cubin, a fatbinary "
                                   "nor PTX text (no .version directive)")
            target = re.search(r"^\s*\.target\s+sm_(\d+)", text, re.MULTILINE)
            module = FatbinModule(handle, text, name, int(target.group(1)) if target else 0)
        loaded = context.loaded(module)         # the driver compiles PTX at load: its errors are said here
    except UnicodeDecodeError:
        raise ImageRefused(CUDA_ERROR_INVALID_IMAGE, f"{name}: the image is neither a cubin, a fatbinary nor "
                           "PTX text") from None
    except FatbinError as error:
        raise ImageRefused(CUDA_ERROR_INVALID_IMAGE, str(error)) from None
    except PtxParseError as error:
        raise ImageRefused(CUDA_ERROR_INVALID_PTX, str(error)) from None
    except WarpsimError as error:
        raise ImageRefused(CUDA_ERROR_INVALID_IMAGE, str(error)) from None
    if not module.arch:                         # a cubin: the architecture its SASS is for
        module.arch = int(re.sub(r"\D", "", getattr(loaded, "arch", "")) or 0)
    return module


def _load(context, out: int, data_of, name: str, log=None) -> int:
    """Load the image data_of() reads into a new CUmodule at *out; a refusal is said on stderr and in log."""
    if not out:
        return CUDA_ERROR_INVALID_VALUE
    try:
        module = load_module(context, data_of(), name)
    except ImageRefused as refusal:
        print(f"warpsim: {refusal}", file=sys.stderr)
        if log:
            log(str(refusal))
        return refusal.code
    state(context).modules[module.handle] = module
    _write(out, "Q", module.handle)
    return CUDA_SUCCESS


def _loaded_images(context) -> int:
    context.__dict__.setdefault("_driver_images", 0)
    context._driver_images += 1
    return context._driver_images


@driver_call()
def cuModuleLoadData(context, out, image):
    return _load(context, out, lambda: image_at(image), f"cuModuleLoadData image {_loaded_images(context)}")


@driver_call()
def cuModuleLoadDataEx(context, out, image, count, options, values):
    """JIT options are hints, but for the error log, which gets the reason a load is refused."""
    settings = {}
    for k in range(count if options and values else 0):
        option, = _read(options + 4 * k, "i")
        settings[option] = values + 8 * k           # the option's slot: its value, or where to write one

    def write_log(buffer_option: int, size_option: int, text: str) -> None:
        if buffer_option in settings and size_option in settings:
            buffer, = _read(settings[buffer_option], "Q")
            size, = _read(settings[size_option], "Q")
            if buffer and size:
                kept = text.encode()[:size - 1] + b"\0"
                _write(buffer, f"{len(kept)}s", kept)
                _write(settings[size_option], "Q", len(kept) - 1 if not text else len(kept))

    # both logs start empty, as the driver leaves them for a load with nothing to say (a program
    # prints its info log after a load: matrixMulDynlinkJIT printed its buffer's stale bytes)
    write_log(JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE, "")
    write_log(JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE, "")
    return _load(context, out, lambda: image_at(image), f"cuModuleLoadDataEx image {_loaded_images(context)}",
                 lambda text: write_log(JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE, text))


@driver_call()
def cuModuleLoad(context, out, path):
    if not path:
        return CUDA_ERROR_INVALID_VALUE
    name = c_text(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as error:
        print(f"warpsim: cuModuleLoad: {error}", file=sys.stderr)
        return CUDA_ERROR_FILE_NOT_FOUND
    return _load(context, out, lambda: data, name)


def _module(context, handle: int):
    return state(context).modules.get(handle)


@driver_call()
def cuModuleUnload(context, handle):
    """The module's functions and variables go with it (a launch already made has run)."""
    module = state(context).modules.pop(handle, None)
    if module is None:
        return CUDA_ERROR_INVALID_HANDLE
    for function in module.functions.values():
        context.kernels.pop(function, None)
    for address in module.loaded.program.global_addresses.values():
        try:
            context.device.memory.free(address)
        except ValueError:
            pass
    return CUDA_SUCCESS


@driver_call()
def cuModuleGetFunction(context, out, handle, name_address):
    module = _module(context, handle)
    if module is None:
        return CUDA_ERROR_INVALID_HANDLE
    if not out or not name_address:
        return CUDA_ERROR_INVALID_VALUE
    name = c_text(name_address)
    if name not in context.loaded(module).kernel_names:
        return CUDA_ERROR_NOT_FOUND
    if name not in module.functions:        # a handle the runtime launches as it does a host stub
        module.functions[name] = context.new_handle()
        context.kernels[module.functions[name]] = (module, name)
    _write(out, "Q", module.functions[name])
    return CUDA_SUCCESS


@driver_call()
def cuModuleGetGlobal_v2(context, address_out, size_out, handle, name_address):
    module = _module(context, handle)
    if module is None:
        return CUDA_ERROR_INVALID_HANDLE
    if not name_address:
        return CUDA_ERROR_INVALID_VALUE
    try:
        address = context.loaded(module).global_address(c_text(name_address))
    except KeyError:
        address = None
    if address is None:                 # a GPU's driver zeroes the size it was given (an H100, CUDA 13.0)
        if size_out:
            _write(size_out, "Q", 0)
        return CUDA_ERROR_NOT_FOUND
    if address_out:
        _write(address_out, "Q", address)
    if size_out:
        _write(size_out, "Q", context.device.memory.live[address - calls.GLOBAL_BASE])
    return CUDA_SUCCESS


# --- functions and launches ---------------------------------------------------------------------

# CUfunction_attribute -> the cudaFuncAttributes field with its value (the runtime's answer)
FUNCTION_FIELDS = {0: "maxThreadsPerBlock", 1: "sharedSizeBytes", 2: "constSizeBytes", 3: "localSizeBytes",
                   4: "numRegs", 5: "ptxVersion", 6: "binaryVersion", 8: "maxDynamicSharedSizeBytes",
                   9: "preferredShmemCarveout"}
FUNCTION_NONE = (7, 10, 11, 12, 13, 15)         # no L1 caching mode, cluster shape or policy set: 0
FUNCTION_NON_PORTABLE_CLUSTER, LAST_FUNCTION_ATTRIBUTE = 14, 17


@driver_call()
def cuFuncGetAttribute(context, out, attribute, function):
    from .native import FUNC_ATTRIBUTE_FIELDS
    if not out or not 0 <= attribute <= LAST_FUNCTION_ATTRIBUTE:
        return CUDA_ERROR_INVALID_VALUE
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    if attribute in FUNCTION_FIELDS:
        layout = hoststructs.layout("ws_func_attributes_layout", len(FUNC_ATTRIBUTE_FIELDS))
        struct_bytes = ctypes.create_string_buffer(layout[0])
        code = calls.cudaFuncGetAttributes.__wrapped__(context, ctypes.addressof(struct_bytes), function)
        if code:
            return code
        offset = dict(zip(FUNC_ATTRIBUTE_FIELDS, layout[1:]))[FUNCTION_FIELDS[attribute]]
        # each field's low 32 bits (little-endian): the int fields whole, the size_t ones below 2 GB
        value, = struct.unpack_from("<i", struct_bytes.raw, offset)
    elif attribute == FUNCTION_NON_PORTABLE_CLUSTER:
        value = int(function in context.nonportable_clusters)
    elif attribute in FUNCTION_NONE:
        value = 0
    else:
        return refuse(context, "cuFuncGetAttribute", f"function attribute {attribute} is not simulated")
    _write(out, "i", value)
    return CUDA_SUCCESS


@driver_call()
def cuFuncSetAttribute(context, function, attribute, value):
    """CUfunction_attribute numbers are cudaFuncAttribute's where it can be set."""
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    return calls.cudaFuncSetAttribute.__wrapped__(context, function, attribute, value)


# --- occupancy ------------------------------------------------------------------------------------

BLOCKS_TO_SHARED = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)     # CUoccupancyB2DSize


@driver_call()
def cuOccupancyMaxActiveBlocksPerMultiprocessor(context, out, function, block_size, dynamic_shared):
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags.__wrapped__(
        context, out, function, block_size, dynamic_shared, 0)


@driver_call()
def cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(context, out, function, block_size, dynamic_shared, flags):
    """The runtime's answer (device_limits.py), the CUfunction being a kernel the runtime knows."""
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    return device_limits.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags.__wrapped__(
        context, out, function, block_size, dynamic_shared, flags)


@driver_call()
def cuOccupancyMaxPotentialBlockSize(context, min_grid_out, block_out, function, to_shared, dynamic_shared, limit):
    return cuOccupancyMaxPotentialBlockSizeWithFlags.__wrapped__(
        context, min_grid_out, block_out, function, to_shared, dynamic_shared, limit, 0)


@driver_call()
def cuOccupancyMaxPotentialBlockSizeWithFlags(context, min_grid_out, block_out, function, to_shared,
                                              dynamic_shared, limit, flags):
    """The block size of the most resident threads an SM, as cuda_runtime.h's
    cudaOccupancyMaxPotentialBlockSize works it out: from the largest block the kernel and device
    allow (at most `limit` where it is above 0) down a warp at a time, each size's dynamic shared
    memory from `to_shared(size)` where given, the first size to reach the most threads kept (all
    of an SM's threads: stop there); the grid is that many blocks on every SM."""
    if not min_grid_out or not block_out:
        return CUDA_ERROR_INVALID_VALUE
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    properties = calls._properties(context)
    kernel_limit = ctypes.c_int()
    code = cuFuncGetAttribute.__wrapped__(context, ctypes.addressof(kernel_limit), 0, function)
    if code:
        return code
    largest = min(properties["maxThreadsPerBlock"], kernel_limit.value, limit if limit > 0 else 1 << 30)
    warp = properties["warpSize"]
    shared_of = BLOCKS_TO_SHARED(to_shared) if to_shared else None
    best_threads, best_block, best_blocks = 0, 0, 0
    blocks = ctypes.c_int()
    for aligned in range(-(-largest // warp) * warp, 0, -warp):
        size = min(largest, aligned)
        shared = shared_of(size) if shared_of is not None else dynamic_shared
        code = device_limits.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags.__wrapped__(
            context, ctypes.addressof(blocks), function, size, shared, flags)
        if code:
            return code
        if blocks.value * size > best_threads:
            best_threads, best_block, best_blocks = blocks.value * size, size, blocks.value
        if best_threads == properties["maxThreadsPerMultiProcessor"]:
            break
    _write(min_grid_out, "i", best_blocks * properties["multiProcessorCount"])
    _write(block_out, "i", best_block)
    return CUDA_SUCCESS


LAUNCH_PARAM_END, LAUNCH_PARAM_BUFFER_POINTER, LAUNCH_PARAM_BUFFER_SIZE = 0, 1, 2
EXTRA_LIMIT = 64                    # entries read from `extra` before it must have ended


def _parameters_from_buffer(context, function: int, extra: int):
    """(kernelParams array for the runtime's launch, the ctypes array that holds it) from `extra`'s
    CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE: a pointer into the buffer at each parameter's offset; or a
    CUresult where the buffer or its size is missing. A size smaller than the kernel's parameters is
    said on stderr and launched, as an H100 (CUDA 13.0) launched it."""
    buffer = size = None
    for k in range(0, EXTRA_LIMIT, 2):
        key, = _read(extra + 8 * k, "Q")
        if key == LAUNCH_PARAM_END:
            break
        value, = _read(extra + 8 * (k + 1), "Q")
        if key == LAUNCH_PARAM_BUFFER_POINTER:
            buffer = value
        elif key == LAUNCH_PARAM_BUFFER_SIZE:
            size, = _read(value, "Q")
        else:
            return refuse(context, "cuLaunchKernel", f"extra holds key 0x{key:x}, not CU_LAUNCH_PARAM_*",
                          CUDA_ERROR_INVALID_VALUE)
    else:
        return refuse(context, "cuLaunchKernel", "extra has no CU_LAUNCH_PARAM_END", CUDA_ERROR_INVALID_VALUE)
    module, name = context.kernels[function]
    try:
        layout = context.loaded(module).params(name)
    except WarpsimError as error:
        print(f"warpsim: {error}", file=sys.stderr)
        return CUDA_ERROR_INVALID_IMAGE
    needed = max((offset + nbytes for _, offset, nbytes, _, _ in layout), default=0)
    if needed and (buffer is None or size is None):
        return refuse(context, "cuLaunchKernel", f"kernel {name} takes {needed} bytes of parameters; extra gives "
                      "no buffer", CUDA_ERROR_INVALID_VALUE)
    if size is not None and size < needed:
        refuse(context, "cuLaunchKernel", f"kernel {name} takes {needed} bytes of parameters and extra's "
               f"CU_LAUNCH_PARAM_BUFFER_SIZE says {size}: launched with the buffer's first {needed} bytes")
    if needed:
        _check_host(buffer, needed)
    pointers = (ctypes.c_void_p * max(1, len(layout)))(*[buffer + offset for _, offset, _, _, _ in layout])
    return ctypes.addressof(pointers), pointers


def _launch_parameters(context, function: int, params: int, extra: int):
    """(kernelParams for the runtime's launch, what must stay alive while it runs) of a driver launch
    given `kernelParams` or `extra`; or the CUresult of an unknown function or of both forms."""
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    if params and extra:
        return CUDA_ERROR_INVALID_VALUE
    return _parameters_from_buffer(context, function, extra) if extra else (params, None)


@driver_call()
def cuLaunchKernel(context, function, gx, gy, gz, bx, by, bz, shared_mem, stream, params, extra):
    found = _launch_parameters(context, function, params, extra)
    if isinstance(found, int):
        return found
    params, _kept = found
    return calls._launch(context, function, (gx, gy, gz), (bx, by, bz), params, shared_mem, stream)


@driver_call()
def cuLaunchCooperativeKernel(context, function, gx, gy, gz, bx, by, bz, shared_mem, stream, params):
    """The runtime's cooperative launch: a grid past the co-resident limit is
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (cudaErrorCooperativeLaunchTooLarge's number)."""
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    return calls.cudaLaunchCooperativeKernel.__wrapped__(context, function, (gx, gy, gz), (bx, by, bz), params,
                                                         shared_mem, stream)


# CUlaunchConfig (cuda.h, x86-64): grid x, y, z, block x, y, z, sharedMemBytes, hStream, attrs, numAttrs.
# Its CUlaunchAttribute array is laid out as cudaLaunchAttribute, with the same ids and values.
LAUNCH_CONFIG = "7I4xQQI4x"


@driver_call()
def cuLaunchKernelEx(context, config, function, params, extra):
    """cudaLaunchKernelExC's launch (launch_attributes.py: cluster shape, cooperative, events...) of a
    cudaLaunchConfig_t written from the CUlaunchConfig."""
    from .native import LAUNCH_CONFIG_FIELDS
    if not config:
        return CUDA_ERROR_INVALID_VALUE
    found = _launch_parameters(context, function, params, extra)
    if isinstance(found, int):
        return found
    params, _kept = found
    *shape, shared_mem, stream, attributes, count = _read(config, LAUNCH_CONFIG)
    at = hoststructs.offsets("ws_launch_config_layout", LAUNCH_CONFIG_FIELDS)
    runtime_config = ctypes.create_string_buffer(hoststructs.layout("ws_launch_config_layout", 0)[0])
    base = ctypes.addressof(runtime_config)
    for field, fmt, values in (("gridDim", "3I", shape[:3]), ("blockDim", "3I", shape[3:]),
                               ("dynamicSmemBytes", "Q", [shared_mem]), ("stream", "Q", [stream]),
                               ("attrs", "Q", [attributes]), ("numAttrs", "I", [count])):
        _write(base + at[field], fmt, *values)
    return calls.cudaLaunchKernelExC.__wrapped__(context, base, function, params)


@driver_call()
def cuFuncGetName(context, out, function):
    if function not in context.kernels:
        return CUDA_ERROR_INVALID_HANDLE
    return calls.cudaFuncGetName.__wrapped__(context, out, function)


# --- tensor maps -------------------------------------------------------------------------------------

TENSOR_MAP_ALIGNMENT = 64                  # a CUtensorMap's address, as cuTensorMapEncodeTiled's documentation asks
SM100_DATA_TYPES = range(13, 16)           # CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B ... 16U6_ALIGN16B
SM100_SWIZZLES = range(4, 7)               # CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B ... _64B
OOB_FILLS = ("zero", "nan")                # CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, _NAN_REQUEST_ZERO_FMA


@driver_call()
def cuTensorMapEncodeTiled(context, out, data_type, rank, address, dims_at, strides_at, box_at,
                           element_strides_at, interleave, swizzle, l2_promotion, oob_fill):
    name = "cuTensorMapEncodeTiled"
    if not out or out % TENSOR_MAP_ALIGNMENT or not 1 <= rank <= 5 or not 0 <= oob_fill < len(OOB_FILLS):
        return refuse(context, name, f"the map at 0x{out:x} (64-byte aligned), rank {rank} (1 to 5) or "
                      f"out-of-bounds fill {oob_fill} is not one the driver takes", CUDA_ERROR_INVALID_VALUE)
    if data_type in SM100_DATA_TYPES or swizzle in SM100_SWIZZLES:
        return refuse(context, name, f"data type {data_type} / swizzle {swizzle}: sm_100's packed types and "
                      "swizzle atoms are not simulated")
    if interleave:
        return refuse(context, name, "interleaved tensor maps are not simulated")
    if data_type not in DRIVER_DATA_TYPES or not 0 <= swizzle < len(SWIZZLE_MODES):
        return refuse(context, name, f"data type {data_type} or swizzle {swizzle} is not one CUDA defines",
                      CUDA_ERROR_INVALID_VALUE)
    code = DRIVER_DATA_TYPES[data_type]
    dims = _read(dims_at, f"{rank}Q")
    strides = _read(strides_at, f"{rank - 1}Q") if rank > 1 else ()
    box = _read(box_at, f"{rank}I")
    element_strides = _read(element_strides_at, f"{rank}I")
    try:
        encoded = encode_tiled(address, ELEMENT_TYPES[code][0], list(dims), list(strides), list(box),
                               list(element_strides), swizzle_mode=SWIZZLE_MODES[swizzle],
                               oob_fill=OOB_FILLS[oob_fill], element_type=code, l2_promotion=l2_promotion)
    except NotSimulated as error:
        return refuse(context, name, str(error))
    except ValueError as error:             # what the driver refuses, named
        return refuse(context, name, str(error), CUDA_ERROR_INVALID_VALUE)
    _write(out, "128s", encoded)
    return CUDA_SUCCESS


@driver_call()
def cuTensorMapEncodeIm2col(context, out, data_type, rank, address, dims_at, strides_at, lower_at, upper_at,
                            channels, pixels, element_strides_at, interleave, swizzle, l2_promotion, oob_fill):
    """The arguments the driver checks are checked, and what it refuses is CUDA_ERROR_INVALID_VALUE; the map
    it takes is encoded as 128 zero bytes, since warpsim's TMA copies tiled boxes only: an H100 encodes it
    (validation/programs/h100/program_tests_native.txt), and a kernel's copy through it fails there,
    naming the map, as PTX's im2col copies are refused by name at load."""
    name = "cuTensorMapEncodeIm2col"
    if not out or out % TENSOR_MAP_ALIGNMENT or not 3 <= rank <= 5 or not 0 <= oob_fill < len(OOB_FILLS) \
            or address % 16 or data_type not in DRIVER_DATA_TYPES or not 0 <= swizzle < len(SWIZZLE_MODES) \
            or not 1 <= channels <= 256 or not 1 <= pixels <= 1024:
        return refuse(context, name, f"the map at 0x{out:x} (64-byte aligned), rank {rank} (3 to 5), global "
                      f"address 0x{address:x} (16-byte aligned), data type {data_type}, swizzle {swizzle}, "
                      f"{channels} channels (1 to 256), {pixels} pixels (1 to 1024) or out-of-bounds fill "
                      f"{oob_fill} is not one the driver takes", CUDA_ERROR_INVALID_VALUE)
    calls._say_once(context, name, f"warpsim: {name}: the map is encoded, but im2col copies are not "
                    "simulated: a kernel's copy through it fails")
    _write(out, "128s", bytes(128))
    return CUDA_SUCCESS
