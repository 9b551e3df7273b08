"""The cuTensorMapEncodeTiled cases encode_on_gpu.cu runs on the H200 (written to cases.txt) and the
arguments each stands for, in cuda.h's enums.

    python validation/tensor_maps/cases.py > validation/tensor_maps/cases.txt
"""
from __future__ import annotations

import numpy as np

# CUtensorMapDataType (cuda.h) -> (bytes, is a float)
DTYPES = {0: (1, False), 1: (2, False), 2: (4, False), 3: (4, False), 4: (8, False), 5: (8, False), 6: (2, True),
          7: (4, True), 8: (8, True), 9: (2, True), 10: (4, True), 11: (4, True), 12: (4, True)}
SWIZZLE_NAMES = {0: "none", 1: "32B", 2: "64B", 3: "128B"}      # CUtensorMapSwizzle


def cases():
    """(dtype, rank, offset, dims[5], strides[4], box[5], element_strides[5], interleave, swizzle, l2, oob)."""
    rng = np.random.default_rng(20261202)
    out = []
    for k in range(40):
        dtype = k % 13
        esize = DTYPES[dtype][0]
        rank = 1 + k % 5
        swizzle = (k // 5) % 4
        row = {0: 16 * int(rng.integers(1, 9)), 1: 32, 2: 64, 3: 128}[swizzle]
        box = [row // esize] + [int(rng.integers(1, 33)) for _ in range(4)]
        dims = [int(rng.integers(box[0], 5000))] + [int(rng.integers(1, 300)) for _ in range(4)]
        strides, s = [], dims[0] * esize
        for d in range(1, 5):
            s = (s + 15) // 16 * 16 + 16 * int(rng.integers(0, 4))
            strides.append(s)
            s *= dims[d]
        oob = int(k % 3 == 0 and DTYPES[dtype][1])
        l2 = k % 4
        estr = [1] * 5 if k % 7 else [1] + [int(rng.integers(1, 9)) for _ in range(4)]
        offset = 16 * int(rng.integers(0, 1 << 20))
        out.append((dtype, rank, offset, dims, strides, box, estr, 0, swizzle, l2, oob))
    good = (6, 2, 0, [64, 64, 1, 1, 1], [128, 0, 0, 0], [64, 64, 1, 1, 1], [1] * 5, 0, 3, 0, 0)
    refused = [dict(offset=8), dict(box=[64, 257, 1, 1, 1]), dict(box=[0, 64, 1, 1, 1]),
               dict(strides=[136, 0, 0, 0]), dict(dtype=1, oob=1), dict(box=[4, 64, 1, 1, 1], swizzle=0),
               dict(box=[128, 64, 1, 1, 1]), dict(element_strides=[1, 9, 1, 1, 1]), dict(rank=6)]
    names = ("dtype", "rank", "offset", "dims", "strides", "box", "element_strides", "interleave", "swizzle", "l2",
             "oob")
    # boxes of 128 KB to 228 KB (4-byte elements, 16 x N x 16): where the driver's limit on a box's bytes lies
    box_bytes = [dict(dtype=7, rank=3, dims=[64, 256, 64, 1, 1], strides=[256, 65536, 0, 0], box=[16, n, 16, 1, 1],
                      swizzle=0) for n in (128, 129, 192, 227, 228, 255)]
    for change in refused + box_bytes:
        row = dict(zip(names, good))
        row.update(change)
        out.append(tuple(row[n] for n in names))
    return out


def kind(case: int) -> str:
    """'random' (drawn above), 'refused' (made to be refused) or 'box_bytes' (the box size limit)."""
    return "random" if case < 40 else "refused" if case < 49 else "box_bytes"


if __name__ == "__main__":
    for dtype, rank, offset, dims, strides, box, estr, inter, sw, l2, oob in cases():
        print(dtype, rank, offset, *dims, *strides, *box, *estr, inter, sw, l2, oob)
