"""`cupy.cuda.texture`: CUDA arrays, texture objects and surface objects on warpsim.

The classes take CuPy's arguments. A CUDAarray is a device allocation laid out
row-major and packed (a GPU's layout is opaque; copies and fetches see the same
texels). A TextureObject or SurfaceObject writes warpsim's descriptor into
device memory (machine.textures) and its handle (`ptr`, what a kernel receives
as cudaTextureObject_t) is that descriptor's address. Mipmapped arrays and
texture references are not provided, as CuPy provides neither.
"""

from __future__ import annotations

import numpy as np

from ....machine import textures as objects
from ....semantics import texture_fetch as rules
from ...arrays import ndarray
from ...memory import Memory, current_device
from .._missing import missing_attribute, not_provided
from . import runtime

__all__ = ["ChannelFormatDescriptor", "CUDAarray", "ResourceDescriptor", "TextureDescriptor",
           "TextureObject", "SurfaceObject"]


class ChannelFormatDescriptor:
    """cudaChannelFormatDesc: bits of the x, y, z, w channels and the channel kind."""

    def __init__(self, x: int, y: int, z: int, w: int, f: int):
        self.x, self.y, self.z, self.w, self.f = int(x), int(y), int(z), int(w), int(f)
        self.channels, self.bits = objects.channel_format(self.x, self.y, self.z, self.w)
        self.dtype = objects.channel_dtype(self.bits, self.f)
        self.ptr = id(self)

    @property
    def texel_bytes(self) -> int:
        return self.dtype.itemsize * self.channels

    def get_channel_format(self) -> dict:
        return {"x": self.x, "y": self.y, "z": self.z, "w": self.w, "f": self.f}


class CUDAarray:
    """cudaArray_t of 1 to 3 dimensions (width, height, depth in texels; 0 for an absent one)."""

    def __init__(self, desc: ChannelFormatDescriptor, width: int, height: int = 0, depth: int = 0,
                 flags: int = 0):
        if width == 0:
            raise ValueError("To create a CUDA array, width must be nonzero.")
        if height == 0 and depth > 0:
            raise ValueError("To create a 2D CUDA array, height must be nonzero.")
        self.desc, self.width, self.height, self.depth, self.flags = desc, int(width), int(height), int(depth), flags
        self.ndim = 3 if depth > 0 else 2 if height > 0 else 1
        self.nbytes = self.width * max(self.height, 1) * max(self.depth, 1) * desc.texel_bytes
        self._memory = Memory(current_device(), self.nbytes)
        self.ptr = self._memory.ptr

    def _checked_bytes(self, array) -> int:
        if array.nbytes != self.nbytes:
            raise ValueError(f"the array holds {array.nbytes} bytes; this CUDA array of "
                             f"{self.width}x{max(self.height, 1)}x{max(self.depth, 1)} texels of "
                             f"{self.desc.texel_bytes} bytes holds {self.nbytes}")
        return self.nbytes

    def copy_from(self, in_arr, stream=None) -> None:
        """Copy a NumPy or device array of the same number of bytes (C order) into the CUDA array."""
        heap = self._memory.device.memory
        self._checked_bytes(in_arr)
        if isinstance(in_arr, ndarray):
            heap.write_bytes(self.ptr, in_arr.get().reshape(-1).view(np.uint8))
        else:
            heap.write_bytes(self.ptr, np.ascontiguousarray(in_arr).reshape(-1).view(np.uint8))

    def copy_to(self, out_arr, stream=None) -> None:
        """Copy the CUDA array's texels into a NumPy or device array of the same number of bytes."""
        heap = self._memory.device.memory
        raw = np.asarray(heap.read_bytes(self.ptr, self._checked_bytes(out_arr)), np.uint8)
        if isinstance(out_arr, ndarray):
            out_arr.set(raw.view(out_arr.dtype).reshape(out_arr.shape))
        else:
            out_arr[...] = raw.view(out_arr.dtype).reshape(out_arr.shape)


class ResourceDescriptor:
    """cudaResourceDesc: a CUDA array, linear memory or pitched 2D memory."""

    def __init__(self, restype: int, cuArr: CUDAarray | None = None, arr: ndarray | None = None,
                 chDesc: ChannelFormatDescriptor | None = None, sizeInBytes: int = 0, width: int = 0,
                 height: int = 0, pitchInBytes: int = 0):
        if restype == runtime.cudaResourceTypeMipmappedArray:
            raise NotImplementedError("cudaResourceTypeMipmappedArray is currently not supported.")
        if restype == runtime.cudaResourceTypeArray and not isinstance(cuArr, CUDAarray):
            raise TypeError("cudaResourceTypeArray needs cuArr, a CUDAarray")
        if restype in (runtime.cudaResourceTypeLinear, runtime.cudaResourceTypePitch2D) and \
                (not isinstance(arr, ndarray) or not isinstance(chDesc, ChannelFormatDescriptor)):
            raise TypeError("linear and pitch2D resources need arr (a device array) and chDesc")
        self.restype, self.cuArr, self.arr, self.chDesc = int(restype), cuArr, arr, chDesc
        self.sizeInBytes, self.width, self.height, self.pitchInBytes = sizeInBytes, width, height, pitchInBytes

    def get_resource_desc(self) -> dict:
        if self.restype == runtime.cudaResourceTypeArray:
            return {"resType": self.restype, "array": {"array": self.cuArr.ptr}}
        if self.restype == runtime.cudaResourceTypeLinear:
            return {"resType": self.restype, "linear": {"devPtr": self.arr.data.ptr,
                    "desc": self.chDesc.get_channel_format(), "sizeInBytes": self.sizeInBytes}}
        return {"resType": self.restype, "pitch2D": {"devPtr": self.arr.data.ptr,
                "desc": self.chDesc.get_channel_format(), "width": self.width, "height": self.height,
                "pitchInBytes": self.pitchInBytes}}

    def layout(self) -> dict:
        """The descriptor fields of the resource (machine.textures.encode's keywords)."""
        if self.restype == runtime.cudaResourceTypeArray:
            a = self.cuArr
            return objects.array_fields(a.ptr, a.width, a.height, a.depth, a.flags, a.desc.channels, a.desc.bits,
                                        a.desc.f), a.desc
        ch = self.chDesc
        if self.restype == runtime.cudaResourceTypeLinear:
            width = self.sizeInBytes // ch.texel_bytes
            if width * ch.texel_bytes > self.arr.nbytes:
                raise ValueError(f"sizeInBytes {self.sizeInBytes} is past the array's {self.arr.nbytes} bytes")
            return dict(address=self.arr.data.ptr, resource=objects.LINEAR, dims=1, width=width,
                        channels=ch.channels, bits=ch.bits, kind=ch.f), ch
        if self.pitchInBytes < self.width * ch.texel_bytes or self.pitchInBytes * self.height > self.arr.nbytes:
            raise ValueError(f"pitch2D of {self.width}x{self.height} texels, pitch {self.pitchInBytes} bytes, "
                             f"does not fit the array's {self.arr.nbytes} bytes")
        return dict(address=self.arr.data.ptr, resource=objects.PITCH2D, dims=2, width=self.width,
                    height=self.height, pitch=self.pitchInBytes, channels=ch.channels, bits=ch.bits,
                    kind=ch.f), ch


class TextureDescriptor:
    """cudaTextureDesc: address modes, filter mode, read mode, border colour, normalized coordinates."""

    def __init__(self, addressModes=None, filterMode: int = 0, readMode: int = 0, sRGB=None,
                 borderColors=None, normalizedCoords=None, maxAnisotropy=None):
        modes = list(addressModes or ())
        if len(modes) > 3:
            raise ValueError("at most 3 address modes")
        self.addressModes = tuple(modes + [rules.WRAP] * (3 - len(modes)))      # zeroed, as CuPy's memset
        self.filterMode, self.readMode = int(filterMode), int(readMode)
        self.sRGB = int(sRGB or 0)
        colours = list(borderColors or ())
        self.borderColors = tuple(colours + [0.0] * (4 - len(colours)))
        self.normalizedCoords = int(normalizedCoords or 0)
        self.maxAnisotropy = int(maxAnisotropy or 0)
        if self.sRGB:
            raise not_provided("cupy.cuda.texture.TextureDescriptor(sRGB=1)", "sRGB conversion is not simulated")

    def get_texture_desc(self) -> dict:
        return {"addressMode": self.addressModes, "filterMode": self.filterMode, "readMode": self.readMode,
                "sRGB": self.sRGB, "borderColor": self.borderColors,
                "normalizedCoords": self.normalizedCoords, "maxAnisotropy": self.maxAnisotropy}


class _DescribedObject:
    """An object whose handle is the device address of warpsim's descriptor."""

    def _write(self, descriptor: bytes) -> None:
        self._memory = Memory(current_device(), len(descriptor))
        self._memory.device.memory.write_bytes(self._memory.ptr, descriptor)
        self.ptr = self._memory.ptr

    @property
    def __warpsim_handle__(self) -> int:
        return self.ptr


class TextureObject(_DescribedObject):
    """cudaTextureObject_t over a resource; pass it to a kernel as a cudaTextureObject_t argument."""

    def __init__(self, ResDesc: ResourceDescriptor, TexDesc: TextureDescriptor):
        self.ResDesc, self.TexDesc = ResDesc, TexDesc
        fields, _ = ResDesc.layout()
        try:
            descriptor = objects.encode(**fields, filter_mode=TexDesc.filterMode, read_mode=TexDesc.readMode,
                                        normalized=bool(TexDesc.normalizedCoords),
                                        address_modes=TexDesc.addressModes, border=TexDesc.borderColors)
        except ValueError as error:
            raise runtime.CUDARuntimeError(f"cudaErrorInvalidValue: cudaCreateTextureObject: {error}") from None
        self._write(descriptor)


class SurfaceObject(_DescribedObject):
    """cudaSurfaceObject_t over a CUDA array; pass it to a kernel as a cudaSurfaceObject_t argument."""

    def __init__(self, ResDesc: ResourceDescriptor):
        if ResDesc.restype != runtime.cudaResourceTypeArray:
            raise runtime.CUDARuntimeError("cudaErrorInvalidValue: cudaCreateSurfaceObject: a surface is made over a CUDA array")
        self.ResDesc = ResDesc
        fields, _ = ResDesc.layout()
        self._write(objects.encode(**fields, surface=True))


def __getattr__(name):
    raise missing_attribute("cupy.cuda.texture", name)
