"""Tensor maps (TMA's CUtensorMap) in warpsim's 128-byte encoding, and the boxes TMA copies through them.

On a GPU a CUtensorMap is 128 opaque bytes the driver writes
(cuTensorMapEncodeTiled); warpsim writes its own (machine.isa.bulk_copy.encode_tiled,
machine.isa.tensor_maps for maps a kernel writes), tagged "WSTMAP01". Both
executors read a map's fields and a box's addresses from here, so
cp.async.bulk.tensor and UTMALDG/UTMASTG move the same bytes.
"""

from __future__ import annotations

import numpy as np

from .wgmma import swizzle

MAGIC = int.from_bytes(b"WSTMAP01", "little")
TENSOR_MAP = np.dtype([("magic", "<u8"), ("address", "<u8"), ("rank", "u1"), ("element_bytes", "u1"),
                       ("swizzle", "u1"), ("oob_nan", "u1"), ("float", "u1"), ("reserved", "u1", 3),
                       ("dims", "<u4", 5), ("reserved2", "<u4"), ("strides", "<u8", 5),
                       ("box", "<u4", 5), ("element_strides", "<u4", 5)])
assert TENSOR_MAP.itemsize == 128
SWIZZLES = {"none": 0, "32B": 3, "64B": 2, "128B": 1}        # as wgmma descriptors number them
SWIZZLE_BYTES = {0: 0, 3: 32, 2: 64, 1: 128}


def decode(raw: bytes):
    """The record of a tensor map's 128 bytes, or None when warpsim did not write them."""
    record = np.frombuffer(bytes(raw), dtype=TENSOR_MAP)[0]
    return record if int(record["magic"]) == MAGIC else None


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
