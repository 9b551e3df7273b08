"""Texture and surface instructions on texture/surface objects: tex, tld4, txq, suld.b, sust.b.

- `tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} d, [obj, {x, ...}]` (unified mode: the
  object is a 64-bit handle, machine.textures) fetches with the object's address
  modes, filter and read mode (semantics.texture_fetch); .s32 coordinates are
  texel indices (tex1Dfetch), never filtered. `.level`/`.grad` read level 0: warpsim
  has no mipmapped textures. A layered texture (a1d, a2d: `{layer, x[, y, _]}`) reads the
  layer its index names, clamped to the array's layers, and never filters across layers. A
  cubemap (`tex.cube`, `{x, y, z, _}`) reads the face its direction picks (rules.cube_face).
- `tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32` returns one channel of the four texels the
  bilinear filter would read, in PTX's order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
- `txq.{width,height,depth,normalized_coords,filter_mode,addr_mode_N,channel_data_type,
  channel_order}.b32 d, [obj]` answers from the descriptor.
- `suld.b.{1d,2d,3d}{.v2,.v4}.{b8,b16,b32,b64}.{trap,clamp,zero}` and `sust.b...`: x is in
  bytes; out of range, .trap stops the launch, .clamp uses the nearest element, .zero
  reads 0 and drops stores.

Texture references (.texref, `[tex_name, ...]`), independent mode (a sampler operand),
layered surfaces, layered cubemaps, formatted surface stores (sust.p) and surface reductions are
refused at load.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Reg, Sink, Vec
from .. import textures as objects
from ...semantics import texture_fetch as rules
from .table import MEMORY, emitted

GEOMETRIES = {"1d": 1, "2d": 2, "3d": 3}
LAYERED = {"a1d": 1, "a2d": 2}          # {layer, x[, y, _]}: a layer index, then the layer's coordinates
CUBE = "cube"                           # {x, y, z, _}: a direction (rules.cube_face)
RESULT_DTYPES = {"f32": "np.float32", "s32": "np.int32", "u32": "np.uint32"}
QUERIES = ("width", "height", "depth", "normalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
           "addr_mode_2", "channel_data_type", "channel_order", "num_mipmap_levels", "num_samples",
           "array_size")
BOUNDARY = ("trap", "clamp", "zero")


def _object_operand(ins, operand):
    """(handle register, coordinate Vec) of `[obj, {x, ...}]`, or a reason it is not supported."""
    if not isinstance(operand, Vec) or len(operand.items) != 2 or not isinstance(operand.items[1], Vec):
        return None, "only unified-mode texture/surface objects are supported ([object, {coordinates}])"
    handle = operand.items[0]
    if not isinstance(handle, Reg):
        return None, (f"'{handle}' is a texture or surface reference (.texref/.surfref), which warpsim does "
                      f"not simulate: pass a cudaTextureObject_t / cudaSurfaceObject_t")
    return operand.items, None


def check_texture(ins):
    geometry = next((m for m in ins.mods if m in GEOMETRIES or m in LAYERED or m == CUBE), None)
    if geometry is None:
        return "tex/tld4 on 1d, 2d, 3d, a1d, a2d and cube textures are supported (not acube ones)"
    if ins.opcode == "tld4" and geometry != "2d":
        return "tld4 reads 2d textures"
    if len(ins.types) != 2 or ins.types[0] not in RESULT_DTYPES or ins.types[1] not in ("f32", "s32"):
        return "tex results are .f32/.s32/.u32 and coordinates .f32/.s32 (.f16 results are not supported)"
    if not isinstance(ins.dsts[0], Vec) or len(ins.dsts[0].items) != 4 or len(ins.dsts) != 1:
        return "tex writes a .v4 vector (a predicate result is not supported)"
    if len(ins.srcs) > 1 and "level" not in ins.mods and "grad" not in ins.mods:
        return "depth compare and offset operands are not supported"
    _, reason = _object_operand(ins, ins.srcs[0])
    return reason


def check_txq(ins):
    if not any(m in QUERIES for m in ins.mods):
        return f"txq queries {', '.join(QUERIES)}"
    if not ins.srcs or not isinstance(getattr(ins.srcs[0], "base", None), Reg):
        return "txq on a texture reference is not supported: query a texture object"
    return None


def check_surface(ins):
    if "b" not in ins.mods or not any(m in GEOMETRIES for m in ins.mods):
        return "suld.b/sust.b on 1d, 2d and 3d surfaces are supported (not .p, layered or cube ones)"
    if ins.type not in ("b8", "b16", "b32", "b64"):
        return "surface accesses are .b8, .b16, .b32 or .b64"
    operand = ins.srcs[0] if ins.opcode == "suld" else ins.dsts[0]
    _, reason = _object_operand(ins, operand)
    return reason


def _lane_values(c, operand, type_name, pick):
    return pick(f"fit({c.typed(operand, type_name)}, n)")


@emitted("tex", "tld4", family="textures", kind=MEMORY, pipe="lsu", check=check_texture)
def emit_tex(c, ins):
    handle, coords = ins.srcs[0].items
    result, coord_type = ins.types
    geometry = next(m for m in ins.mods if m in GEOMETRIES or m in LAYERED or m == CUBE)
    layered = geometry in LAYERED
    dims = LAYERED[geometry] if layered else 3 if geometry == CUBE else GEOMETRIES[geometry]
    site = c.site(ins)
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)
    handles = _lane_values(c, handle, "u64", pick)
    items = coords.items[1:] if layered else coords.items
    xs = ", ".join(_lane_values(c, item, coord_type, pick) for item in items[:dims])
    layer = _lane_values(c, coords.items[0], "u32", pick) if layered else "None"
    vals = c.fresh("texels")
    if ins.opcode == "tld4":
        channel = "rgba".index(next(m for m in ins.mods if m in ("r", "g", "b", "a")))
        c.emit(f"{vals} = textures.gather4(ctx, {site}, {sel_idx}, {handles}, [{xs}], {channel})")
    elif geometry == CUBE:
        c.emit(f"{vals} = textures.fetch_cube(ctx, {site}, {sel_idx}, {handles}, [{xs}])")
    else:
        c.emit(f"{vals} = textures.fetch(ctx, {site}, {sel_idx}, {handles}, [{xs}], {coord_type == 's32'}, {layer})")
    for k, item in enumerate(ins.dsts[0].items):
        c.write_selected(item, result, f"{vals}[:, {k}].view({RESULT_DTYPES[result]})", sel)
    return False


@emitted("txq", family="textures", kind=MEMORY, pipe="lsu", check=check_txq)
def emit_txq(c, ins):
    query = next(m for m in ins.mods if m in QUERIES)
    site = c.site(ins)
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)
    handles = _lane_values(c, ins.srcs[0].base, "u64", pick)
    c.write_selected(ins.dsts[0], "b32", f"textures.query(ctx, {site}, {sel_idx}, {handles}, {query!r})", sel)
    return False


@emitted("suld", "sust", family="textures", kind=MEMORY, pipe="lsu", check=check_surface)
def emit_surface(c, ins):
    load = ins.opcode == "suld"
    handle, coords = (ins.srcs[0] if load else ins.dsts[0]).items
    dims = GEOMETRIES[next(m for m in ins.mods if m in GEOMETRIES)]
    boundary = next((m for m in ins.mods if m in BOUNDARY), "trap")
    site = c.site(ins)
    sel_idx, sel = c.selected()
    pick = (lambda e: f"{e}[{sel}]") if sel else (lambda e: e)
    handles = _lane_values(c, handle, "u64", pick)
    xs = ", ".join(_lane_values(c, item, "s32", pick) for item in coords.items[:dims])
    t = ins.type
    dtype = f"np.uint{int(t[1:])}"
    items = (ins.dsts[0] if load else ins.srcs[0])
    items = items.items if isinstance(items, Vec) else (items,)
    if load:
        vals = c.fresh("surface")
        c.emit(f"{vals} = textures.surface_load(ctx, {site}, {sel_idx}, {handles}, [{xs}], {dtype}, "
               f"{len(items)}, {boundary!r})")
        for k, item in enumerate(items):
            c.write_selected(item, t, f"{vals}[{k}]", sel)
        return False
    values = ", ".join("None" if isinstance(item, Sink) else _lane_values(c, item, t, pick) for item in items)
    c.emit(f"textures.surface_store(ctx, {site}, {sel_idx}, {handles}, [{xs}], {dtype}, [{values}], {boundary!r})")
    return False


# ------------------------------------------------------------ runtime

def _by_handle(ctx, site, idx, handles, surface: bool):
    """Yield (lanes, descriptor) for each distinct handle the lanes use."""
    handles = np.asarray(handles, np.uint64)
    if len(handles) and (handles == handles[0]).all():       # most often one object for every lane
        yield np.arange(len(handles)), objects.descriptor(ctx, site, idx[0], int(handles[0]), surface)
        return
    for handle in np.unique(handles):
        lanes = np.flatnonzero(handles == handle)
        yield lanes, objects.descriptor(ctx, site, idx[lanes[0]], int(handle), surface)


def _sizes(record, dims):
    return [int(record["width"]), int(record["height"]), int(record["depth"])][:dims]


def fetch(ctx, site, idx, handles, coords, integer: bool, layers=None) -> np.ndarray:
    """tex: (lanes, 4) result bits; layers: each lane's layer of a layered texture (tex.a1d/a2d)."""
    out = np.zeros((len(idx), 4), np.uint32)
    for lanes, record in _by_handle(ctx, site, idx, handles, False):
        layer = None if layers is None else _layer(record, np.asarray(layers)[lanes])
        out[lanes] = _fetch_one(ctx, site, idx[lanes], record, [np.asarray(x)[lanes] for x in coords], integer,
                                layer)
    return out


def fetch_cube(ctx, site, idx, handles, direction) -> np.ndarray:
    """tex.cube: (lanes, 4) result bits of the face each direction picks (rules.cube_face), fetched as
    that 2D layer with normalized coordinates, its indices clamped."""
    out = np.zeros((len(idx), 4), np.uint32)
    face, u, v = rules.cube_face(*direction)
    for lanes, record in _by_handle(ctx, site, idx, handles, False):
        out[lanes] = _fetch_one(ctx, site, idx[lanes], record, [u[lanes], v[lanes]], False, face[lanes], cube=True)
    return out


def _layer(record, layers) -> np.ndarray:
    """The layer a fetch reads: its index clamped to the array's layers (a fetch of a layered texture
    never filters across layers)."""
    return np.minimum(np.asarray(layers, np.int64), int(record["depth"]) - 1)


def _fetch_one(ctx, site, idx, record, coords, integer, layer=None, cube=False):
    dims = len(coords)
    sizes = _sizes(record, dims)
    normalized = cube or bool(record["normalized"]) and not integer
    modes = [rules.CLAMP] * dims if cube else [rules.effective_mode(int(m), normalized)
                                               for m in record["address_modes"][:dims]]
    if integer and int(record["resource"]) == objects.LINEAR:
        modes = [rules.BORDER] * dims                  # tex1Dfetch past the end reads zero
    if integer or int(record["filter"]) == rules.POINT:
        corners = [([np.asarray(x, np.int64) if integer else
                     rules.point_index(rules.texel_coordinate(x, size, normalized))], [None])
                   for x, size in zip(coords, sizes)]
    else:
        corners = []
        for x, size, mode in zip(coords, sizes, modes):
            low, weight = rules.linear_taps(rules.filtered_coordinate(rules.texel_coordinate(x, size, normalized),
                                                                      size, mode))
            corners.append(([low, low + 1], [(1 << rules.FRACTION_BITS) - weight, weight]))
    channels = int(record["channels"])
    total = None
    footprint = None
    if corners[0][1][0] is not None and dims == 1 and modes[0] == rules.BORDER and layer is None:
        low_w, high_w, border_w = rules.one_d_border_taps(corners[0][1][1])
        footprint = np.stack([low_w, high_w])
        total = (border_w / (1 << rules.FRACTION_BITS)) * \
            np.broadcast_to(objects.border_value(record, channels).astype(np.float64), (len(idx), channels))
    elif corners[0][1][0] is not None:
        footprint = rules.footprint_weights([weights[1] for _, weights in corners])
    for pick in np.ndindex(*[len(indices) for indices, _ in corners]):
        value, weight = _texels(ctx, site, idx, record, [corners[a][0][k] for a, k in enumerate(pick)],
                                sizes, modes, channels, layer)
        if footprint is None:
            return objects.as_bits(record, value)
        w = footprint[pick] / float(1 << rules.FRACTION_BITS)
        term = w[:, None] * value.astype(np.float64)
        total = term if total is None else total + term
    total = rules.filtered(total, int(record["bits"]), int(record["kind"]), int(record["read_mode"]))
    return objects.as_bits(record, total.astype(np.float32))


def _texels(ctx, site, idx, record, indices, sizes, modes, channels, layer=None):
    """Converted texels at integer indices after the address modes (border texels: the border colour),
    in `layer` of a layered texture."""
    inside = np.ones(len(idx), bool)
    addressed = []
    for index, size, mode in zip(indices, sizes, modes):
        index, ok = rules.address(index, size, mode)
        addressed.append(index)
        inside &= ok
    while len(addressed) < 2:
        addressed.append(np.zeros(len(idx), np.int64))
    if len(addressed) < 3:                  # a layered texture's layer is its slice
        addressed.append(layer if layer is not None else np.zeros(len(idx), np.int64))
    values = objects.converted(record, objects.read_texels(ctx, site, idx, record, *addressed))
    if not inside.all():
        values = np.where(inside[:, None], values, objects.border_value(record, channels)[None, :])
    return values, inside


def gather4(ctx, site, idx, handles, coords, channel: int) -> np.ndarray:
    """tld4: one channel of the bilinear footprint's four texels, (lanes, 4) bits."""
    out = np.zeros((len(idx), 4), np.uint32)
    for lanes, record in _by_handle(ctx, site, idx, handles, False):
        sizes = _sizes(record, 2)
        normalized = bool(record["normalized"])
        modes = [rules.effective_mode(int(m), normalized) for m in record["address_modes"][:2]]
        lows = [rules.linear_taps(rules.texel_coordinate(np.asarray(x)[lanes], size, normalized))[0]
                for x, size in zip(coords, sizes)]
        i, j = lows
        channels = int(record["channels"])
        for k, (di, dj) in enumerate(((0, 1), (1, 1), (1, 0), (0, 0))):
            value, _ = _texels(ctx, site, idx[lanes], record, [i + di, j + dj], sizes, modes, channels)
            padded = np.concatenate([value, np.zeros((len(lanes), 4 - channels), value.dtype)], axis=1)
            out[lanes, k] = objects.as_bits(record, padded[:, channel:channel + 1])[:, 0]
    return out


def query(ctx, site, idx, handles, what: str) -> np.ndarray:
    """txq: one attribute of each lane's texture object, as 32-bit integers."""
    out = np.zeros(len(idx), np.uint32)
    for lanes, record in _by_handle(ctx, site, idx, handles, False):
        if what.startswith("addr_mode_"):
            value = int(record["address_modes"][int(what[-1])])
        elif what in ("num_mipmap_levels", "num_samples", "array_size"):
            value = 1 if what == "num_mipmap_levels" else 0
        elif what == "normalized_coords":
            value = int(record["normalized"])
        elif what == "filter_mode":
            value = int(record["filter"])
        elif what == "channel_data_type":
            value = int(record["kind"])
        elif what == "channel_order":
            value = int(record["channels"])
        else:
            value = int(record[what])
        out[lanes] = value
    return out


def _surface_addresses(ctx, site, idx, record, coords, nbytes, boundary):
    """(byte addresses, inside flags) of surface accesses of nbytes at (x bytes, y, z)."""
    dims = len(coords)
    limits = [int(record["width"]) * objects.texel_bytes(record), int(record["height"]), int(record["depth"])]
    inside = np.ones(len(idx), bool)
    fixed = []
    for axis, (x, limit) in enumerate(zip(coords, limits)):
        x = np.asarray(x, np.int64)
        top = limit - (nbytes if axis == 0 else 1)
        ok = (x >= 0) & (x <= top)
        if boundary == "trap" and not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            objects.fail(ctx, site, idx[bad], f"surface access at coordinate {int(x[bad])} of axis {axis} is "
                                              f"outside the surface (0..{top}; .trap)")
        fixed.append(np.clip(x, 0, top))
        inside &= ok
    while len(fixed) < 3:
        fixed.append(np.zeros(len(idx), np.int64))
    addrs = (np.uint64(int(record["address"])) + fixed[0].astype(np.uint64)
             + fixed[1].astype(np.uint64) * np.uint64(int(record["pitch"]))
             + fixed[2].astype(np.uint64) * np.uint64(int(record["slice"])))
    return addrs, inside if boundary == "zero" else np.ones(len(idx), bool)


def surface_load(ctx, site, idx, handles, coords, dtype, count, boundary) -> list:
    dtype = np.dtype(dtype)
    out = [np.zeros(len(idx), dtype) for _ in range(count)]
    for lanes, record in _by_handle(ctx, site, idx, handles, True):
        addrs, inside = _surface_addresses(ctx, site, idx[lanes], record, [np.asarray(x)[lanes] for x in coords],
                                           dtype.itemsize * count, boundary)
        ok, buf, off = ctx.memory.resolve(addrs, dtype.itemsize * count)
        if not ok.all():
            objects.fail(ctx, site, idx[lanes][int(np.flatnonzero(~ok)[0])], "surface memory was freed")
        raw = np.ascontiguousarray(buf[off[:, None] + np.arange(dtype.itemsize * count)]).view(dtype)
        for k in range(count):
            out[k][lanes] = np.where(inside, raw[:, k], 0)
    return out


def surface_store(ctx, site, idx, handles, coords, dtype, values, boundary) -> None:
    dtype = np.dtype(dtype)
    count = len(values)
    for lanes, record in _by_handle(ctx, site, idx, handles, True):
        addrs, inside = _surface_addresses(ctx, site, idx[lanes], record, [np.asarray(x)[lanes] for x in coords],
                                           dtype.itemsize * count, boundary)
        keep = np.flatnonzero(inside)
        ok, buf, off = ctx.memory.resolve(addrs[keep], dtype.itemsize * count)
        if not ok.all():
            objects.fail(ctx, site, idx[lanes][keep][int(np.flatnonzero(~ok)[0])], "surface memory was freed")
        for k, v in enumerate(values):
            if v is None:
                continue
            data = np.broadcast_to(np.asarray(v).astype(dtype), (len(idx),))[lanes][keep]
            at = off + k * dtype.itemsize
            for lane in range(len(keep)):                   # in lane order: the last lane's store wins
                buf[at[lane]:at[lane] + dtype.itemsize] = data[lane:lane + 1].view(np.uint8)
        if buf is ctx.memory.buffer:
            for b in range(dtype.itemsize * count):
                ctx.memory.initialized[off + b] = True
        ctx.writes += 1
