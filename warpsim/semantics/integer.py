"""Integer and bit-field operations both ISAs name alike, on raw unsigned bits.

PTX's popc/clz/bfind/brev/bmsk/szext and SASS's POPC/FLO/BREV/BMSK/SGXT count,
find, reverse, mask and extend bits by one rule each, which an H200 confirmed
for the PTX forms (validation/conformance, validation/integer_semantics) and
which ptxas relies on when it turns one into the other (bmsk.clamp is BMSK,
bmsk.wrap BMSK.W, szext.wrap.u32 SGXT.W.U32, bfind.shiftamt.s32 FLO.SH).
The width of an operation is its operands' dtype (uint32 or uint64; the
shift helpers take any integer dtype, signed ones shifting arithmetically).

Where PTX and NumPy disagree, the difference is spelled out: a shift by the
width or more gives 0 (or the sign) where NumPy's is undefined, and counts and
masks read their amounts through the clamp or wrap rule the instruction names.
"""

from __future__ import annotations

import numpy as np

_U32, _U64 = np.uint32, np.uint64


# ------------------------------------------------------------------ views and shifts

def as_unsigned(values) -> np.ndarray:
    """The same bits read as an unsigned integer of the same width."""
    values = np.asarray(values)
    return values.view(np.dtype(f"uint{values.dtype.itemsize * 8}"))


def as_signed(values) -> np.ndarray:
    """The same bits read as a two's complement integer of the same width."""
    values = np.asarray(values)
    return values.view(np.dtype(f"int{values.dtype.itemsize * 8}"))


def bit_width(values) -> int:
    return np.asarray(values).dtype.itemsize * 8


def shift_left(values, amount):
    """values << amount; 0 once amount >= width (NumPy: undefined past the width)."""
    values, amount = np.asarray(values), np.asarray(amount)
    in_range = amount < bit_width(values)
    in_range_amount = np.where(in_range, amount, 0).astype(values.dtype)
    return np.where(in_range, values << in_range_amount, values.dtype.type(0))


def shift_right(values, amount):
    """values >> amount: arithmetic for signed dtypes, logical otherwise.

    Past the width PTX gives 0 (logical) or the replicated sign (arithmetic);
    NumPy's shift is undefined there, so the amount is clamped first.
    """
    values, amount = np.asarray(values), np.asarray(amount)
    width = bit_width(values)
    if values.dtype.kind == "i":
        return values >> np.minimum(amount, width - 1).astype(values.dtype)
    in_range = amount < width
    in_range_amount = np.where(in_range, amount, 0).astype(values.dtype)
    return np.where(in_range, values >> in_range_amount, values.dtype.type(0))


def low_mask(count, dtype) -> np.ndarray:
    """Unsigned `dtype` values with the low `count` bits set, count in 0..width."""
    dtype = np.dtype(dtype)
    width = dtype.itemsize * 8
    all_ones = np.asarray(~dtype.type(0))
    return shift_right(all_ones, width - np.asarray(count, dtype=np.int64))


# ------------------------------------------------------------------ min, max

def min_max(words, take_min, signed: bool, relu: bool = False) -> np.ndarray:
    """min (where take_min) or max of two or more words, as unsigned bits of their width.

    PTX's min/max and SASS's IMNMX/VIMNMX/VIMNMX3 (whose predicate picks min)
    compare the words as two's complement when `signed`; .relu/.RELU then
    clamps a negative result at 0.
    """
    values = [as_signed(w) if signed else as_unsigned(w) for w in words]
    low = high = values[0]
    for value in values[1:]:
        low, high = np.minimum(low, value), np.maximum(high, value)
    result = np.asarray(np.where(take_min, low, high))
    if relu:
        result = np.maximum(result, result.dtype.type(0))
    return as_unsigned(result)


# ------------------------------------------------------------------ bit counts

def popcount(bits) -> np.ndarray:
    """Set bits per element, as uint32 (SWAR; np.bitwise_count needs NumPy 2)."""
    x = as_unsigned(bits).astype(_U64)
    x = x - ((x >> _U64(1)) & _U64(0x5555555555555555))
    x = (x & _U64(0x3333333333333333)) + ((x >> _U64(2)) & _U64(0x3333333333333333))
    x = (x + (x >> _U64(4))) & _U64(0x0F0F0F0F0F0F0F0F)
    with np.errstate(over="ignore"):
        return ((x * _U64(0x0101010101010101)) >> _U64(56)).astype(_U32)


def highest_set_bit(bits) -> np.ndarray:
    """Index of the most significant 1 bit (int64), -1 where the value is 0."""
    x = as_unsigned(bits).astype(_U64)
    index = np.zeros(x.shape, dtype=np.int64)
    remaining = x
    for step in (32, 16, 8, 4, 2, 1):                # binary search, exact for 64 bits
        upper = remaining >> _U64(step)
        found = upper != 0
        index = index + np.where(found, step, 0)
        remaining = np.where(found, upper, remaining)
    return np.where(x == 0, -1, index)


def find_leading_bit(bits, signed: bool, shift_amount: bool = False) -> np.ndarray:
    """bfind / FLO: position of the most significant non-sign bit, 0xffffffff if none (uint32).

    A negative signed value is complemented first, so the search finds its
    highest 0. `shift_amount` (bfind.shiftamt, FLO.SH) gives width-1-position
    instead, the left shift that brings that bit to the top.
    """
    x = as_unsigned(bits)
    width = x.dtype.itemsize * 8
    if signed:
        x = np.where(x >> x.dtype.type(width - 1), ~x, x)
    position = highest_set_bit(x)
    if shift_amount:
        position = np.where(position < 0, position, width - 1 - position)
    return position.astype(_U32)                     # -1 becomes 0xffffffff


def count_leading_zeros(bits) -> np.ndarray:
    """Zero bits above the highest 1, as uint32 (the width for 0)."""
    return (bit_width(bits) - 1 - highest_set_bit(bits)).astype(_U32)


_REVERSED_BYTE = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=_U64)


def reverse_bits(bits) -> np.ndarray:
    """The bit order reversed: reversed bytes, each bit-reversed through a table."""
    unsigned = as_unsigned(bits)
    width = unsigned.dtype.itemsize * 8
    source = unsigned.astype(_U64)
    result = np.zeros(source.shape, dtype=_U64)
    for i in range(width // 8):
        byte = (source >> _U64(8 * i)) & _U64(0xFF)
        result |= _REVERSED_BYTE[byte] << _U64(width - 8 - 8 * i)
    return result.astype(unsigned.dtype)


# ------------------------------------------------------------------ masks and extension

def bit_mask(start, count, clamp: bool) -> np.ndarray:
    """bmsk / BMSK: a uint32 mask of `count` bits from bit `start`.

    Both are read mod 32; a mask that would pass bit 31 stops there and count 0
    gives 0. Clamping (bmsk.clamp, BMSK) rather than wrapping (.wrap, BMSK.W)
    gives 0 for start >= 32 and runs to the msb for count >= 32.
    """
    start, count = np.asarray(start, dtype=_U32), np.asarray(count, dtype=_U32)
    first, width = (start & _U32(31)).astype(np.int64), (count & _U32(31)).astype(np.int64)
    above_start = shift_left(np.full(first.shape, 0xFFFFFFFF, dtype=_U32), first)
    to_msb = first + width >= 32
    if clamp:
        above_start = np.where(start >= 32, _U32(0), above_start)
        to_msb = to_msb | (start >= 32) | (count >= 32)
    above_end = shift_left(np.full(first.shape, 0xFFFFFFFF, dtype=_U32), first + width)
    above_end = np.where(to_msb, _U32(0), np.where(width == 0, _U32(0xFFFFFFFF), above_end))
    return above_start & ~above_end


def extend_low_bits(bits, count, signed: bool, clamp: bool) -> np.ndarray:
    """szext / SGXT: the low N bits of a 32-bit word, sign- or zero-extended, as uint32.

    N is `count` mod 32 when wrapping (.wrap, SGXT.W: 32 gives 0, and so a 0
    result) and min(count, 32) when clamping (.clamp, SGXT: the whole word).
    """
    unsigned = np.asarray(bits, dtype=_U32)
    count = np.asarray(count, dtype=_U32).astype(np.int64)
    width = np.minimum(count, 32) if clamp else count & 31
    keep = low_mask(width, _U32)
    field = unsigned & keep
    if signed:
        sign = (shift_right(unsigned, np.maximum(width - 1, 0)) & _U32(1)) != 0
        field = np.where(sign & (width > 0), field | ~keep, field)
    return np.asarray(field, dtype=_U32)
