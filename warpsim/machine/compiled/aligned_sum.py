"""semantics.tensor_sum's rule as machine code for wgmma: f16/bf16 products into f32 accumulators.

The rule lives in semantics/tensor_sum.py (aligned_sum, NumPy): per output element, the K
products a*b and the old accumulator C are cut toward zero to multiples of 2^(E - 25), E
the largest of their exponents (ea + eb for a product, a subnormal input at its format's
smallest normal exponent), summed exactly and rounded toward zero to f32; a zero result
is +0. In NumPy that is a dozen passes over a (warps, 16, N) array for each of an
instruction's 16 products, several times the cost of the matrix product itself. Here each
warp's accumulators are gathered from the register file as it is (register-major, as both
executors keep it; thread-major accumulators are transposed first) into its 16 x N tile, a
register's threads of 32 warps at a time, and the rule runs along the tile's rows: K is 16 in every f16/bf16 wgmma, a constant here, so
LLVM unrolls the loops over the products and vectorizes each pass along N.

The bits are the rule's (tests/machine/test_compiled_aligned_sum.py compares every word on
random bit patterns, subnormals and zeros of both signs included):
- each cut product is trunc(a * b * 2^(25 - E)). For f16 inputs it is computed in f32:
  a product of two f16 values has at most 22 significant bits and lies within 2^-48 to
  2^32, so a * b is exact in f32 as in f64, and so is its scaling by a power of two
  unless the scaled value falls below 2^-126, where it is below 1 and cuts to zero either
  way. bf16 inputs (f32's exponent range) stay in f64;
- the cut terms are integers below 2^27 in magnitude (C's below 2^26), so their sum is
  exact in int32;
- the f32 rounding toward zero is the nearest f32 stepped one ulp toward zero where it
  rounded away, as semantics.floatbits.round_to does for f32.
Partial warps, infinite or NaN inputs and accumulators go to the NumPy rule.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ...semantics.tensor_sum import ALIGN_BITS, LOWEST_LEAD, MIN_EXPONENT, NO_EXPONENT
from ...semantics.wgmma import aligned_accumulate
from .runtime import bits_of, f32_of

ACCUMULATOR_MIN_EXPONENT = MIN_EXPONENT["f32"]     # where a subnormal f32 accumulator counts

F32_KIND, F64_KIND = np.empty(0, np.float32), np.empty(0, np.float64)   # the type products are computed in
F16_LOWEST_LEAD = -60         # below any nonzero f16 product's ea + eb (-28): 2^(25 - E) stays finite in f32
TILE_K = 16                   # K of every f16/bf16 wgmma: a constant, so the loops over it unroll
WARP_GROUP = 32               # warps whose accumulators are gathered (and scattered) together
NO_INPUT = np.int16(-16000)   # a zero input's exponent in int16: its products' sums stay below NO_PRODUCT
NO_PRODUCT = -30000           # the exponent pass's start; any value below LOWEST_LEAD never leads


@intrinsic
def _power_of_two(typingctx, exponent):
    """2.0 ** exponent (int64, within f64's normal exponents) built from its bits: a bitcast, so loops of
    it vectorize (a table lookup would not)."""
    def codegen(context, builder, signature, args):
        biased = builder.add(args[0], ir.Constant(ir.IntType(64), 1023))
        return builder.bitcast(builder.shl(biased, ir.Constant(ir.IntType(64), 52)), ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(cache=True, nogil=True, inline="always")
def _place_inputs(values, row, placed, exponents, min_exponent):
    """One row of f16 or bf16 values held as f64 into `placed` (the products' type) and their
    semantics.tensor_sum.input_exponents into `exponents`, int16, a zero's as NO_INPUT. Returns
    whether one was infinite or NaN (its exponent is then meaningless)."""
    special = np.int32(0)
    for x in range(values.size):
        value = values[x]
        placed[row, x] = value
        bits = np.int64(np.float64(value).view(np.int64))
        biased = np.int32((bits >> 52) & 0x7FF)               # f16/bf16 values: no f64 subnormals
        zero = (bits & 0x7FFFFFFFFFFFFFFF) == 0
        special |= np.int32(biased == 0x7FF)
        exponents[row, x] = NO_INPUT if zero else np.int16(max(biased - np.int32(1023), np.int32(min_exponent)))
    return special


@njit(cache=True, nogil=True, inline="always")
def _copy_group(registers, first, end, tiles, n, gather):
    """Warps first..end-1 between the register file and their tiles (see _accumulate_tiles), four
    accumulators at a time: register r = 4 q + 2 h + e of lanes 4 g .. 4 g + 3 is tile row g + 8 h,
    positions e N/2 + 4 q .. e N/2 + 4 q + 3. Both are complex128 views, 16 bytes an item:
    registers (N/2, threads / 4), tiles (warps, 16, N/4). Into the tiles where `gather`, back into
    the registers otherwise."""
    for q in range(n >> 3):
        for h in range(2):
            for e in range(2):
                r = 4 * q + 2 * h + e
                at = e * (n >> 3) + q
                for w in range(first, end):
                    for g in range(8):
                        if gather:
                            tiles[w - first, g + 8 * h, at] = registers[r, 8 * w + g]
                        else:
                            registers[r, 8 * w + g] = tiles[w - first, g + 8 * h, at]


@njit(cache=True, nogil=True)
def _accumulate_tiles(A, B, b_of_warp, addend, bits, min_exponent, product_floor, kind, words):
    """The new accumulators of whole warps, warp by warp, in place in `words`.

    A (warps, 16, TILE_K) and B (Bs, N, TILE_K) float64, b_of_warp each warp's B. addend and words
    are the f32 accumulators (N/2, threads), each register's threads in a row, viewed as complex128
    (N/2, threads / 4): 16 bytes, four threads' words, an item. Register r = 4 q + 2 h + e of lane
    4 g + pair holds element (row g + 8 h, column 8 q + 2 pair + e) of the warp's 16 x N tile
    (semantics.wgmma.accumulator_offsets). The tile is kept with its columns in the order (e, q, pair),
    position e N/2 + 4 q + pair, so that a register's 32 threads are 8 runs of 4 consecutive positions:
    C is gathered and the sums scattered 16 bytes at a time (a float at a time was a quarter of the
    work), WARP_GROUP warps at a time (a register's row of the register file is read 4 KB at a time,
    not 128 bytes); B's columns are placed in that order
    once per run of warps sharing it. The rule runs row by row of the tile with the loops over K unrolled
    (TILE_K is a constant), so each pass is one vectorized loop along N. A and B are copied into the type
    of `kind` (f32 for f16 inputs, f64 for bf16); exponents are int16, sums of two inputs' included, and
    so is each element's largest (16 lanes a vector). The cut terms are integers below 2^27 in magnitude
    (2^31 for the sum), added as int32; a zero result is +0. `bits`: the rule's bits kept below E,
    min_exponent where subnormal inputs count. Returns whether every input and accumulator read was
    finite (if not, the words are meaningless)."""
    warps, rows = A.shape[0], A.shape[1]
    n = B.shape[1]
    a_rows = np.empty((rows, TILE_K), kind.dtype)
    ea = np.empty((rows, TILE_K), np.int16)
    b_cols = np.empty((n, TILE_K), kind.dtype)       # B as read, then along N for each k
    eb_cols = np.empty((n, TILE_K), np.int16)
    b_k = np.empty((TILE_K, n), kind.dtype)
    eb = np.empty((TILE_K, n), np.int16)
    c_group = np.empty((WARP_GROUP, rows, n), np.float32)
    sums_group = np.empty((WARP_GROUP, rows, n), np.float32)
    c_items, sums_items = c_group.view(np.complex128), sums_group.view(np.complex128)
    lead16 = np.empty(n, np.int16)          # the products' largest exponent
    lead = np.empty(n, np.int32)            # E
    units = np.empty(n, np.int32)
    scale = np.empty(n, kind.dtype)
    infinite = np.int32(0)
    last_b = -1
    for w in range(warps):
        gb = b_of_warp[w]
        if gb != last_b:                      # a warpgroup's warps share their B: placed once
            last_b = gb
            for j in range(n):                # column j at position e N/2 + 4 q + pair
                at = (j & 1) * (n >> 1) + 4 * (j >> 3) + ((j >> 1) & 3)
                infinite |= _place_inputs(B[gb, j], at, b_cols, eb_cols, min_exponent)
            b_k[:, :] = b_cols.T
            eb[:, :] = eb_cols.T
        for i in range(rows):
            infinite |= _place_inputs(A[w, i], i, a_rows, ea, min_exponent)
        in_group = w % WARP_GROUP
        if in_group == 0:                     # C of the group's warps, register by register
            _copy_group(addend, w, min(w + WARP_GROUP, warps), c_items, n, True)
        c = c_group[in_group]
        sums = sums_group[in_group]
        for i in range(rows):
            for j in range(n):                # the largest exponent of each element's products
                top = np.int16(NO_PRODUCT)
                for kk in range(TILE_K):
                    top = max(top, np.int16(ea[i, kk] + eb[kk, j]))
                lead16[j] = top
            for j in range(n):                # with C's: E; C cut; the products' scale 2^(bits - E), E
                c_bits = bits_of(c[i, j])     # raised to product_floor
                biased = np.int32((c_bits >> np.uint32(23)) & np.uint32(0xFF))
                own = biased - np.int32(127) if biased != 0 else np.int32(ACCUMULATOR_MIN_EXPONENT)
                own = np.int32(NO_EXPONENT) if (c_bits & np.uint32(0x7FFFFFFF)) == 0 else own
                infinite |= np.int32(biased == 255)
                top = max(max(own, np.int32(lead16[j])), np.int32(LOWEST_LEAD))
                lead[j] = top
                units[j] = np.int32(np.float64(c[i, j]) * _power_of_two(np.int64(bits - top)))
                scale[j] = _power_of_two(np.int64(bits - max(top, np.int32(product_floor))))
            for j in range(n):                # the products cut and added
                total = units[j]
                for kk in range(TILE_K):
                    total += np.int32(a_rows[i, kk] * b_k[kk, j] * scale[j])
                units[j] = total
            for j in range(n):                # the sum, toward zero to f32: the nearest, a step back where
                exact = np.float64(units[j]) * _power_of_two(np.int64(lead[j] - bits))        # it is larger
                nearest = np.float32(exact)
                stepped = bits_of(nearest) - np.uint32(abs(np.float64(nearest)) > abs(exact))
                sums[i, j] = f32_of(stepped) + np.float32(0.0)                   # + 0: a -0 is +0
        if in_group == WARP_GROUP - 1 or w == warps - 1:
            _copy_group(words, w - in_group, w + 1, sums_items, n, False)
    return infinite == 0


def compiled_accumulate(A, B, b_of_warp, row, lane, n, addend, atype, registers_first=False):
    """semantics.wgmma.aligned_accumulate's words, the same bits, as machine code: (threads, N/2) uint32,
    or (N/2, threads) where `registers_first` (addend too: each register's threads in a row, the SASS
    executor's register file and the PTX machine's registers stacked, with no transposes).

    Whole warps in order, finite inputs, K = TILE_K; anything else (partial warps, infinities, NaNs) the
    NumPy rule."""
    warps = A.shape[0]
    whole = (len(row) == 32 * warps and (lane.reshape(warps, 32) == np.arange(32)).all()
             and (row.reshape(warps, 32) == np.arange(warps)[:, None]).all())
    if whole and A.shape[2] == TILE_K:
        in_f32 = atype == "f16"
        old = np.ascontiguousarray(addend if registers_first else addend.T, np.float32)
        words = np.empty(old.shape, np.float32)
        finite = _accumulate_tiles(np.ascontiguousarray(A, np.float64), np.ascontiguousarray(B, np.float64),
                                    np.ascontiguousarray(b_of_warp, np.int64), old.view(np.complex128),
                                    ALIGN_BITS[atype], MIN_EXPONENT[atype],
                                    F16_LOWEST_LEAD if in_f32 else LOWEST_LEAD, F32_KIND if in_f32 else F64_KIND,
                                    words.view(np.complex128))
        if finite:
            return words.view(np.uint32) if registers_first else np.ascontiguousarray(words.view(np.uint32).T)
    if registers_first:
        return aligned_accumulate(A, B, b_of_warp, row, lane, n, np.ascontiguousarray(addend.T), atype).T
    return aligned_accumulate(A, B, b_of_warp, row, lane, n, addend, atype)
