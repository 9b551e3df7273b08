"""Texture and surface objects: warpsim's descriptors in device memory, and texel reads.

On a GPU a cudaTextureObject_t / cudaSurfaceObject_t is a 64-bit handle the
driver resolves to a descriptor the kernel never sees. warpsim's handle is the
device address of a 128-byte descriptor of its own (DESCRIPTOR, tagged
"WSTEX001" or "WSSURF01"), written by `encode` when the host API creates the
object, so the handle means the same to every launch and every executor that
reads device memory, and a handle warpsim did not make is refused by name.

A resource is linear memory, pitched 2D memory or a CUDA array (layered too: its
layers, or a cubemap's six faces, are the slices of a 3D layout). warpsim lays a CUDA array out row-major and packed (a GPU's layout is opaque and tiled; only
copies and fetches see it, and they see the same texels).
"""

from __future__ import annotations

import numpy as np

from ..errors import LaunchError
from ..semantics import texture_fetch as rules

TEXTURE_MAGIC = int.from_bytes(b"WSTEX001", "little")
SURFACE_MAGIC = int.from_bytes(b"WSSURF01", "little")
ARRAY, LINEAR, PITCH2D = 0, 2, 3               # cudaResourceType values
DESCRIPTOR = np.dtype([("magic", "<u8"), ("address", "<u8"), ("pitch", "<u8"), ("slice", "<u8"),
                       ("width", "<u4"), ("height", "<u4"), ("depth", "<u4"), ("resource", "u1"),
                       ("channels", "u1"), ("bits", "u1"), ("kind", "u1"), ("filter", "u1"),
                       ("read_mode", "u1"), ("normalized", "u1"), ("dims", "u1"),
                       ("address_modes", "u1", 3), ("layered", "u1"), ("reserved", "u1", 4), ("border", "<f4", 4),
                       ("padding", "u1", 52)])
assert DESCRIPTOR.itemsize == 128
MISSING_CHANNELS = (0.0, 0.0, 0.0, 0.0)        # what a fetch returns for channels the format lacks (the H200: zeros)


def channel_dtype(bits: int, kind: int) -> np.dtype:
    """The NumPy dtype of one channel (cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float)."""
    if kind == rules.FLOAT:
        if bits not in (16, 32):
            raise ValueError(f"float channels are 16 or 32 bits, not {bits}")
        return np.dtype(np.float16 if bits == 16 else np.float32)
    if bits not in (8, 16, 32) or kind not in (rules.SIGNED, rules.UNSIGNED):
        raise ValueError(f"integer channels are 8, 16 or 32 bits of a signed or unsigned kind, not "
                         f"{bits} bits of kind {kind}")
    return np.dtype(f"{'i' if kind == rules.SIGNED else 'u'}{bits // 8}")


def channel_format(x: int, y: int, z: int, w: int) -> tuple[int, int]:
    """(channels, bits) of a cudaChannelFormatDesc's channel widths; ValueError for a format warpsim
    does not lay out (it takes 1, 2 or 4 leading channels of equal width)."""
    widths = [int(x), int(y), int(z), int(w)]
    bits = [b for b in widths if b]
    if not bits or len(set(bits)) != 1 or bits != widths[:len(bits)]:
        raise ValueError(f"channel bits ({x}, {y}, {z}, {w}): warpsim takes 1, 2 or 4 leading channels "
                         f"of equal width")
    return len(bits), bits[0]


ARRAY_LAYERED, ARRAY_CUBEMAP = 0x01, 0x04      # cudaArrayLayered, cudaArrayCubemap (cudaMalloc3DArray's flags)
LAYERS_PLAIN, LAYERS_CUBEMAP = 1, 2           # a descriptor's `layered`: layers of 1D/2D textures, a cubemap's faces


def array_fields(address: int, width: int, height: int, depth: int, flags: int, channels: int, bits: int,
                 kind: int) -> dict:
    """encode's resource keywords for a CUDA array (0 for an absent extent): a layered array is as
    many 1D or 2D layers as its depth says, a cubemap six square 2D faces (LAYERS_CUBEMAP); layered
    cubemaps are not sampled (NotImplementedError)."""
    if flags & ARRAY_CUBEMAP and flags & ARRAY_LAYERED:
        raise NotImplementedError("textures and surfaces over layered cubemap arrays are not simulated")
    layered = LAYERS_CUBEMAP if flags & ARRAY_CUBEMAP else LAYERS_PLAIN if flags & ARRAY_LAYERED else 0
    dims = (2 if height else 1) if layered else 3 if depth else 2 if height else 1
    return dict(address=address, resource=ARRAY, dims=dims, width=width, height=height, depth=depth,
                channels=channels, bits=bits, kind=kind, layered=layered)


def encode(*, address: int, resource: int, dims: int, width: int, height: int = 1, depth: int = 1,
           pitch: int = 0, slice_pitch: int = 0, channels: int = 1, bits: int = 32, kind: int = rules.FLOAT,
           filter_mode: int = rules.POINT, read_mode: int = rules.ELEMENT_TYPE, normalized: bool = False,
           address_modes=(rules.CLAMP,) * 3, border=(0.0,) * 4, surface: bool = False,
           layered: int = 0) -> bytes:
    """A descriptor's 128 bytes; raises ValueError for what cudaCreateTextureObject refuses. A layered
    array's descriptor has dims 1 or 2 and its layers as depth (each layer a slice)."""
    esize = channel_dtype(bits, kind).itemsize * channels
    if not 1 <= channels <= 4 or channels == 3 and not surface:
        raise ValueError(f"{channels} channels (1, 2 or 4)")
    if filter_mode == rules.LINEAR and kind != rules.FLOAT and read_mode != rules.NORMALIZED_FLOAT:
        raise ValueError("linear filtering needs float texels or cudaReadModeNormalizedFloat")
    if read_mode == rules.NORMALIZED_FLOAT and (kind == rules.FLOAT or bits == 32):
        raise ValueError("cudaReadModeNormalizedFloat needs 8- or 16-bit integer channels")
    record = np.zeros(1, DESCRIPTOR)[0]
    record["magic"] = SURFACE_MAGIC if surface else TEXTURE_MAGIC
    record["address"], record["resource"], record["dims"] = address, resource, dims
    record["layered"] = int(layered)
    record["width"], record["height"], record["depth"] = width, max(height, 1), max(depth, 1)
    record["pitch"] = pitch or width * esize
    record["slice"] = slice_pitch or int(record["pitch"]) * max(height, 1)
    record["channels"], record["bits"], record["kind"] = channels, bits, kind
    record["filter"], record["read_mode"], record["normalized"] = filter_mode, read_mode, int(bool(normalized))
    record["address_modes"] = list(address_modes)[:3] + [rules.CLAMP] * (3 - len(address_modes))
    record["border"] = list(border)[:4] + [0.0] * (4 - len(border))
    return record.tobytes()


# ------------------------------------------------------------ reading descriptors and texels

def fail(ctx, site, slot, message: str):
    where = ctx.where(int(slot))
    raise LaunchError(message, kernel=ctx.kernel, block=where["block"], thread=where["thread"],
                      ptx_line=site.ins.line, instruction=str(site.ins), source_line=site.described)


def descriptor(ctx, site, slot, handle: int, surface: bool) -> np.void:
    """The descriptor a handle names, or a LaunchError naming the thread that used a bad handle."""
    what = "surface" if surface else "texture"
    ok, buf, off = ctx.memory.resolve(np.array([handle], np.uint64), 128)
    magic = SURFACE_MAGIC if surface else TEXTURE_MAGIC
    if ok[0]:
        record = np.frombuffer(buf[int(off[0]):int(off[0]) + 128].tobytes(), DESCRIPTOR)[0]
        if int(record["magic"]) == magic:
            return record
    fail(ctx, site, slot, f"0x{handle:x} is not a {what} object warpsim made (create it with "
                          f"cupy.cuda.texture.{'SurfaceObject' if surface else 'TextureObject'} or "
                          f"cuda{'Surface' if surface else 'Texture'}Object creation; texture references "
                          f"are not supported)")


def texel_bytes(record) -> int:
    return channel_dtype(int(record["bits"]), int(record["kind"])).itemsize * int(record["channels"])


def read_texels(ctx, site, idx, record, ix, iy, iz) -> np.ndarray:
    """(lanes, channels) texels at in-range indices, as stored."""
    size = texel_bytes(record)
    addrs = (np.uint64(int(record["address"])) + iz.astype(np.uint64) * np.uint64(int(record["slice"]))
             + iy.astype(np.uint64) * np.uint64(int(record["pitch"])) + ix.astype(np.uint64) * np.uint64(size))
    ok, buf, off = ctx.memory.resolve(addrs, size)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        fail(ctx, site, idx[bad], f"texel at 0x{int(addrs[bad]):x} is outside the resource's memory "
                                  f"(freed while the object lives?)")
    dtype = channel_dtype(int(record["bits"]), int(record["kind"]))
    channels = int(record["channels"])
    if len(buf) % dtype.itemsize == 0 and not (off % dtype.itemsize).any():    # whole channels: one gather
        first = off // dtype.itemsize
        words = buf.view(dtype)
        return words[first][:, None] if channels == 1 else words[first[:, None] + np.arange(channels)]
    raw = buf[off[:, None] + np.arange(size)]
    return np.ascontiguousarray(raw).view(dtype).reshape(len(addrs), channels)


def converted(record, texels: np.ndarray) -> np.ndarray:
    """Texels as the fetch returns them before filtering: f32 for float results, else int64."""
    kind, bits = int(record["kind"]), int(record["bits"])
    if kind == rules.FLOAT:
        return texels.astype(np.float32)
    if int(record["read_mode"]) == rules.NORMALIZED_FLOAT:
        return rules.normalized_float(texels, bits, kind)
    return texels.astype(np.int64)


def returns_float(record) -> bool:
    return int(record["kind"]) == rules.FLOAT or int(record["read_mode"]) == rules.NORMALIZED_FLOAT


def as_bits(record, values: np.ndarray) -> np.ndarray:
    """(lanes, 4) results as 32-bit register bits, the channels the format lacks filled in."""
    lanes = values.shape[0]
    out = np.zeros((lanes, 4), np.uint32)
    channels = values.shape[1]
    if returns_float(record):
        out[:, :channels] = values.astype(np.float32).view(np.uint32)
        out[:, channels:] = np.array(MISSING_CHANNELS[channels:], np.float32).view(np.uint32)
    else:
        out[:, :channels] = (values.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
        out[:, channels:] = np.array(MISSING_CHANNELS[channels:]).astype(np.uint32)
    return out


def border_value(record, channels: int) -> np.ndarray:
    """The border colour as the fetch returns it (float results: the colour; integer ones: its bits)."""
    colour = np.asarray(record["border"][:channels], np.float32)
    return colour if returns_float(record) else colour.view(np.int32).astype(np.int64)
