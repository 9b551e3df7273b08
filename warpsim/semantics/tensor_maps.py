"""Tensor maps (TMA's CUtensorMap) in the GPU's 128-byte layout, and the boxes TMA copies through them.

On a GPU a CUtensorMap is 128 bytes the driver writes (cuTensorMapEncodeTiled)
or a kernel writes field by field (`tensormap.replace`, which ptxas lowers to
shared-memory stores of masked bits). warpsim's maps use that same layout, so
one map means the same box to the PTX run, to the SASS executor running
ptxas's lowering of `tensormap.replace`, and to the hardware. The layout of a
tiled map on sm_90 (32-bit little-endian words at byte offsets; every field as
ptxas 13 writes it for `tensormap.replace.tile`, a test compares the two):

| field (PTX `tensormap.replace`) | where | stored |
|---|---|---|
| global_address | bytes 0-7 | the address |
| rank | word 0x08 bits 4-6 | rank - 1 (the PTX value) |
| elemtype | word 0x08 bits 7-10, bit 16 | the PTX code; tf32 (11, 12) is f32 (7, 8) with bit 16 |
| interleave_layout | word 0x08 bits 11-12 | the PTX value |
| swizzle_mode | word 0x08 bits 13-14 | 0-3: none, 32B, 64B, 128B |
| fill_mode | word 0x08 bit 15 | 1: NaN outside the tensor |
| global_stride i | word 0x0c + 4i, and bits 4i..4i+3 of word 0x1c | bytes between elements of dimension i + 1, bits 4-35 and 36-39 |
| global_dim i | word 0x20 + 4i | elements - 1 |
| element_stride i | word 0x34 bits 3i..3i+2 | stride - 1 |
| box_dim i | byte 0x37 + i | elements - 1 |

Writing global_address clears bit 21 of word 0x08 and writing swizzle_mode bit
22, as ptxas's lowering does. The driver's cuTensorMapEncodeTiled writes the same
fields (validation/tensor_maps: its bytes on an H200) and three more, which
`tensormap.replace` leaves alone: its L2 promotion in bits 17-18 of word 0x08,
the box's bytes in word 0x40 (0 with element strides other than 1), and the
shared-memory alignment the swizzle needs in word 0x48 (16, 256, 512, 1024). decode() reads a map into the DECODED record that
both executors' TMA copies take their addresses from (box_addresses).
"""

from __future__ import annotations

import numpy as np

from .wgmma import swizzle

DECODED = np.dtype([("address", "<u8"), ("rank", "u1"), ("element_bytes", "u1"), ("swizzle", "u1"),
                    ("oob_nan", "u1"), ("float", "u1"), ("interleave", "u1"), ("dims", "<u8", 5),
                    ("strides", "<u8", 5), ("box", "<u4", 5), ("element_strides", "<u4", 5)])
SWIZZLES = {"none": 0, "32B": 3, "64B": 2, "128B": 1}        # as wgmma descriptors number them
SWIZZLE_BYTES = {0: 0, 3: 32, 2: 64, 1: 128}
SWIZZLE_MODES = ("none", "32B", "64B", "128B")               # the map's swizzle_mode 0-3

# elemtype code -> (bytes, is a float): u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz
ELEMENT_TYPES = {0: (1, False), 1: (2, False), 2: (4, False), 3: (4, False), 4: (8, False), 5: (8, False),
                 6: (2, True), 7: (4, True), 8: (4, True), 9: (8, True), 10: (2, True), 11: (4, True),
                 12: (4, True)}
TF32_BIT = 1 << 16
# CUtensorMapDataType (cuda.h), the driver's numbering -> the map's elemtype code (PTX's)
DRIVER_DATA_TYPES = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 9, 9: 10, 10: 8, 11: 11, 12: 12}
L2_PROMOTION = (0x08, 17, 2)            # the driver's CUtensorMapL2promotion: word, first bit, width
BOX_BYTES_WORD, ALIGNMENT_WORD = 0x40, 0x48
SWIZZLE_ALIGNMENT = {"none": 16, "32B": 256, "64B": 512, "128B": 1024}
RANGES = {"rank": (0, 4), "elemtype": (0, 12), "swizzle_mode": (0, 3), "fill_mode": (0, 1),
          "interleave_layout": (0, 2), "box_dim": (1, 256), "element_stride": (1, 8)}

# field -> [(byte offset, ordinal step in bytes, shift, ordinal shift step, width, value shift)]:
# the bits of the stored value, from bit `value shift` up, go to `width` bits from bit
# 8 * (offset + ordinal * step) + shift + ordinal * shift step of the map (no field crosses a word)
LAYOUT = {
    "rank": [(0x08, 0, 4, 0, 3, 0)],
    "elemtype": [(0x08, 0, 7, 0, 4, 0)],
    "interleave_layout": [(0x08, 0, 11, 0, 2, 0)],
    "swizzle_mode": [(0x08, 0, 13, 0, 2, 0)],
    "fill_mode": [(0x08, 0, 15, 0, 1, 0)],
    "global_stride": [(0x0C, 4, 0, 0, 32, 4), (0x1C, 0, 0, 4, 4, 36)],
    "global_dim": [(0x20, 4, 0, 0, 32, 0)],
    "element_stride": [(0x34, 0, 0, 3, 3, 0)],
    "box_dim": [(0x37, 1, 0, 0, 8, 0)],
}
ORDINALS = {"box_dim": 5, "global_dim": 5, "global_stride": 4, "element_stride": 5}
FIELDS = ("global_address", *LAYOUT)
STORED_MINUS_ONE = ("global_dim", "element_stride", "box_dim")
CLEARS = {"global_address": 1 << 21, "swizzle_mode": 1 << 22}   # word 0x08 bits the field's store clears


def _words(raw) -> np.ndarray:
    return np.frombuffer(bytes(raw), dtype="<u4").copy()


def replace(raw, field: str, ordinal: int, value: int) -> bytes:
    """The 128 bytes of a map with one field set as `tensormap.replace.tile.FIELD` sets it (value as
    PTX gives it: rank - 1, box and dimension sizes in elements, strides in bytes)."""
    words = _words(raw)
    value = int(value)
    if field in STORED_MINUS_ONE:
        value -= 1
    if field == "global_address":
        words[0], words[1] = value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF
    else:
        if field == "elemtype":
            words[2] = int(words[2]) & ~TF32_BIT | (TF32_BIT if value in (11, 12) else 0)
            value = {11: 7, 12: 8}.get(value, value)
        for word, bit, width, value_shift in _places(field, ordinal):
            mask = ((1 << width) - 1) << bit
            words[word] = (int(words[word]) & ~mask | ((value >> value_shift) << bit) & mask) & 0xFFFFFFFF
    if field in CLEARS:
        words[2] = int(words[2]) & ~CLEARS[field]
    return words.tobytes()


def driver_fields(raw, l2_promotion: int, box_bytes: int, swizzle_mode: str) -> bytes:
    """The map with the words only cuTensorMapEncodeTiled writes (see the module docstring)."""
    words = _words(raw)
    word, bit, width = L2_PROMOTION
    mask = ((1 << width) - 1) << bit
    words[word // 4] = int(words[word // 4]) & ~mask | (int(l2_promotion) << bit) & mask
    words[BOX_BYTES_WORD // 4] = box_bytes
    words[ALIGNMENT_WORD // 4] = SWIZZLE_ALIGNMENT[swizzle_mode]
    return words.tobytes()


def _places(field: str, ordinal: int):
    """(word index, first bit in the word, width, value shift) of each part of a field (LAYOUT)."""
    for offset, step, shift, shift_step, width, value_shift in LAYOUT[field]:
        bit = 8 * (offset + ordinal * step) + shift + ordinal * shift_step
        yield bit // 32, bit % 32, width, value_shift


def _field(words, field: str, ordinal: int = 0) -> int:
    value = 0
    for word, bit, width, value_shift in _places(field, ordinal):
        value |= ((int(words[word]) >> bit) & ((1 << width) - 1)) << value_shift
    return value


def decode(raw) -> np.void:
    """The DECODED record of a map's 128 bytes (see the module docstring for the layout)."""
    words = _words(raw)
    record = np.zeros((), dtype=DECODED)
    rank = _field(words, "rank") + 1
    code = _field(words, "elemtype")
    size, is_float = ELEMENT_TYPES.get(code, (0, False))
    record["address"] = int(words[0]) | int(words[1]) << 32
    record["rank"], record["element_bytes"], record["float"] = rank, size, is_float
    record["swizzle"] = SWIZZLES[SWIZZLE_MODES[_field(words, "swizzle_mode")]]
    record["oob_nan"] = _field(words, "fill_mode")
    record["interleave"] = _field(words, "interleave_layout")
    for d in range(rank):
        record["dims"][d] = _field(words, "global_dim", d) + 1
        record["box"][d] = _field(words, "box_dim", d) + 1
        record["element_strides"][d] = _field(words, "element_stride", d) + 1
        record["strides"][d] = size if d == 0 else _field(words, "global_stride", d - 1)
    return record[()]


def problem(record) -> str | None:
    """Why a decoded map cannot be a tiled tensor map TMA copies through, or None."""
    if not record["address"]:
        return "its global address is 0 (128 bytes that no cuTensorMapEncodeTiled or tensormap.replace wrote?)"
    if record["address"] % 16:
        return f"its global address 0x{int(record['address']):x} is not 16-byte aligned"
    if record["interleave"]:
        return "interleaved tensor maps are not simulated"
    if any(int(e) != 1 for e in record["element_strides"][:int(record["rank"])]):
        return "element strides other than 1 are not simulated"
    return None


def out_of_bounds_fill(record) -> int:
    """The bits an element outside the tensor reads as: 0, or a NaN when the map asks for it."""
    if record["oob_nan"] and record["float"]:
        return {2: 0x7FFF, 4: 0x7FFFFFFF, 8: 0x7FFF_FFFF_FFFF_FFFF, 1: 0xFF}[int(record["element_bytes"])]
    return 0


def box_addresses(record, coords, smem: int):
    """(global byte addresses, in-bounds flags, shared byte addresses) of a box's elements, row-major."""
    rank = int(record["rank"])
    esize = int(record["element_bytes"])
    box = [int(b) for b in record["box"][:rank]]
    dims = [int(d) for d in record["dims"][:rank]]
    strides = [int(s) for s in record["strides"][:rank]]
    grids = np.meshgrid(*[np.arange(b) for b in reversed(box)], indexing="ij")
    inside = np.ones(grids[0].shape, dtype=bool)
    offset = np.zeros(grids[0].shape, dtype=np.int64)
    for d in range(rank):
        at = grids[rank - 1 - d] + int(coords[d])
        inside &= (at >= 0) & (at < dims[d])
        offset += np.clip(at, 0, dims[d] - 1) * strides[d]
    shared = smem + np.arange(inside.size, dtype=np.int64) * esize
    mode = int(record["swizzle"])
    return (int(record["address"]) + offset.ravel(), inside.ravel(),
            swizzle(shared, mode) if mode else shared)
