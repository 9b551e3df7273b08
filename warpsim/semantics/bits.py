"""Bit operations both ISAs name alike: the three-input truth table, byte permute, funnel shift.

PTX's lop3 and SASS's LOP3/PLOP3 evaluate one truth table; PTX's prmt and
SASS's PRMT pick bytes of one 64-bit pool; PTX's shf and SASS's SHF shift one
64-bit pair. The decoders read modifiers (PTX's .l/.r/.clamp/.wrap, SASS's
.L/.R/.HI/.W and type) and call these on raw unsigned bits.
"""

from __future__ import annotations

import numpy as np

_U32, _U64 = np.uint32, np.uint64

# prmt's special modes read only the selector's low two bits and stand for fixed
# generic selectors (four nibbles, byte 3's first), per the PTX manual's prmt table.
PRMT_MODE_SELECTORS = {
    "f4e": (0x3210, 0x4321, 0x5432, 0x6543),    # forward 4 extract
    "b4e": (0x5670, 0x6701, 0x7012, 0x0123),    # backward 4 extract
    "rc8": (0x0000, 0x1111, 0x2222, 0x3333),    # replicate 8
    "ecl": (0x3210, 0x3211, 0x3222, 0x3333),    # edge clamp left
    "ecr": (0x0000, 0x1110, 0x2210, 0x3210),    # edge clamp right
    "rc16": (0x1010, 0x3232, 0x1010, 0x3232),   # replicate 16
}


def lut3(lut, a, b, c) -> np.ndarray:
    """Any three-input Boolean function, bitwise, given as its 8-bit truth table.

    Bit k of `lut` is the function at a = k>>2 & 1, b = k>>1 & 1, c = k & 1 (what
    evaluating it on 0xF0, 0xCC, 0xAA gives), so the result is the OR of the
    minterms whose bit is set. Works on unsigned words and on bool arrays
    (PLOP3's predicates); `lut` is one int or one per lane.
    """
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    lut = np.asarray(lut)
    out = np.zeros(np.broadcast(a, b, c, lut).shape, dtype=np.result_type(a, b, c))
    for k in range(8):
        minterm = (a if k & 4 else ~a) & (b if k & 2 else ~b) & (c if k & 1 else ~c)
        if lut.ndim == 0:
            if int(lut) >> k & 1:
                out = out | minterm
        else:
            out = out | np.where((lut.astype(_U32) >> _U32(k)) & _U32(1), minterm, out.dtype.type(0))
    return out


def prmt_mode_selectors(mode: str, selector) -> np.ndarray:
    """The generic selectors a prmt mode stands for, chosen by the selector's low two bits."""
    table = np.array(PRMT_MODE_SELECTORS[mode], dtype=_U32)
    return table[np.asarray(selector, dtype=_U32) & _U32(3)]


def permute_bytes(low, high, selectors) -> np.ndarray:
    """Four bytes of the pool {high, low} (bytes 0-3 from low, 4-7 from high), as uint32.

    Nibble i of the selector picks result byte i; a nibble with bit 3 set
    replicates that byte's sign bit instead of copying the byte.
    """
    pool = (np.asarray(high).astype(_U64) << _U64(32)) | np.asarray(low).astype(_U64)
    selectors = np.asarray(selectors).astype(_U32)
    result = np.zeros(np.broadcast(pool, selectors).shape, dtype=_U32)
    for position in range(4):
        selector = (selectors >> _U32(4 * position)) & _U32(0xF)
        byte_shift = ((selector & _U32(7)) * _U32(8)).astype(_U64)
        byte = ((pool >> byte_shift) & _U64(0xFF)).astype(_U32)
        sign_fill = np.where(byte & _U32(0x80), _U32(0xFF), _U32(0))
        byte = np.where(selector & _U32(8), sign_fill, byte)
        result |= byte << _U32(8 * position)
    return result


def funnel_shift(low, high, amount, left: bool, signed: bool = False) -> np.ndarray:
    """The 64-bit pair {high:low} shifted by `amount` (already clamped or wrapped), as uint64.

    A shift by 64 or more gives 0, or the sign for a signed right shift (NumPy
    leaves shifts past the width undefined, so those lanes are chosen apart).
    The callers take the word they name: PTX's shf.l the high word of a left
    shift and shf.r the low word of a right shift; SASS's .HI the high word.
    """
    amount = np.asarray(amount).astype(_U64)
    pair = (np.asarray(high).astype(_U64) << _U64(32)) | np.asarray(low).astype(_U64)
    big = amount >= _U64(64)
    in_range = np.where(big, _U64(0), amount)
    if left:
        return np.where(big, _U64(0), pair << in_range)
    if signed:
        return (pair.astype(np.int64) >> np.where(big, _U64(63), amount).astype(np.int64)).astype(_U64)
    return np.where(big, _U64(0), pair >> in_range)
