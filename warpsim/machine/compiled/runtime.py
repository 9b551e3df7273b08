"""Per-lane value helpers the compiled blocks call: exact PTX semantics on register bits.

Every value travels as its register's storage (uint32/uint64 bits, bool for
predicates), so a block's locals have one Numba type each and moves are free.
Helpers are `inline='always'`: LLVM sees the whole block. Integer arithmetic
is done in uint64 and masked, because Numba, like NumPy, widens mixed 32-bit
operands to 64 bits instead of wrapping. f32 arithmetic is IEEE single
precision in Numba; fma is LLVM's llvm.fma.f32, a single correct rounding
(the NumPy tier's TwoSum + round-to-odd gives the same bits). NaN results are
the canonical 0x7fffffff the GPU writes; .ftz flushes subnormal inputs and the
rounded result to zero of the same sign, and a product or fused sum that rounded
up to the smallest normal from a value tiny after rounding (floatbits.flush_tiny_result).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ...semantics import addresses
from .. import cluster
from ...semantics.floatbits import CANONICAL_NAN, F32
from .fused import fused_f64  # noqa: F401 (the compiled tiers' f64 fma)

M32 = np.uint64(0xFFFFFFFF)
SIGN32 = np.uint32(F32.sign_mask)
EXPONENT32 = np.uint32(F32.exponent_mask)
MAGNITUDE32 = np.uint32(F32.exponent_mask | F32.fraction_mask)
CANONICAL_NAN32 = np.uint32(CANONICAL_NAN["f32"])
FRACTION32 = np.uint64(F32.fraction_mask)
FRACTION64 = np.uint64((1 << 52) - 1)
QUIET_NAN32 = np.uint64(0x7FC00000)          # an f32 NaN's exponent and quiet bit
QUIET_NAN64 = np.uint64(0x7FF8000000000000)  # an f64 NaN's exponent and quiet bit
WIDENED_CANONICAL_NAN = np.uint64(0x7FFFFFFFE0000000)   # 0x7fffffff widened, as F2F.F64.F32.FTZ writes it


@intrinsic
def f32_of(typingctx, bits):
    """uint32 register bits -> the float32 they hold (a bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.uint32), codegen


@intrinsic
def bits_of(typingctx, value):
    """float32 -> its uint32 bits (a bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.uint32(types.float32), codegen


@intrinsic
def f64_of(typingctx, bits):
    """uint64 register bits -> the float64 they hold (a bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.uint64), codegen


@intrinsic
def bits64_of(typingctx, value):
    """float64 -> its uint64 bits (a bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.uint64(types.float64), codegen


@intrinsic
def fused_f32(typingctx, a, b, c):
    """a*b + c rounded once: LLVM's fma intrinsic."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return types.float32(types.float32, types.float32, types.float32), codegen


@intrinsic
def quotient_f32(typingctx, a, b):
    """a / b rounded once (IEEE: LLVM's fdiv), with no Python check of a zero divisor."""
    def codegen(context, builder, signature, args):
        return builder.fdiv(*args)
    return types.float32(types.float32, types.float32), codegen


@intrinsic
def root_f32(typingctx, a):
    """The square root of a rounded once (IEEE: LLVM's sqrt intrinsic; NaN below zero)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.FloatType(), [ir.FloatType()])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.sqrt.f32"), args)
    return types.float32(types.float32), codegen


# ------------------------------------------------------------ integers (bits in, bits out)

@njit(inline="always")
def u32(value):
    return np.uint32(np.uint64(value) & M32)


@njit(inline="always")
def s32(bits):
    """The signed value of 32 register bits."""
    return np.int64(bits) - np.int64(4294967296) if bits & SIGN32 else np.int64(bits)


@njit(inline="always")
def s64(bits):
    return np.int64(bits)


@njit(inline="always")
def add32(a, b):
    return u32(np.uint64(a) + np.uint64(b))


@njit(inline="always")
def sub32(a, b):
    return u32(np.uint64(a) - np.uint64(b))


@njit(inline="always")
def mul32(a, b):
    return u32(np.uint64(a) * np.uint64(b))


@njit(inline="always")
def mad32(a, b, c):
    return u32(np.uint64(a) * np.uint64(b) + np.uint64(c))


@njit(inline="always")
def add64(a, b):
    return np.uint64(a) + np.uint64(b)


@njit(inline="always")
def sub64(a, b):
    return np.uint64(a) - np.uint64(b)


@njit(inline="always")
def mul64(a, b):
    return np.uint64(a) * np.uint64(b)


@njit(inline="always")
def mad64(a, b, c):
    return np.uint64(a) * np.uint64(b) + np.uint64(c)


@njit(inline="always")
def shl32(a, amount):
    """PTX clamps the amount: 32 or more shifts every bit out."""
    return np.uint32(0) if amount >= np.uint32(32) else u32(np.uint64(a) << np.uint64(amount))


@njit(inline="always")
def shr_u32(a, amount):
    return np.uint32(0) if amount >= np.uint32(32) else np.uint32(np.uint64(a) >> np.uint64(amount))


@njit(inline="always")
def shr_s32(a, amount):
    """Arithmetic: 32 or more fills with the sign bit."""
    shift = np.int64(31) if amount >= np.uint32(32) else np.int64(amount)
    return u32(np.uint64(s32(a) >> shift) if s32(a) >= 0 else
               ~np.uint64(~s32(a) >> shift))


@njit(inline="always")
def shl64(a, amount):
    return np.uint64(0) if amount >= np.uint32(64) else np.uint64(a) << np.uint64(amount)


@njit(inline="always")
def shr_u64(a, amount):
    return np.uint64(0) if amount >= np.uint32(64) else np.uint64(a) >> np.uint64(amount)


@njit(inline="always")
def shr_s64(a, amount):
    shift = np.uint64(63) if amount >= np.uint32(64) else np.uint64(amount)
    negative = np.uint64(a) >> np.uint64(63)
    if negative:
        return ~((~np.uint64(a)) >> shift)
    return np.uint64(a) >> shift


@njit(inline="always")
def popc64(a):
    """Set bits of a 64-bit word, as a uint32 (semantics/integer.popcount's SWAR)."""
    x = np.uint64(a)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.uint32((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(inline="always")
def bfe32(a, position, length, signed):
    """bfe.u32/.s32 (machine/isa/integer.bfe): `length` bits of a from bit `position`, each read
    through the low 8 bits (BIT_FIELD_OPERAND_MASK[32]); zero-extended, or for .s32 extended
    with bit min(position + length - 1, 31) (none when length is 0)."""
    pos, n = np.int64(np.uint32(position) & np.uint32(0xFF)), np.int64(np.uint32(length) & np.uint32(0xFF))
    inside = min(n, np.int64(32) - pos)
    inside = max(inside, np.int64(0))
    mask = np.uint64((1 << inside) - 1) if inside < 32 else np.uint64(M32)
    field = (np.uint64(a) >> np.uint64(pos) if pos < 32 else np.uint64(0)) & mask
    if signed and n != 0:
        sign_position = max(min(pos + n - 1, np.int64(31)), np.int64(0))
        if (np.uint64(a) >> np.uint64(sign_position)) & np.uint64(1):
            field |= ~mask
    return u32(field)


SIGN64 = np.uint64(1 << 63)
ALL_ONES32 = np.uint32(0xFFFFFFFF)
ALL_ONES64 = np.uint64(0xFFFFFFFFFFFFFFFF)


# Division truncates toward zero (quotient of magnitudes, sign after; INT_MIN / -1 wraps to
# INT_MIN, INT_MIN % -1 is 0); a zero divisor gives all ones: isa/integer.py's div_rem and
# DIVIDE_BY_ZERO, which scalar.py checks before it emits these.

@njit(inline="always")
def udiv32(a, b):
    return ALL_ONES32 if b == np.uint32(0) else np.uint32(np.uint64(a) // np.uint64(b))


@njit(inline="always")
def urem32(a, b):
    return ALL_ONES32 if b == np.uint32(0) else np.uint32(np.uint64(a) % np.uint64(b))


@njit(inline="always")
def sdiv32(a, b):
    if b == np.uint32(0):
        return ALL_ONES32
    x, y = s32(a), s32(b)
    quotient = abs(x) // abs(y)
    return u32(np.uint64(-quotient if (x < 0) != (y < 0) else quotient))


@njit(inline="always")
def srem32(a, b):
    if b == np.uint32(0):
        return ALL_ONES32
    x, y = s32(a), s32(b)
    remainder = abs(x) % abs(y)
    return u32(np.uint64(-remainder if x < 0 else remainder))


@njit(inline="always")
def udiv64(a, b):
    return ALL_ONES64 if b == np.uint64(0) else np.uint64(a) // np.uint64(b)


@njit(inline="always")
def urem64(a, b):
    return ALL_ONES64 if b == np.uint64(0) else np.uint64(a) % np.uint64(b)


@njit(inline="always")
def magnitude64(bits):
    """|x| of s64 bits as uint64 (|INT64_MIN| fits)."""
    return np.uint64(0) - np.uint64(bits) if np.uint64(bits) & SIGN64 else np.uint64(bits)


@njit(inline="always")
def sdiv64(a, b):
    if b == np.uint64(0):
        return ALL_ONES64
    quotient = magnitude64(a) // magnitude64(b)
    return np.uint64(0) - quotient if ((np.uint64(a) ^ np.uint64(b)) & SIGN64) else quotient


@njit(inline="always")
def srem64(a, b):
    if b == np.uint64(0):
        return ALL_ONES64
    remainder = magnitude64(a) % magnitude64(b)
    return np.uint64(0) - remainder if np.uint64(a) & SIGN64 else remainder


@njit(inline="always")
def signed_less64(a, b):
    """a < b as s64 bits: flip the sign bits and compare unsigned."""
    return (np.uint64(a) ^ SIGN64) < (np.uint64(b) ^ SIGN64)


# ------------------------------------------------------------ global memory (the round loop's loads)

GLOBAL_BASE = np.uint64(addresses.GLOBAL_BASE)     # where the heap is mapped


@njit(inline="always")
def find_allocation(starts, ends, heap_bytes, address, size):
    """The live allocation holding an access of `size` bytes at address, or -1 where
    GlobalMemory.check and access.resolve refuse it: not aligned, or not inside one
    allocation. The round loop asks only when the allocation of its last load does not
    hold the access (kept in locals, which LLVM keeps in registers)."""
    if address % np.uint64(size) != np.uint64(0) or address < GLOBAL_BASE:
        return -1
    offset = address - GLOBAL_BASE
    low, high = 0, starts.shape[0]          # the last allocation starting at or before offset
    while low < high:
        middle = (low + high) // 2
        if starts[middle] <= offset:
            low = middle + 1
        else:
            high = middle
    k = low - 1
    if k < 0 or offset + np.uint64(size) > ends[k] or offset + np.uint64(size) > heap_bytes:
        return -1
    return k


# ------------------------------------------------------------ shared memory (compiled blocks)

SHARED_WINDOW = np.uint64(addresses.SHARED_WINDOW)   # generic address of shared offset 0
CLUSTER_ADDRESS = np.uint64(cluster.CLUSTER_ADDRESS)   # the mark of a shared::cluster address


@njit(inline="always")
def shared_offset(address):
    """addresses.window_offsets for one lane: a generic address in the shared window, or an
    offset already."""
    return address - SHARED_WINDOW if address >= SHARED_WINDOW else address


@njit(inline="always")
def shared_inside(offset, size, shared_used):
    """access.resolve's shared check for one lane of the lane's own CTA (addresses.inside); a
    shared::cluster address (cluster.peer_offsets) is left to the NumPy tier as if bad."""
    return offset < CLUSTER_ADDRESS and offset % np.uint64(size) == np.uint64(0) \
        and np.int64(offset) + size <= shared_used


# ------------------------------------------------------------ warp exchange (the round loop's shfl.sync)

@njit(inline="always")
def shuffle_source(lane, mode, b, c):
    """(source lane, in range) of one lane of shfl.sync: semantics/warp.shuffle_sources on scalars
    (mode: the index of its name in semantics/warp.SHUFFLE_MODES; b the lane or offset, c the clamp and segment mask); a lane whose
    source is out of range reads itself."""
    lane = np.int64(lane)
    offset = np.int64(b) & 31
    packed = np.int64(c)
    clamp, segment = packed & 31, (packed >> 8) & 31
    max_lane = (lane & segment) | (clamp & ~segment)
    if mode == 0:
        j = lane - offset
        ok = j >= max_lane
    elif mode == 1:
        j = lane + offset
        ok = j <= max_lane
    elif mode == 2:
        j = lane ^ offset
        ok = j <= max_lane
    else:
        j = (lane & segment) | (offset & ~segment)
        ok = j <= max_lane
    return (j if ok else lane), ok


# ------------------------------------------------------------ f32 (bits in, bits out)

@njit(inline="always")
def flush32(bits):
    """.ftz on register bits (setp): a subnormal becomes zero of the same sign (a zero
    exponent keeps only the sign bit, which leaves zeros as they are); a mask, not a branch."""
    normal = np.uint32(0) - np.uint32((bits & EXPONENT32) != np.uint32(0))
    return bits & (normal | SIGN32)


@njit(inline="always")
def result32(value):
    """A float32 result as register bits; NaN is the canonical one."""
    return CANONICAL_NAN32 if value != value else bits_of(value)


@njit(inline="always")
def is_nan32(bits):
    return (bits & MAGNITUDE32) > EXPONENT32


SMALLEST_NORMAL32 = np.float32(F32.min_normal)


@njit(inline="always")
def flushed(value):
    """.ftz on a float32 value: a subnormal becomes zero of its sign (x * 0 keeps the sign),
    NaN passes (the comparison is false). In the float domain, as a select: about 1.7x faster
    than masking the bits on a chain of fma, whose values then never cross to integers."""
    return value * np.float32(0.0) if abs(value) < SMALLEST_NORMAL32 else value


@njit(inline="always")
def result32_ftz(value):
    return CANONICAL_NAN32 if value != value else bits_of(flushed(value))


@njit(inline="always")
def abs_neg_f32(a, negate, ftz):
    """abs/neg.f32 on the sign bit (.ftz: a subnormal first becomes zero of its sign); a NaN is the
    canonical one (ptxas emits FADD |a|, -0: machine/isa/floating.abs_neg)."""
    if ftz and (a & EXPONENT32) == np.uint32(0):
        a = a & SIGN32
    if is_nan32(a):
        return CANONICAL_NAN32
    return (a ^ SIGN32) if negate else (a & MAGNITUDE32)


@njit(inline="always")
def min_max_f32(a, b, take_min, ftz):
    """min/max.f32 as IEEE minNum/maxNum (semantics/floating.ieee_min_max): a NaN loses to a number,
    two NaNs give the canonical NaN, -0 counts as less than +0; .ftz flushes the operands first."""
    if ftz:
        a, b = flush32(a), flush32(b)
    a_nan, b_nan = is_nan32(a), is_nan32(b)
    if a_nan and b_nan:
        return CANONICAL_NAN32
    if a_nan:
        return b
    if b_nan:
        return a
    x, y = f32_of(a), f32_of(b)
    if x == y:                          # the same value, or zeros: their signs decide
        return (a | b) if take_min else (a & b)
    if take_min:
        return a if x < y else b
    return a if x > y else b


@njit(inline="always")
def add_f32(a, b, ftz):
    if ftz:
        return result32_ftz(flushed(f32_of(a)) + flushed(f32_of(b)))
    return result32(f32_of(a) + f32_of(b))


@njit(inline="always")
def sub_f32(a, b, ftz):
    if ftz:
        return result32_ftz(flushed(f32_of(a)) - flushed(f32_of(b)))
    return result32(f32_of(a) - f32_of(b))


# .ftz's tininess after rounding (floatbits.flush_tiny_result): where a product or fused sum rounds
# to the smallest normal, the same operation with its exact value 2^25 times larger, rounded to 24
# bits in the normal range, tells whether the exact value was below it. Branch-free, so that LLVM
# keeps vectorizing the lanes of a block over it (a branch to a rare path in every fma made an
# FMA loop 2.3x slower).
TINY_SCALE32 = np.float32(2.0 ** (F32.precision + 1))
TINY_EDGE32 = np.float32(F32.min_normal * 2.0 ** (F32.precision + 1))


@njit(inline="always")
def flush_tiny32(value, rescaled):
    """result32_ftz, and zero of value's sign where it is the smallest normal but `rescaled` (the
    operation on inputs scaled by TINY_SCALE32) says the exact value was tiny."""
    tiny = (abs(value) == SMALLEST_NORMAL32) & (abs(rescaled) < TINY_EDGE32)
    return result32_ftz(value * np.float32(0.0) if tiny else value)


@njit(inline="always")
def mul_f32(a, b, ftz):
    if ftz:
        x, y = flushed(f32_of(a)), flushed(f32_of(b))
        return flush_tiny32(x * y, (x * TINY_SCALE32) * y)
    return result32(f32_of(a) * f32_of(b))


@njit(inline="always")
def fma_f32(a, b, c, ftz):
    if ftz:
        x, y, z = flushed(f32_of(a)), flushed(f32_of(b)), flushed(f32_of(c))
        return flush_tiny32(fused_f32(x, y, z), fused_f32(x * TINY_SCALE32, y, z * TINY_SCALE32))
    return result32(fused_f32(f32_of(a), f32_of(b), f32_of(c)))


# div.rn, rcp.rn and sqrt.rn.f32 round the exact value once, as IEEE float32 does; .ftz flushes
# subnormal inputs and results (the NumPy tier's div_rounded and sqrt_rounded between FloatEnv's
# flushes, which apply no tininess-after-rounding rule to them).
ONE32_BITS = np.uint32(0x3F800000)     # 1.0f: rcp is a division of it


@njit(inline="always")
def div_f32(a, b, ftz):
    if ftz:
        return result32_ftz(quotient_f32(flushed(f32_of(a)), flushed(f32_of(b))))
    return result32(quotient_f32(f32_of(a), f32_of(b)))


@njit(inline="always")
def rcp_f32(a, ftz):
    return div_f32(ONE32_BITS, a, ftz)


@njit(inline="always")
def sqrt_f32(a, ftz):
    if ftz:
        return result32_ftz(root_f32(flushed(f32_of(a))))
    return result32(root_f32(f32_of(a)))


@njit(inline="always")
def f32_from_s32(bits):
    """cvt.rn.f32.s32: int to float rounds to nearest even (LLVM's sitofp)."""
    return bits_of(np.float32(s32(bits)))


@njit(inline="always")
def f32_from_u32(bits):
    return bits_of(np.float32(np.uint32(bits)))


# ------------------------------------------------------------ f64 (bits in, bits out)
# The FP64 unit passes a NaN operand on, quieted, in an order seen on an H200, or 0xfff8...0 for an
# invalid operation (semantics/floating.operand_nan and fma_operand_nan, the NumPy tier's rules).

MAGNITUDE64 = np.uint64((1 << 63) - 1)
EXPONENT64 = np.uint64(0x7FF0000000000000)
QUIET64 = np.uint64(1 << 51)
DEFAULT_NAN64 = np.uint64(0xFFF8000000000000)


@njit(inline="always")
def is_nan64(bits):
    return (bits & MAGNITUDE64) > EXPONENT64


@njit(inline="always")
def operand_nan64(a, b):
    """add/sub/mul's NaN: the second operand's when it is NaN, else the first's, quieted."""
    if is_nan64(b):
        return b | QUIET64
    if is_nan64(a):
        return a | QUIET64
    return DEFAULT_NAN64


@njit(inline="always")
def add_f64(a, b):
    r = f64_of(a) + f64_of(b)
    return operand_nan64(a, b) if r != r else bits64_of(r)


@njit(inline="always")
def sub_f64(a, b):
    r = f64_of(a) - f64_of(b)
    return operand_nan64(a, b) if r != r else bits64_of(r)


@njit(inline="always")
def mul_f64(a, b):
    r = f64_of(a) * f64_of(b)
    return operand_nan64(a, b) if r != r else bits64_of(r)


@njit(inline="always")
def fma_f64(a, b, c):
    """a*b + c rounded once; a NaN result passes b's NaN on, else c's, else a's (DFMA on an H200)."""
    r = fused_f64(f64_of(a), f64_of(b), f64_of(c))
    if r == r:
        return bits64_of(r)
    if is_nan64(b):
        return b | QUIET64
    if is_nan64(c):
        return c | QUIET64
    if is_nan64(a):
        return a | QUIET64
    return DEFAULT_NAN64


@njit(inline="always")
def abs_neg_f64(a, negate):
    """abs/neg.f64 on the sign bit; a NaN comes back quieted, sign and payload kept (ptxas's DADD)."""
    if is_nan64(a):
        return a | QUIET64
    return (a ^ SIGN64) if negate else (a & MAGNITUDE64)


@njit(inline="always")
def f64_from_f32(bits, ftz):
    """cvt.f64.f32: exact. .ftz flushes a subnormal source; a NaN widens quieted with its sign and
    payload, or as the f32 canonical NaN widened under .ftz (semantics/conversion._nan_as_gpu)."""
    if is_nan32(bits):
        if ftz:
            return WIDENED_CANONICAL_NAN
        b = np.uint64(bits)
        return ((b >> np.uint64(31)) << np.uint64(63)) | QUIET_NAN64 | ((b & FRACTION32) << np.uint64(29))
    x = f32_of(bits)
    return bits64_of(np.float64(flushed(x) if ftz else x))


@njit(inline="always")
def f32_from_f64(bits, ftz):
    """cvt.rn.f32.f64: rounded once to nearest even (LLVM's fptrunc); .ftz flushes a subnormal
    result; a NaN narrows quieted with its sign and the top of its payload."""
    x = f64_of(bits)
    if x != x:
        return np.uint32(((bits >> np.uint64(63)) << np.uint64(31)) | QUIET_NAN32 |
                         ((bits & FRACTION64) >> np.uint64(29)))
    y = np.float32(x)
    return bits_of(flushed(y) if ftz else y)


# rounding to an integral value: the modes (scalar.convert emits their names; the SASS tier's RN RZ RM RP
# are the same codes)
RNI, RZI, RMI, RPI = 0, 1, 2, 3


@njit(inline="always")
def integral(x, mode):
    """A float64 rounded to an integral value by `mode`: RNI (nearest even), RZI, RMI, RPI (the SASS
    tier's F2I and FRND read the same codes)."""
    if mode == RNI:
        return np.rint(x)
    if mode == RZI:
        return np.trunc(x)
    if mode == RMI:
        return np.floor(x)
    return np.ceil(x)


@njit(inline="always")
def f32_integral(bits, mode, ftz):
    """An f32 register's value rounded to an integral float64 by `mode` (.ftz: a subnormal is
    flushed first, which decides .rmi/.rpi of a tiny negative or positive value)."""
    return integral(np.float64(f32_of(flush32(bits) if ftz else bits)), mode)


@njit(inline="always")
def s32_from_f32(bits, mode, ftz):
    """cvt.rXi.s32.f32: rounded, saturated, NaN to 0 (semantics.conversion.float_to_int)."""
    x = f32_integral(bits, mode, ftz)
    if x != x:
        return np.uint32(0)
    if x >= 2147483648.0:
        return np.uint32(0x7FFFFFFF)
    if x < -2147483648.0:
        return np.uint32(0x80000000)
    return np.uint32(np.int64(x) & 0xFFFFFFFF)


@njit(inline="always")
def u32_from_f32(bits, mode, ftz):
    """cvt.rXi.u32.f32: rounded, saturated (negatives to 0), NaN to 0."""
    x = f32_integral(bits, mode, ftz)
    if x != x or x < 0.0:
        return np.uint32(0)
    if x >= 4294967296.0:
        return np.uint32(0xFFFFFFFF)
    return np.uint32(np.int64(x))


@njit(inline="always")
def compare_f32(a, b, op, unordered=False):
    """Comparisons by semantics/compare.py's rules: an ordered one is false when either side is NaN
    (ne included), its unordered twin (equ ... geu) true."""
    if is_nan32(a) or is_nan32(b):
        return unordered
    return _ordered(f32_of(a), f32_of(b), op)


@njit(inline="always")
def compare_f64(a, b, op, unordered=False):
    if is_nan64(a) or is_nan64(b):
        return unordered
    return _ordered(f64_of(a), f64_of(b), op)


@njit(inline="always")
def _ordered(x, y, op):
    """x op y of two numbers, op by compare.ORDERED's order (scalar.COMPARE_F32)."""
    if op == 0:
        return x == y
    if op == 1:
        return x != y
    if op == 2:
        return x < y
    if op == 3:
        return x <= y
    if op == 4:
        return x > y
    return x >= y
