"""3D memory and CUDA-array copies of the runtime API: cudaMalloc3D, cudaMemcpy3D, cudaMemset3D, ...

cudaMemcpy3D copies extent.depth slices of extent.height rows of extent.width
units from one side to the other. Each side is a CUDA array (srcArray/dstArray)
or a pitched pointer (srcPtr/dstPtr: ptr, pitch, xsize, ysize), never both.
Where a CUDA array takes part, extent.width and that array's pos.x count its
elements (texel bytes each); where none does they count bytes, and a pitched
pointer's pos.x counts bytes always. A pitched pointer's rows are pitch bytes
apart and its slices pitch x ysize bytes; a CUDA array is packed row-major
(runtime.textures.CudaArray). `plan` turns the program's cudaMemcpy3DParms into
a `Box` per side, or a `Refusal` naming the cudaError_t. The structs are read at
the offsets the library was compiled with (native.LAYOUTS).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports
this module), beside the 2D and array copies they build on.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass

from ..errors import OutOfMemoryError
from .calls import (CODES, INVALID_HANDLE, INVALID_VALUE, MEMCPY_KINDS, NODE_MEMCPY, NODE_MEMSET, PITCH_ALIGNMENT,
                    SUCCESS, _array_region, _now_or_captured,
                    _copy, _copy_2d, _is_device, _known_stream, _refuse, _time_copy, _time_memset, call,
                    cudaMemcpy2DFromArray, cudaMemcpy2DToArray)
from .hoststructs import layout, offsets, read, write


MEMCPY_DEFAULT = 4                    # cudaMemcpyDefault: a peer copy's direction, from the addresses


class Refusal(ValueError):
    """Parameters CUDA refuses; `error` is the cudaError_t's name."""

    def __init__(self, error: str, why: str):
        super().__init__(why)
        self.error = error


@dataclass(frozen=True)
class Box:
    """The first byte of a copy's box on one side, and the strides of its rows and slices."""
    start: int
    row_pitch: int
    slice_pitch: int

    def rows(self, height: int, depth: int):
        """The address of every row of the box, slice by slice."""
        for z in range(depth):
            for y in range(height):
                yield self.start + z * self.slice_pitch + y * self.row_pitch

    def packed(self, width: int, height: int, depth: int) -> bool:
        """Whether the box's rows follow one another with no gap (one plain copy)."""
        return (self.row_pitch == width or height == 1) and (self.slice_pitch == width * height or depth == 1)


def _struct(symbol: str, fields: tuple, address: int, fmt: str) -> tuple:
    at = offsets(symbol, fields)
    return tuple(read(address + at[f], fmt)[0] for f in fields)


def plan(parms: int, arrays: dict, peer: bool = False) -> tuple[Box, Box, int, int, int, int]:
    """(source box, destination box, row bytes, rows, slices, cudaMemcpyKind) of a
    cudaMemcpy3DParms (or, peer, a cudaMemcpy3DPeerParms: its devices, no kind) at a host
    address; Refusal if CUDA would refuse it."""
    from .native import EXTENT_FIELDS, MEMCPY3D_FIELDS, MEMCPY3D_PEER_FIELDS, PITCHED_PTR_FIELDS, POS_FIELDS
    at = offsets(*(("ws_memcpy3d_peer_layout", MEMCPY3D_PEER_FIELDS) if peer else
                   ("ws_memcpy3d_layout", MEMCPY3D_FIELDS)))
    width, height, depth = _struct("ws_extent_layout", EXTENT_FIELDS, parms + at["extent"], "Q")
    kind = MEMCPY_DEFAULT if peer else read(parms + at["kind"], "i")[0]
    sides = {}
    for side in ("src", "dst"):
        if peer and read(parms + at[f"{side}Device"], "i")[0] != 0:
            raise Refusal("cudaErrorInvalidDevice", f"{side}Device {read(parms + at[f'{side}Device'], 'i')[0]} "
                          "is not device 0, the one device")
        array = read(parms + at[f"{side}Array"], "Q")[0]
        pointer = _struct("ws_pitched_ptr_layout", PITCHED_PTR_FIELDS, parms + at[f"{side}Ptr"], "Q")
        position = _struct("ws_pos_layout", POS_FIELDS, parms + at[f"{side}Pos"], "Q")
        if array and pointer[0]:
            raise Refusal("cudaErrorInvalidValue", f"{side}Array and {side}Ptr are both given")
        if array and array not in arrays:
            raise Refusal("cudaErrorInvalidValue", f"{side}Array 0x{array:x} is not a CUDA array of "
                          "cudaMallocArray or cudaMalloc3DArray")
        if not array and not pointer[0]:
            raise Refusal("cudaErrorInvalidValue", f"neither {side}Array nor {side}Ptr.ptr is given")
        sides[side] = (arrays.get(array), pointer, position)
    elements = {found.pitch // found.width for found, _, _ in sides.values() if found is not None}
    if len(elements) > 1:
        raise Refusal("cudaErrorInvalidValue", "the two CUDA arrays have elements of different sizes")
    unit = elements.pop() if elements else 1
    row_bytes = width * unit
    boxes = [_box(side, *sides[side], unit, row_bytes, height, depth) for side in ("src", "dst")]
    return boxes[0], boxes[1], row_bytes, height, depth, kind


def _box(side, array, pointer, position, unit, row_bytes, height, depth) -> Box:
    x, y, z = position
    if array is not None:
        rows, slices = max(array.height, 1), max(array.depth, 1)
        if x * unit + row_bytes > array.pitch or y + height > rows or z + depth > slices:
            raise Refusal("cudaErrorInvalidValue", f"the box ({x}, {y}, {z}) + {row_bytes // unit} x {height} "
                          f"x {depth} runs past the {side} CUDA array of {array.width} x {rows} x {slices}")
        return Box(array.address + (z * rows + y) * array.pitch + x * unit, array.pitch, array.pitch * rows)
    address, pitch, _, ysize = pointer
    if x + row_bytes > pitch:
        raise Refusal("cudaErrorInvalidPitchValue", f"{side}Pos.x {x} + {row_bytes} bytes a row exceed "
                      f"{side}Ptr.pitch {pitch}")
    if (depth > 1 or z) and y + height > ysize:
        raise Refusal("cudaErrorInvalidValue", f"{side}Pos.y {y} + {height} rows exceed {side}Ptr.ysize "
                      f"{ysize}, the rows of a slice")
    return Box(address + (z * ysize + y) * pitch + x, pitch, pitch * ysize)


# --- the runtime functions --------------------------------------------------------------

@call()
def cudaMalloc3D(context, out, extent):
    """Rows of width bytes padded to the pitch cudaMallocPitch gives, height rows a slice."""
    from .native import PITCHED_PTR_FIELDS
    width, height, depth = extent
    if not out:
        return context.fail(INVALID_VALUE)
    pitch = -(-width // PITCH_ALIGNMENT) * PITCH_ALIGNMENT
    address = 0
    if pitch * height * depth:
        try:
            address = context.device.memory.allocate(pitch * height * depth)
        except OutOfMemoryError:
            return context.fail(CODES["cudaErrorMemoryAllocation"])
    at = offsets("ws_pitched_ptr_layout", PITCHED_PTR_FIELDS)
    for field, value in zip(PITCHED_PTR_FIELDS, (address, pitch, width, height)):
        write(out + at[field], "Q", value)
    return SUCCESS


def _struct_kept(copy, context, function: str, parms: int, stream: int, peer: bool = False):
    """copy(...) of a copy of the program's cudaMemcpy3D(Peer)Parms as they are now (a captured call
    keeps them, as CUDA does)."""
    if not parms:
        return functools.partial(copy, context, function, 0, stream, peer)
    from .native import MEMCPY3D_FIELDS, MEMCPY3D_PEER_FIELDS
    symbol, fields = ("ws_memcpy3d_peer_layout", MEMCPY3D_PEER_FIELDS) if peer else \
        ("ws_memcpy3d_layout", MEMCPY3D_FIELDS)
    size = layout(symbol, len(fields))[0]
    kept = ctypes.create_string_buffer(ctypes.string_at(parms, size), size)
    return lambda: copy(context, function, ctypes.addressof(kept), stream, peer)


def _copy_3d(context, function: str, parms: int, stream: int = 0, peer: bool = False) -> int:
    if not parms:
        return context.fail(INVALID_VALUE)
    try:
        src, dst, width, height, depth, kind = plan(parms, context.cuda_arrays, peer)
    except Refusal as refusal:
        return _refuse(context, function, refusal, CODES[refusal.error])
    if kind not in MEMCPY_KINDS:
        return context.fail(CODES["cudaErrorInvalidMemcpyDirection"])
    if peer:
        for side, box in (("srcPtr", src), ("dstPtr", dst)):
            if not _known_to_cuda(context, box.start):
                return _refuse(context, function, f"{side} 0x{box.start:x} is pageable host memory; a peer copy "
                               "takes device memory or host memory CUDA allocated or registered")
    if not (width and height and depth):
        return SUCCESS
    if src.packed(width, height, depth) and dst.packed(width, height, depth):
        return _copy(context, dst.start, src.start, width * height * depth, stream)
    for source_row, destination_row in zip(src.rows(height, depth), dst.rows(height, depth)):
        code = _copy(context, destination_row, source_row, width, stream, timed=False)
        if code:
            return code
    _time_copy(context, width * height * depth, _is_device(context, src.start), _is_device(context, dst.start),
               stream)
    return SUCCESS


def _known_to_cuda(context, address: int) -> bool:
    """Whether an address is memory a device context owns (device or managed memory, pinned or
    registered host memory). A peer copy finds each side's device from its pointer, so pageable
    host memory has none: an H200 answers cudaMemcpy3DPeerAsync to a std::vector with
    cudaErrorInvalidValue (validation/programs/h200/native.json, memory3d.cu)."""
    if _is_device(context, address) or any(start <= address < start + size
                                           for start, size in context.registered_host.items()):
        return True
    return any(start <= address < start + ctypes.sizeof(buffer) for start, buffer in context.host_allocations.items())


@call()
def cudaMemcpy3D(context, parms):
    return _copy_3d(context, "cudaMemcpy3D", parms)


@call()
def cudaMemcpy3DAsync(context, parms, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, _struct_kept(_copy_3d, context, "cudaMemcpy3DAsync", parms,
                                                                      stream))


@call()
def cudaMemcpy3DPeer(context, parms):
    return _copy_3d(context, "cudaMemcpy3DPeer", parms, peer=True)


@call()
def cudaMemcpy3DPeerAsync(context, parms, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, _struct_kept(
        _copy_3d, context, "cudaMemcpy3DPeerAsync", parms, stream, peer=True))


@call()
def cudaMemset3D(context, pitched, value, extent):
    address, pitch, _, ysize = pitched
    width, height, depth = extent
    if not (width and height and depth):
        return SUCCESS
    if width > pitch and height * depth > 1:    # one row is one run of bytes: an H200 sets it (native.json)
        return context.fail(CODES["cudaErrorInvalidPitchValue"])
    if depth > 1 and height > ysize:
        return _refuse(context, "cudaMemset3D", f"extent.height {height} exceeds pitchedDevPtr.ysize {ysize}, "
                       "the rows of a slice")
    box = Box(address, pitch, pitch * ysize)
    rows = [(address, width * height * depth)] if box.packed(width, height, depth) else \
        [(row, width) for row in box.rows(height, depth)]
    memory = context.device.memory
    try:
        for row, count in rows:
            memory.memset(row, value, count)
    except ValueError as error:
        return _refuse(context, "cudaMemset3D", error)
    _time_memset(context, width * height * depth)
    return SUCCESS


@call()
def cudaMemset3DAsync(context, pitched, value, extent, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMSET, functools.partial(cudaMemset3D.__wrapped__, context, pitched,
                                                                            value, extent))


# --- CUDA arrays: the asynchronous, array-to-array, deprecated 1D and query calls ----------------

@call()
def cudaMemcpy2DToArrayAsync(context, dst, w_offset, h_offset, src, spitch, width, height, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        cudaMemcpy2DToArray.__wrapped__, context, dst, w_offset, h_offset, src, spitch, width, height, kind))


@call()
def cudaMemcpy2DFromArrayAsync(context, dst, dpitch, src, w_offset, h_offset, width, height, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        cudaMemcpy2DFromArray.__wrapped__, context, dst, dpitch, src, w_offset, h_offset, width, height, kind))


@call()
def cudaMemcpy2DArrayToArray(context, dst, w_dst, h_dst, src, w_src, h_src, width, height, kind):
    """Offsets and width in bytes, as the other 2D array copies take them."""
    to, found_dst = _array_region(context, dst, w_dst, h_dst, width, height)
    source, found_src = _array_region(context, src, w_src, h_src, width, height)
    if to is None or source is None:
        return context.fail(INVALID_VALUE)
    return _copy_2d(context, to, found_dst.pitch, source, found_src.pitch, width, height, kind)


def _array_run(context, array, w_offset, h_offset, count):
    """The device address of a run of count bytes from (w_offset, h_offset) on, across rows, in a
    CUDA array (the deprecated 1D array copies), or None if it leaves the array."""
    found = context.cuda_arrays.get(array)
    start = h_offset * found.pitch + w_offset if found else 0
    if found is None or w_offset >= found.pitch or start + count > found.pitch * found.rows:
        return None
    return array + start


def _copy_run(context, dst, src, count, kind, stream=0) -> int:
    if dst is None or src is None:
        return context.fail(INVALID_VALUE)
    if kind not in MEMCPY_KINDS:
        return context.fail(CODES["cudaErrorInvalidMemcpyDirection"])
    return _copy(context, dst, src, count, stream)


@call()
def cudaMemcpyToArray(context, dst, w_offset, h_offset, src, count, kind):
    """Deprecated: count bytes from (w_offset, h_offset) on, running on across rows."""
    return _copy_run(context, _array_run(context, dst, w_offset, h_offset, count), src, count, kind)


@call()
def cudaMemcpyFromArray(context, dst, src, w_offset, h_offset, count, kind):
    """Deprecated: count bytes from (w_offset, h_offset) on, running on across rows."""
    return _copy_run(context, dst, _array_run(context, src, w_offset, h_offset, count), count, kind)


@call()
def cudaMemcpyFromArrayAsync(context, dst, src, w_offset, h_offset, count, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        _copy_run, context, dst, _array_run(context, src, w_offset, h_offset, count), count, kind, stream))


@call()
def cudaMemcpyToArrayAsync(context, dst, w_offset, h_offset, src, count, kind, stream):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return _now_or_captured(context, stream, NODE_MEMCPY, functools.partial(
        _copy_run, context, _array_run(context, dst, w_offset, h_offset, count), src, count, kind, stream))


@call()
def cudaMemcpyArrayToArray(context, dst, w_dst, h_dst, src, w_src, h_src, count, kind):
    return _copy_run(context, _array_run(context, dst, w_dst, h_dst, count),
                     _array_run(context, src, w_src, h_src, count), count, kind)


def _write_channel_desc(address: int, found) -> None:
    from .native import CHANNEL_DESC_FIELDS
    at = offsets("ws_channel_desc_layout", CHANNEL_DESC_FIELDS)
    bits = [found.bits if k < found.channels else 0 for k in range(4)]
    for field, value in zip(CHANNEL_DESC_FIELDS, (*bits, found.kind)):
        write(address + at[field], "i", value)


@call()
def cudaGetChannelDesc(context, desc, array):
    found = context.cuda_arrays.get(array)
    if found is None or not desc:
        return context.fail(INVALID_VALUE if desc else INVALID_VALUE)
    _write_channel_desc(desc, found)
    return SUCCESS


@call()
def cudaArrayGetInfo(context, desc, extent, flags, array):
    """The array's format, its extent as it was allocated (0 for the dimensions it lacks), its flags."""
    from .native import EXTENT_FIELDS
    found = context.cuda_arrays.get(array)
    if found is None:
        return context.fail(INVALID_VALUE)
    if desc:
        _write_channel_desc(desc, found)
    if extent:
        at = offsets("ws_extent_layout", EXTENT_FIELDS)
        for field, value in zip(EXTENT_FIELDS, (found.width, found.height, found.depth)):
            write(extent + at[field], "Q", value)
    if flags:
        write(flags, "I", found.flags)
    return SUCCESS
