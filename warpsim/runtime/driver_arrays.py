"""The driver API's 2D/3D copies, pitched memory, CUDA arrays, texture and surface objects, host memory.

Each function reads the driver's struct (CUDA_MEMCPY2D, CUDA_MEMCPY3D, CUDA_ARRAY[3D]_DESCRIPTOR,
CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC: cuda.h's layouts on x86-64, written below as struct formats,
since libcuda.so.1 is built without cuda.h) and hands the runtime's function the runtime's struct
for the same thing, laid out at the offsets libcudart was built with (native.LAYOUTS): a copy is
cudaMemcpy3D's plan (memory3d.py), an array cudaMalloc3DArray's, a texture object
cudaCreateTextureObject's (textures.py, machine/textures.py), so both APIs share one set of rules
and objects (a CUarray is a cudaArray_t, a CUtexObject a cudaTextureObject_t).

What the two APIs say differently, translated here: the driver counts a copy's width and an
array side's x in bytes where cudaMemcpy3D counts an array's elements (a byte count that is not
a whole number of elements is CUDA_ERROR_INVALID_VALUE); the driver names each side's memory
type (host, device, array, unified) where the runtime has one pointer; an array's format is a
CUarray_format and a channel count, not a cudaChannelFormatDesc; a texture's read mode and
normalized coordinates are CU_TRSF_* flags, and without CU_TRSF_READ_AS_INTEGER an 8- or 16-bit
integer texture reads as normalized floats (cudaReadModeNormalizedFloat).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from . import calls, memory3d, memory_pools, runtime_queries
from .driver import (
    CUDA_ERROR_INVALID_HANDLE,
    CUDA_ERROR_INVALID_VALUE,
    CUDA_SUCCESS,
    driver_call,
    refuse,
)
from .driver_memory import _fill
from .hoststructs import layout, offsets, read, write

MEMORYTYPE_HOST, MEMORYTYPE_DEVICE, MEMORYTYPE_ARRAY, MEMORYTYPE_UNIFIED = 1, 2, 3, 4     # CUmemorytype
MEMCPY_DEFAULT = 4                                  # cudaMemcpyDefault: the direction from the addresses
# One side of CUDA_MEMCPY2D: XInBytes, Y, MemoryType, Host, Device, Array, Pitch; then WidthInBytes, Height.
MEMCPY2D_SIDE = "QQi4xQQQQ"
# One side of CUDA_MEMCPY3D: XInBytes, Y, Z, LOD, MemoryType, Host, Device, Array, reserved0, Pitch, Height;
# then WidthInBytes, Height, Depth.
MEMCPY3D_SIDE = "QQQQi4xQQQQQQ"
ARRAY_DESCRIPTOR = "QQiI"                           # Width, Height, Format, NumChannels
ARRAY3D_DESCRIPTOR = "QQQiII4x"                     # Width, Height, Depth, Format, NumChannels, Flags
# CUarray_format -> (bits a channel, cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float)
FORMATS = {0x01: (8, 1), 0x02: (16, 1), 0x03: (32, 1), 0x08: (8, 0), 0x09: (16, 0), 0x0a: (32, 0),
           0x10: (16, 2), 0x20: (32, 2)}
FORMAT_OF = {shape: code for code, shape in FORMATS.items()}
RESOURCE_ARRAY, RESOURCE_MIPMAPPED, RESOURCE_LINEAR, RESOURCE_PITCH2D = 0, 1, 2, 3      # CUresourcetype
RESOURCE_UNION = 8                                  # CUDA_RESOURCE_DESC.res's offset
LINEAR = "QiIQ"                                     # res.linear: devPtr, format, numChannels, sizeInBytes
PITCH2D = "QiIQQQ"                                  # res.pitch2D: devPtr, format, numChannels, width, height, pitch
TEXTURE_DESC = "3iiI20x4f"                          # addressMode[3], filterMode, flags, ..., borderColor[4]
TRSF_READ_AS_INTEGER, TRSF_NORMALIZED_COORDINATES, TRSF_SRGB = 0x1, 0x2, 0x10
READ_ELEMENT_TYPE, READ_NORMALIZED_FLOAT = 0, 1     # cudaTextureReadMode


def _runtime_struct(symbol: str, fields: tuple, values: dict):
    """A zeroed runtime struct (native.LAYOUTS' symbol) with values {field: (struct format, value...)}."""
    buffer = ctypes.create_string_buffer(layout(symbol, len(fields))[0])
    at = offsets(symbol, fields)
    for field, (fmt, *value) in values.items():
        write(ctypes.addressof(buffer) + at[field], fmt, *value)
    return buffer


# --- 2D and 3D copies ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Side:
    """One side of a driver copy: its position (x in bytes), memory and the pitch and rows of its slices."""
    x: int
    y: int
    z: int
    memory_type: int
    host: int
    device: int
    array: int
    pitch: int
    rows: int


class CopyRefused(ValueError):
    """A copy the driver refuses: CUDA_ERROR_INVALID_VALUE, and why."""


def _sides_2d(address: int) -> tuple[Side, Side, int, int, int]:
    values = read(address, MEMCPY2D_SIDE * 2 + "QQ")
    src, dst = ([*values[k:k + 7]] for k in (0, 7))
    width, height = values[14:]

    def side(v):            # a 2D copy has one slice: its rows are the box's
        return Side(v[0], v[1], 0, v[2], v[3], v[4], v[5], v[6], v[1] + height)
    return side(src), side(dst), width, height, 1


def _sides_3d(address: int) -> tuple[Side, Side, int, int, int]:
    values = read(address, MEMCPY3D_SIDE * 2 + "QQQ")
    sides = []
    for v in (values[:11], values[11:22]):
        if v[3]:
            raise CopyRefused("a mipmap level (LOD) other than 0 is not a level of a CUDA array")
        sides.append(Side(v[0], v[1], v[2], v[4], v[5], v[6], v[7], v[9], v[10]))
    return sides[0], sides[1], *values[22:]


def _runtime_copy(context, src: Side, dst: Side, width: int, height: int, depth: int):
    """The cudaMemcpy3DParms of the driver copy (a ctypes buffer); CopyRefused if refused."""
    from .native import EXTENT_FIELDS, MEMCPY3D_FIELDS, PITCHED_PTR_FIELDS, POS_FIELDS
    units = {context.cuda_arrays[s.array].pitch // context.cuda_arrays[s.array].width
             for s in (src, dst) if s.memory_type == MEMORYTYPE_ARRAY and s.array in context.cuda_arrays}
    unit = max(units, default=1)
    if width % unit:
        raise CopyRefused(f"WidthInBytes {width} is not a whole number of the CUDA array's {unit}-byte elements")
    parms = _runtime_struct("ws_memcpy3d_layout", MEMCPY3D_FIELDS, {"kind": ("i", MEMCPY_DEFAULT)})
    base = ctypes.addressof(parms)
    at = offsets("ws_memcpy3d_layout", MEMCPY3D_FIELDS)
    for name, side in (("src", src), ("dst", dst)):
        x = side.x
        if side.memory_type == MEMORYTYPE_ARRAY:
            if side.array not in context.cuda_arrays:
                raise CopyRefused(f"{name}Array 0x{side.array:x} is not a CUDA array")
            if x % unit:
                raise CopyRefused(f"{name}XInBytes {x} is not a whole number of {unit}-byte elements")
            x //= unit
            write(base + at[f"{name}Array"], "Q", side.array)
        elif side.memory_type in (MEMORYTYPE_HOST, MEMORYTYPE_DEVICE, MEMORYTYPE_UNIFIED):
            pointer = side.host if side.memory_type == MEMORYTYPE_HOST else side.device
            if not pointer:
                raise CopyRefused(f"the {name} pointer is NULL")
            pitched = offsets("ws_pitched_ptr_layout", PITCHED_PTR_FIELDS)
            for field, value in zip(PITCHED_PTR_FIELDS, (pointer, side.pitch, side.pitch, side.rows)):
                write(base + at[f"{name}Ptr"] + pitched[field], "Q", value)
        else:
            raise CopyRefused(f"{name}MemoryType {side.memory_type} is not a CUmemorytype")
        position = offsets("ws_pos_layout", POS_FIELDS)
        for field, value in zip(POS_FIELDS, (x, side.y, side.z)):
            write(base + at[f"{name}Pos"] + position[field], "Q", value)
    extent = offsets("ws_extent_layout", EXTENT_FIELDS)
    for field, value in zip(EXTENT_FIELDS, (width // unit, height, depth)):
        write(base + at["extent"] + extent[field], "Q", value)
    return parms


def _copy(context, function: str, address: int, sides_of, stream=None) -> int:
    if not address:
        return CUDA_ERROR_INVALID_VALUE
    try:
        src, dst, width, height, depth = sides_of(address)
        if not (width and height and depth):
            return CUDA_SUCCESS
        parms = _runtime_copy(context, src, dst, width, height, depth)
    except CopyRefused as refusal:
        return refuse(context, function, str(refusal), CUDA_ERROR_INVALID_VALUE)
    if stream is None:
        return memory3d.cudaMemcpy3D.__wrapped__(context, ctypes.addressof(parms))
    return memory3d.cudaMemcpy3DAsync.__wrapped__(context, ctypes.addressof(parms), stream)


@driver_call()
def cuMemcpy2D_v2(context, copy):
    return _copy(context, "cuMemcpy2D", copy, _sides_2d)


@driver_call()
def cuMemcpy2DUnaligned_v2(context, copy):
    return _copy(context, "cuMemcpy2DUnaligned", copy, _sides_2d)


@driver_call()
def cuMemcpy2DAsync_v2(context, copy, stream):
    return _copy(context, "cuMemcpy2DAsync", copy, _sides_2d, stream)


@driver_call()
def cuMemcpy3D_v2(context, copy):
    return _copy(context, "cuMemcpy3D", copy, _sides_3d)


@driver_call()
def cuMemcpy3DAsync_v2(context, copy, stream):
    return _copy(context, "cuMemcpy3DAsync", copy, _sides_3d, stream)


# --- pitched memory ------------------------------------------------------------------------------

@driver_call()
def cuMemAllocPitch_v2(context, out, pitch_out, width, height, element_size):
    """cudaMallocPitch's rows; the element size (4, 8 or 16 bytes) is a hint of how kernels read it."""
    if element_size not in (4, 8, 16) or not width or not height:
        return CUDA_ERROR_INVALID_VALUE
    return calls.cudaMallocPitch.__wrapped__(context, out, pitch_out, width, height)


def _fill_2d(context, address, pitch, value, width, height, size) -> int:
    """height rows of `width` elements of `size` bytes, `pitch` bytes apart: driver_memory's fill, a row at a time."""
    if width * size > pitch and height > 1 or pitch % size:
        return CUDA_ERROR_INVALID_VALUE
    for row in range(height):
        code = _fill(context, address + row * pitch, value, width, size)
        if code:
            return code
    return CUDA_SUCCESS


@driver_call()
def cuMemsetD2D8_v2(context, address, pitch, value, width, height):
    return _fill_2d(context, address, pitch, value, width, height, 1)


@driver_call()
def cuMemsetD2D16_v2(context, address, pitch, value, width, height):
    return _fill_2d(context, address, pitch, value, width, height, 2)


@driver_call()
def cuMemsetD2D32_v2(context, address, pitch, value, width, height):
    return _fill_2d(context, address, pitch, value, width, height, 4)


# --- CUDA arrays ---------------------------------------------------------------------------------

def _channel_desc(format_code: int, channels: int):
    """The cudaChannelFormatDesc of a CUarray_format and channel count; None if CUDA has no such texel."""
    from .native import CHANNEL_DESC_FIELDS
    if format_code not in FORMATS or channels not in (1, 2, 4):
        return None
    bits, kind = FORMATS[format_code]
    sizes = [bits if k < channels else 0 for k in range(4)]
    return _runtime_struct("ws_channel_desc_layout", CHANNEL_DESC_FIELDS,
                           {**{axis: ("i", size) for axis, size in zip("xyzw", sizes)}, "f": ("i", kind)})


def _create_array(context, function, out, width, height, depth, format_code, channels, flags) -> int:
    if not out or not width:
        return CUDA_ERROR_INVALID_VALUE
    desc = _channel_desc(format_code, channels)
    if desc is None:
        return refuse(context, function, f"format 0x{format_code:x} with {channels} channels is not a CUDA "
                      "array format warpsim simulates (8/16/32-bit integers, half, float; 1, 2 or 4 channels)",
                      CUDA_ERROR_INVALID_VALUE)
    return calls.cudaMalloc3DArray.__wrapped__(context, out, ctypes.addressof(desc), (width, height, depth), flags)


@driver_call()
def cuArrayCreate_v2(context, out, descriptor):
    if not descriptor:
        return CUDA_ERROR_INVALID_VALUE
    width, height, format_code, channels = read(descriptor, ARRAY_DESCRIPTOR)
    return _create_array(context, "cuArrayCreate", out, width, height, 0, format_code, channels, 0)


@driver_call()
def cuArray3DCreate_v2(context, out, descriptor):
    if not descriptor:
        return CUDA_ERROR_INVALID_VALUE
    width, height, depth, format_code, channels, flags = read(descriptor, ARRAY3D_DESCRIPTOR)
    return _create_array(context, "cuArray3DCreate", out, width, height, depth, format_code, channels, flags)


@driver_call()
def cuArrayDestroy(context, array):
    if array not in context.cuda_arrays:
        return CUDA_ERROR_INVALID_HANDLE
    return calls.cudaFreeArray.__wrapped__(context, array)


def _described(context, out, array):
    found = context.cuda_arrays.get(array)
    if found is None:
        return None, CUDA_ERROR_INVALID_HANDLE
    if not out:
        return None, CUDA_ERROR_INVALID_VALUE
    return (found, FORMAT_OF[found.bits, found.kind]), CUDA_SUCCESS


@driver_call()
def cuArrayGetDescriptor_v2(context, out, array):
    described, code = _described(context, out, array)
    if described:
        found, format_code = described
        write(out, ARRAY_DESCRIPTOR, found.width, found.height, format_code, found.channels)
    return code


@driver_call()
def cuArray3DGetDescriptor_v2(context, out, array):
    described, code = _described(context, out, array)
    if described:
        found, format_code = described
        write(out, ARRAY3D_DESCRIPTOR, found.width, found.height, found.depth, format_code, found.channels,
              found.flags)
    return code


# --- texture and surface objects ------------------------------------------------------------------

def _runtime_resource(context, res: int):
    """(the cudaResourceDesc of a CUDA_RESOURCE_DESC, (bits, kind) of its texels or None)."""
    from .native import RESOURCE_DESC_FIELDS
    resource, = read(res, "i")
    at = res + RESOURCE_UNION
    symbol, fields = "ws_resource_desc_layout", RESOURCE_DESC_FIELDS
    if resource == RESOURCE_ARRAY:
        array, = read(at, "Q")
        found = context.cuda_arrays.get(array)
        texel = (found.bits, found.kind) if found else None
        return _runtime_struct(symbol, fields, {"resType": ("i", resource), "res.array.array": ("Q", array)}), texel
    if resource not in (RESOURCE_LINEAR, RESOURCE_PITCH2D):     # mipmapped or no type: the runtime says which
        return _runtime_struct(symbol, fields, {"resType": ("i", resource)}), None
    name = "linear" if resource == RESOURCE_LINEAR else "pitch2D"
    address, format_code, channels, *sizes = read(at, LINEAR if resource == RESOURCE_LINEAR else PITCH2D)
    desc = _channel_desc(format_code, channels)
    if desc is None:
        raise CopyRefused(f"res.{name} has format 0x{format_code:x} with {channels} channels")
    values = {"resType": ("i", resource), f"res.{name}.devPtr": ("Q", address)}
    if resource == RESOURCE_LINEAR:
        values["res.linear.sizeInBytes"] = ("Q", sizes[0])
    else:
        values.update({f"res.pitch2D.{field}": ("Q", size) for field, size in
                       zip(("width", "height", "pitchInBytes"), sizes)})
    struct = _runtime_struct(symbol, fields, values)
    desc_at = offsets(symbol, fields)[f"res.{name}.desc"]
    ctypes.memmove(ctypes.addressof(struct) + desc_at, desc, len(desc.raw))
    return struct, FORMATS[format_code]


def _runtime_texture(tex: int, texel):
    """The cudaTextureDesc of a CUDA_TEXTURE_DESC whose resource has texels of (bits, kind)."""
    from .native import TEXTURE_DESC_FIELDS
    *modes, filter_mode, flags, r, g, b, a = read(tex, TEXTURE_DESC)
    promoted = texel is not None and texel[1] != 2 and texel[0] <= 16       # 8/16-bit integers
    read_mode = READ_NORMALIZED_FLOAT if promoted and not flags & TRSF_READ_AS_INTEGER else READ_ELEMENT_TYPE
    return _runtime_struct("ws_texture_desc_layout", TEXTURE_DESC_FIELDS, {
        "addressMode": ("3i", *modes), "filterMode": ("i", filter_mode), "readMode": ("i", read_mode),
        "sRGB": ("i", int(bool(flags & TRSF_SRGB))), "borderColor": ("4f", r, g, b, a),
        "normalizedCoords": ("i", int(bool(flags & TRSF_NORMALIZED_COORDINATES)))})


@driver_call()
def cuTexObjectCreate(context, out, res, tex, view):
    if not out or not res or not tex:
        return CUDA_ERROR_INVALID_VALUE
    try:
        resource, texel = _runtime_resource(context, res)
    except CopyRefused as refusal:
        return refuse(context, "cuTexObjectCreate", str(refusal), CUDA_ERROR_INVALID_VALUE)
    texture = _runtime_texture(tex, texel)
    # CUDA_RESOURCE_VIEW_DESC is laid out as cudaResourceViewDesc: the runtime judges it
    return calls.cudaCreateTextureObject.__wrapped__(context, out, ctypes.addressof(resource),
                                                     ctypes.addressof(texture), view)


@driver_call()
def cuTexObjectDestroy(context, handle):
    return calls.cudaDestroyTextureObject.__wrapped__(context, handle)


@driver_call()
def cuSurfObjectCreate(context, out, res):
    if not out or not res:
        return CUDA_ERROR_INVALID_VALUE
    try:
        resource, _ = _runtime_resource(context, res)
    except CopyRefused as refusal:
        return refuse(context, "cuSurfObjectCreate", str(refusal), CUDA_ERROR_INVALID_VALUE)
    return calls.cudaCreateSurfaceObject.__wrapped__(context, out, ctypes.addressof(resource))


@driver_call()
def cuSurfObjectDestroy(context, handle):
    return calls.cudaDestroySurfaceObject.__wrapped__(context, handle)


# --- host and managed memory (CU_MEMHOSTALLOC_*, CU_MEMHOSTREGISTER_*, CU_MEM_ATTACH_* are cuda*'s flags) ---

@driver_call()
def cuMemHostAlloc(context, out, size, flags):
    if not out or not size:
        return CUDA_ERROR_INVALID_VALUE
    return calls.cudaHostAlloc.__wrapped__(context, out, size, flags)


@driver_call()
def cuMemHostGetFlags(context, out, pointer):
    return runtime_queries.cudaHostGetFlags.__wrapped__(context, out, pointer)


@driver_call()
def cuMemHostRegister_v2(context, pointer, size, flags):
    return calls.cudaHostRegister.__wrapped__(context, pointer, size, flags)


@driver_call()
def cuMemHostUnregister(context, pointer):
    return calls.cudaHostUnregister.__wrapped__(context, pointer)


@driver_call()
def cuMemHostGetDevicePointer_v2(context, out, pointer, flags):
    return calls.cudaHostGetDevicePointer.__wrapped__(context, out, pointer, flags)


@driver_call()
def cuMemAllocManaged(context, out, size, flags):
    if not out or not size or flags not in (1, 2):     # CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST
        return CUDA_ERROR_INVALID_VALUE
    return calls.cudaMallocManaged.__wrapped__(context, out, size, flags)


@driver_call()
def cuMemPrefetchAsync_v2(context, address, count, location, flags, stream):
    """CUmemLocation is cudaMemLocation (the same types and numbers)."""
    return memory_pools.cudaMemPrefetchAsync.__wrapped__(context, address, count, location, flags, stream)
