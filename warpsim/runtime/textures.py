"""CUDA arrays, texture objects and surface objects of the runtime API: what the program's structs say.

A cudaArray_t is the device address of a heap allocation laid out row-major and
packed, as machine.textures lays out every CUDA array, so copies to and from it
are pitched copies with a pitch of width x texel bytes. A texture or surface
object's handle is the device address of the descriptor machine.textures.encode
writes (the one encoder, shared with cupy.cuda.texture). The program's structs
(cudaChannelFormatDesc, cudaResourceDesc, cudaTextureDesc) are read at the
offsets the library was compiled with (native.LAYOUTS). The runtime functions
themselves (cudaMallocArray ... cudaDestroySurfaceObject) are in calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..machine import textures as objects
from .hoststructs import offsets, read

RESOURCE_MIPMAPPED = 1                         # cudaResourceTypeMipmappedArray


@dataclass(frozen=True)
class CudaArray:
    """What a cudaArray_t names: its texels' device address, extent and channel format."""
    address: int
    dims: int
    width: int
    height: int
    depth: int
    channels: int
    bits: int
    kind: int
    flags: int = 0                 # cudaMalloc3DArray's flags (cudaArrayGetInfo returns them)

    @property
    def pitch(self) -> int:
        return self.width * objects.channel_dtype(self.bits, self.kind).itemsize * self.channels

    @property
    def rows(self) -> int:
        return max(self.height, 1) * max(self.depth, 1)


class InvalidChannelDescriptor(ValueError):
    """A cudaChannelFormatDesc no texel format matches: cudaErrorInvalidChannelDescriptor, as an H200
    answers cudaMallocArray of channels 8, 16, 0, 0 (validation/programs/h200/native.json, texture.cu)."""


def channel_format(address: int) -> tuple[int, int, int]:
    """(channels, bits, kind) of the cudaChannelFormatDesc at a host address; InvalidChannelDescriptor if unusable."""
    from .native import CHANNEL_DESC_FIELDS
    at = offsets("ws_channel_desc_layout", CHANNEL_DESC_FIELDS)
    x, y, z, w, kind = (read(address + at[f], "i")[0] for f in CHANNEL_DESC_FIELDS)
    try:
        channels, bits = objects.channel_format(x, y, z, w)
        objects.channel_dtype(bits, kind)
    except ValueError as error:
        raise InvalidChannelDescriptor(str(error)) from None
    return channels, bits, kind


def resource_fields(arrays: dict, res: int) -> dict:
    """machine.textures.encode's resource keywords for a cudaResourceDesc; ValueError if refused."""
    from .native import RESOURCE_DESC_FIELDS
    at = offsets("ws_resource_desc_layout", RESOURCE_DESC_FIELDS)
    resource = read(res + at["resType"], "i")[0]
    if resource == objects.ARRAY:
        array = read(res + at["res.array.array"], "Q")[0]
        found = arrays.get(array)
        if found is None:
            raise ValueError(f"0x{array:x} is not a CUDA array of cudaMallocArray or cudaMalloc3DArray")
        return objects.array_fields(array, found.width, found.height, found.depth, found.flags, found.channels,
                                    found.bits, found.kind)
    if resource == RESOURCE_MIPMAPPED:
        raise NotImplementedError("mipmapped arrays are not simulated")
    if resource not in (objects.LINEAR, objects.PITCH2D):
        raise ValueError(f"resType {resource} is not a cudaResourceType")
    name = "linear" if resource == objects.LINEAR else "pitch2D"
    address = read(res + at[f"res.{name}.devPtr"], "Q")[0]
    channels, bits, kind = channel_format(res + at[f"res.{name}.desc"])
    texel = objects.channel_dtype(bits, kind).itemsize * channels
    if not address:
        raise ValueError(f"res.{name}.devPtr is NULL")
    if resource == objects.LINEAR:
        return dict(address=address, resource=resource, dims=1,
                    width=read(res + at["res.linear.sizeInBytes"], "Q")[0] // texel,
                    channels=channels, bits=bits, kind=kind)
    width, height, pitch = (read(res + at[f"res.pitch2D.{f}"], "Q")[0] for f in ("width", "height", "pitchInBytes"))
    if pitch < width * texel:
        raise ValueError(f"pitchInBytes {pitch} is less than width {width} x {texel} bytes")
    return dict(address=address, resource=resource, dims=2, width=width, height=height, pitch=pitch,
                channels=channels, bits=bits, kind=kind)


def texture_fields(tex) -> dict:
    """machine.textures.encode's sampling keywords for a cudaTextureDesc."""
    from .native import TEXTURE_DESC_FIELDS
    at = offsets("ws_texture_desc_layout", TEXTURE_DESC_FIELDS)
    if read(tex + at["sRGB"], "i")[0]:
        raise NotImplementedError("sRGB conversion is not simulated")
    return dict(address_modes=read(tex + at["addressMode"], "3i"),
                filter_mode=read(tex + at["filterMode"], "i")[0],
                read_mode=read(tex + at["readMode"], "i")[0],
                border=read(tex + at["borderColor"], "4f"),
                normalized=bool(read(tex + at["normalizedCoords"], "i")[0]))
