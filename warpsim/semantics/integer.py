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
    if amount.ndim == 0 and values.ndim and amount.dtype.kind in "iu" \
            and 0 <= (k := int(amount)) < values.dtype.itemsize * 8:
        return values << values.dtype.type(k)           # one amount in range (shl by an immediate)
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
    if amount.ndim == 0 and values.ndim and amount.dtype.kind in "iu" and 0 <= (k := int(amount)) < width:
        return values >> values.dtype.type(k)           # one amount in range (shr by an immediate)
    if values.dtype.kind == "i":
        return values >> np.minimum(amount, width - 1).astype(values.dtype)
    in_range = amount < width
    in_range_amount = np.where(in_range, amount, 0).astype(values.dtype)
    return np.where(in_range, values >> in_range_amount, values.dtype.type(0))


def shift_amount(amount, wrap: bool, limit: int = 32) -> np.ndarray:
    """A shift count as an instruction reads its unsigned 32-bit operand (uint32).

    Wrapping (shf.wrap, SHF.W, SHL.W) keeps it mod 32; otherwise the whole word
    is clamped at `limit`, the width shifted (shf.clamp, and SHF, SHL and SHR,
    which ptxas gives shl/shr by a register for every amount).
    """
    amount = np.asarray(amount).astype(_U32)
    return amount & _U32(31) if wrap else np.minimum(amount, _U32(limit))


def negate(values) -> np.ndarray:
    """-x modulo 2**width in the values' own dtype; -INT_MIN is INT_MIN, as on the GPU."""
    unsigned = as_unsigned(values)
    with np.errstate(over="ignore"):
        return (unsigned.dtype.type(0) - unsigned).view(np.asarray(values).dtype)


def absolute(words) -> np.ndarray:
    """|x| of two's complement words, as unsigned bits (|INT_MIN| wraps to INT_MIN's bits)."""
    unsigned = as_unsigned(words)
    return np.where(as_signed(unsigned) < 0, negate(unsigned), unsigned)


def low_mask(count, dtype) -> np.ndarray:
    """Unsigned `dtype` values with the low `count` bits set, count in 0..width."""
    dtype = np.dtype(dtype)
    width = dtype.itemsize * 8
    all_ones = np.asarray(~dtype.type(0))
    return shift_right(all_ones, width - np.asarray(count, dtype=np.int64))


# ------------------------------------------------------------------ sums with carries, products

def add_with_carry(terms, dtype) -> tuple:
    """The sum of unsigned terms modulo 2**width of `dtype`, and how often it carried out (uint32).

    One adder for PTX's add.cc/addc/mad.cc/madc and SASS's IADD3/IMAD/LEA with
    carry-out predicates: carry-in flags (bool or 0/1) are terms like any
    other, and a negated operand enters as its complement plus a term of 1.
    IADD3's three words and two carry-ins can carry twice (its two predicates).
    """
    dtype = np.dtype(dtype)
    if dtype.itemsize <= 4:                          # exact in 64 bits: the carries are the high bits
        width = dtype.itemsize * 8
        exact = np.zeros((), dtype=_U64)
        for term in terms:
            exact = exact + np.asarray(term).astype(_U64)
        return (exact & _U64((1 << width) - 1)).astype(dtype), (exact >> _U64(width)).astype(_U32)
    total = np.zeros((), dtype=dtype)
    carries = np.zeros((), dtype=_U32)
    with np.errstate(over="ignore"):
        for term in terms:
            partial = total + np.asarray(term).astype(dtype)
            carries = carries + (partial < total).astype(_U32)
            total = partial
    return total, carries


def wrapping_sum(terms, dtype):
    """add_with_carry's sum alone, for an instruction that reads no carry: unsigned terms added in
    `dtype`, which wraps modulo 2**width as the adder does (no wider copy, no carry bits); terms
    that are a constant zero (RZ, no carry-in, no +1 of a negated source) are skipped."""
    dtype = np.dtype(dtype)
    total = None
    with np.errstate(over="ignore"):
        for term in terms:
            term = np.asarray(term)
            if term.ndim == 0 and not term:
                continue
            term = term.astype(dtype, copy=False)
            total = term if total is None else total + term
    return dtype.type(0) if total is None else total


def subtract_with_carry(x, y, carry_in) -> tuple:
    """x - y - (1 - carry_in) as the adder computes it, x + ~y + carry_in, and its carry out.

    After sub.cc/subc.cc CC.CF (and IADD3's predicate for a - b) holds the
    adder's carry: 1 means no borrow. The manual calls CF a borrow for
    subtraction; a pure sub.cc/subc chain cannot tell the two apart, but a
    mixed one can (sub.cc 0-0 then addc 0+0 gives 1 on an H200).
    """
    x = as_unsigned(x)
    return add_with_carry([x, ~as_unsigned(y), carry_in], x.dtype)


def multiply_low(a, b) -> np.ndarray:
    """The low word of a*b, the same bits signed or not (NumPy's unsigned product wraps so)."""
    a, b = as_unsigned(a), as_unsigned(b)
    with np.errstate(over="ignore"):
        return np.asarray(a * b).astype(a.dtype)


def multiply_wide(a, b, signed: bool) -> np.ndarray:
    """The exact product of two words of up to 32 bits, as unsigned bits twice their width."""
    a, b = np.asarray(a), np.asarray(b)
    width = a.dtype.itemsize
    kind = "i" if signed else "u"       # (operands of that kind already need no view)
    if a.dtype.kind != kind:
        a = as_signed(a) if signed else as_unsigned(a)
    if b.dtype.kind != kind:
        b = as_signed(b) if signed else as_unsigned(b)
    work = np.int64 if signed else _U64
    product = np.asarray(a.astype(work) * b)        # (b, of a's kind, is promoted to `work`)
    unsigned = _UNSIGNED_OF_BYTES[2 * width]
    return product.view(unsigned) if width == 4 else product.astype(unsigned)   # (the same bits)


_UNSIGNED_OF_BYTES = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def multiply_high(a, b, signed: bool) -> np.ndarray:
    """The high word of the exact product a*b, as unsigned bits of the operands' width.

    64-bit operands build it from 32-bit halves (NumPy has no 128-bit
    integers); their signed high word is the unsigned one less (a<0 ? b) and
    (b<0 ? a), modulo 2**64.
    """
    a, b = np.asarray(a), np.asarray(b)
    width = a.dtype.itemsize * 8
    if width <= 32:
        wide = multiply_wide(a, b, signed)
        return (wide >> wide.dtype.type(width)).astype(np.dtype(f"uint{width}"))
    ua, ub = as_unsigned(a), as_unsigned(b)
    low32, thirty_two = _U64(0xFFFFFFFF), _U64(32)
    a_lo, a_hi, b_lo, b_hi = ua & low32, ua >> thirty_two, ub & low32, ub >> thirty_two
    lo_lo, lo_hi, hi_lo, hi_hi = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    middle = (lo_lo >> thirty_two) + (lo_hi & low32) + (hi_lo & low32)   # < 2**34
    high = hi_hi + (lo_hi >> thirty_two) + (hi_lo >> thirty_two) + (middle >> thirty_two)
    if signed:
        zero = _U64(0)
        with np.errstate(over="ignore"):
            high = high - np.where(as_signed(a) < 0, ub, zero) - np.where(as_signed(b) < 0, ua, zero)
    return np.asarray(high, dtype=_U64)


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
    """Index of the most significant 1 bit (int64), -1 where the value is 0.

    A 32-bit word converts to float64 exactly, so frexp's exponent is the index
    plus one (and 0 for 0); a 64-bit word is searched as its two halves.
    """
    x = as_unsigned(bits)
    if x.dtype.itemsize == 8:
        high, low = (x >> _U64(32)).astype(_U32), (x & _U64(0xFFFFFFFF)).astype(_U32)
        return np.where(high != 0, 32 + highest_set_bit(high), highest_set_bit(low))
    exponent = np.frexp(x.astype(np.float64))[1]
    return (exponent - 1).astype(np.int64)


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


# ------------------------------------------------------------------ lanes of a word, absolute differences

def word_lanes(words, width: int, signed: bool) -> np.ndarray:
    """(n, 32 // width) lane values of 32-bit words, low lane first, as exact int64."""
    raw = np.ascontiguousarray(np.asarray(words, dtype=_U32).reshape(-1))
    kind = {8: np.int8 if signed else np.uint8, 16: np.int16 if signed else np.uint16}[width]
    return raw.view(kind).reshape(len(raw), 32 // width).astype(np.int64)


def pack_lanes(values, width: int) -> np.ndarray:
    """(n, 32 // width) lane values, each wrapped to `width` bits, back into uint32 words."""
    unsigned = (np.asarray(values) & ((1 << width) - 1)).astype({8: np.uint8, 16: np.uint16}[width])
    return np.ascontiguousarray(unsigned).view(_U32).reshape(-1)


def packed_sum(a, b, width: int, subtract: bool = False) -> np.ndarray:
    """a + b (a - b) of each lane pair, wrapped to the lane, as uint32 words: PTX's add/sub.u16x2
    and .s16x2 (the wrapped bits are the same signed or not), SASS's VIADD.16x2 and VIADDMNMX's
    packed sum."""
    x, y = word_lanes(a, width, False), word_lanes(b, width, False)
    return pack_lanes(x - y if subtract else x + y, width)


def packed_min_max(a, b, take_min, width: int, signed: bool, relu: bool = False) -> np.ndarray:
    """min (where take_min) or max of each lane pair of two words, as uint32 words.

    PTX's min/max.u16x2/.s16x2 and SASS's VIMNMX.U16x2/.S16x2 (whose predicate
    picks min); .relu clamps a negative lane at 0.
    """
    x, y = word_lanes(a, width, signed), word_lanes(b, width, signed)
    pick = np.asarray(take_min).reshape(-1, 1) if np.ndim(take_min) else bool(take_min)
    result = np.where(pick, np.minimum(x, y), np.maximum(x, y))
    if relu:
        result = np.maximum(result, 0)
    return pack_lanes(result, width)


def lane_absolute_differences(a, b, width: int, a_signed: bool, b_signed: bool) -> np.ndarray:
    """|a - b| of each lane pair, exact (int64, shape (n, 32 // width)): vabsdiff2/4, VABSDIFF4."""
    return np.abs(word_lanes(a, width, a_signed) - word_lanes(b, width, b_signed))


def accumulate_lanes(c, lane_values) -> np.ndarray:
    """c + the sum of each row's lanes, wrapped to 32 bits: the .add form of video instructions
    and VABSDIFF4.ACC."""
    total = np.asarray(c, dtype=_U32).astype(np.int64) + np.asarray(lane_values).sum(axis=1)
    return (total & 0xFFFFFFFF).astype(_U32)


def dot_accumulate(a, b, c, a_width: int, a_signed: bool, b_signed: bool, b_high: bool = False) -> np.ndarray:
    """c + the sum of a's lanes (8 bits wide: four; 16: two) times b's bytes (for two lanes, bytes 0-1,
    or 2-3 where b_high), exact, wrapped to 32 bits, as uint32 words: PTX's dp4a and dp2a.lo/.hi,
    SASS's IDP.4A and IDP.2A.LO/.HI."""
    x, y = word_lanes(a, a_width, a_signed), word_lanes(b, 8, b_signed)
    if a_width == 16:
        y = y[:, 2:] if b_high else y[:, :2]
    return accumulate_lanes(as_unsigned(np.asarray(c)), x * y)


def absolute_difference_sum(a, b, c, signed: bool) -> np.ndarray:
    """c + |a - b|, the difference taken exactly before the sum wraps: sad and VABSDIFF Rd, a, b, c.

    As unsigned bits of the operands' width (|INT_MIN - INT_MAX| does not fit a signed word).
    """
    a, b = np.asarray(a), np.asarray(b)
    x, y = (as_signed(a), as_signed(b)) if signed else (as_unsigned(a), as_unsigned(b))
    ua, ub = as_unsigned(a), as_unsigned(b)
    difference = np.where(x < y, ub - ua, ua - ub)
    return np.asarray(difference + as_unsigned(np.asarray(c, dtype=ua.dtype)), dtype=ua.dtype)
