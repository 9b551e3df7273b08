"""semantics.tensor_sum's rule as machine code for wgmma: f16/bf16 products into f32 accumulators.

The rule lives in semantics/tensor_sum.py (aligned_sum, NumPy): per output element, the K
products a*b and the old accumulator C are cut toward zero to multiples of 2^(E - 25), E
the largest of their exponents (ea + eb for a product, a subnormal input at its format's
smallest normal exponent), summed exactly and rounded toward zero to f32; a zero result
is +0. In NumPy that is a dozen passes over a (warps, 16, N) array for each of an
instruction's 16 products, several times the cost of the matrix product itself. Here each
lane group's accumulators (4 lanes' N/2 registers) are gathered from the register file as it
is (register-major, as the SASS executor keeps it, or thread-major) into one row, B's columns
are placed in that row's order once per warpgroup, and every loop over the products runs
along the row, so LLVM vectorizes it.

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
from functools import lru_cache

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


@intrinsic
def _power_of_two(typingctx, exponent):
    """2.0 ** exponent (int64, within f64's normal exponents) built from its bits: a bitcast, so loops of
    it vectorize (a table lookup would not)."""
    def codegen(context, builder, signature, args):
        biased = builder.add(args[0], ir.Constant(ir.IntType(64), 1023))
        return builder.bitcast(builder.shl(biased, ir.Constant(ir.IntType(64), 52)), ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(cache=True, nogil=True, inline="always")
def _input_exponents(values, exponents, min_exponent):
    """semantics.tensor_sum.input_exponents of finite f16 or bf16 values held as f64 (2-D, contiguous)."""
    bits = values.reshape(values.size).view(np.int64)
    exponents = exponents.reshape(exponents.size)
    for x in range(bits.size):
        biased = np.int32((bits[x] >> 52) & 0x7FF)           # f16/bf16 values: no f64 subnormals
        zero = (bits[x] & 0x7FFFFFFFFFFFFFFF) == 0
        exponents[x] = np.int32(NO_EXPONENT) if zero else max(biased - np.int32(1023), np.int32(min_exponent))


@njit(cache=True, nogil=True)
def _accumulate_groups(A, B, b_of_warp, columns, addend, bits, min_exponent, product_floor, kind, words):
    """The new accumulators of whole warps, lane group by lane group, in place in `words`.

    A (warps, 16, K) and B (Bs, N, K) float64 (finite), b_of_warp each warp's B. addend and
    words (N/2, threads) f32, each register's threads in a row (any strides: a transposed view
    serves threads-first arrays). Lane group g of warp w is threads 32 w + 4 g + pair; its
    position p = 4 r + pair is register r = 4 q + 2 h + e of one of them, element (row g + 8 h,
    column columns[p] = 8 q + 2 pair + e) of the warp's 16 x N tile
    (semantics.wgmma.accumulator_offsets). Each group's C is gathered into a row of positions,
    and each warp's A and B copied into the type of `kind` (f32 for f16 inputs, f64 for bf16),
    B's columns in position order, so the loops over k run over p contiguously. The cut terms
    are integers below 2^27 in magnitude (2^31 for the sum), added as int32; a zero result is
    +0. `bits`: the rule's bits kept below E, min_exponent where subnormal inputs count.
    Returns whether every accumulator read was finite."""
    warps, rows, k = A.shape
    size = columns.size
    a_values = np.empty((rows, k), np.float64)
    ea = np.empty((rows, k), np.int32)
    a_row = np.empty((rows, k), kind.dtype)
    b_values = np.empty((k, size), np.float64)
    eb = np.empty((k, size), np.int32)
    b_cols = np.empty((k, size), kind.dtype)
    c = np.empty(size, np.float32)
    lead = np.empty(size, np.int32)
    units = np.empty(size, np.int32)
    scale = np.empty(size, kind.dtype)
    finite = True
    last_b = -1
    for w in range(warps):
        gb = b_of_warp[w]
        if gb != last_b:                      # a warpgroup's warps share their B: placed once
            last_b = gb
            for p in range(size):
                column = B[gb, columns[p]]
                for kk in range(k):
                    b_values[kk, p] = column[kk]
            _input_exponents(b_values, eb, min_exponent)
            for kk in range(k):
                for p in range(size):
                    b_cols[kk, p] = b_values[kk, p]
        a_values[:, :] = A[w]
        _input_exponents(a_values, ea, min_exponent)
        for i in range(rows):
            for kk in range(k):
                a_row[i, kk] = a_values[i, kk]
        for g in range(8):
            first = 32 * w + 4 * g          # the lane group's first thread
            for p in range(size):           # C: register p / 4 of thread first + p % 4
                c[p] = addend[p >> 2, first + (p & 3)]
            for p in range(size):           # C's exponents: normal ones and zeros from the bits, then the rest
                c_bits = bits_of(c[p])
                biased = np.int32((c_bits >> np.uint32(23)) & np.uint32(0xFF))
                zero = (c_bits & np.uint32(0x7FFFFFFF)) == 0
                lead[p] = np.int32(NO_EXPONENT) if zero else biased - np.int32(127)
            for p in range(size):
                if lead[p] == -127:         # subnormal: counts at f32's smallest normal exponent
                    lead[p] = np.int32(ACCUMULATOR_MIN_EXPONENT)
                elif lead[p] == 128:        # infinity or NaN
                    finite = False
            for kk in range(k):             # the largest exponent of each element's terms
                e0, e1 = ea[g, kk], ea[g + 8, kk]
                for p in range(size):
                    term = np.int32((e1 if p & 8 else e0) + eb[kk, p])   # int32: the loop vectorizes
                    if term > lead[p]:
                        lead[p] = term
            for p in range(size):           # E; C cut; the scale of the products' cut (2^(bits - E), raised
                top = max(lead[p], np.int32(LOWEST_LEAD))                      # to product_floor)
                lead[p] = top
                units[p] = np.int32(np.float64(c[p]) * _power_of_two(np.int64(bits - top)))
                scale[p] = _power_of_two(np.int64(bits - max(top, np.int32(product_floor))))
            for kk in range(k):             # the products cut and added
                a0, a1 = a_row[g, kk], a_row[g + 8, kk]
                for p in range(size):
                    units[p] += np.int32((a1 if p & 8 else a0) * b_cols[kk, p] * scale[p])
            for p in range(size):           # the sum, toward zero to f32: the nearest, a step back where
                exact = np.float64(units[p]) * _power_of_two(np.int64(lead[p] - bits))    # it is larger
                nearest = np.float32(exact)
                stepped = bits_of(nearest) - np.uint32(abs(np.float64(nearest)) > abs(exact))
                words[p >> 2, first + (p & 3)] = f32_of(stepped) + np.float32(0.0)   # + 0: a -0 is +0
    return finite


@lru_cache(maxsize=None)
def lane_columns(n: int) -> np.ndarray:
    """The tile column of each position p = 4 r + pair of a lane group's registers (see
    _accumulate_groups): register r = 4 q + 2 h + e of lane 4 g + pair holds column 8 q + 2 pair + e."""
    p = np.arange(2 * n)
    r, pair = p >> 2, p & 3
    return 8 * (r >> 2) + 2 * pair + (r & 1)


def compiled_accumulate(A, B, b_of_warp, row, lane, n, addend, atype, registers_first=False):
    """semantics.wgmma.aligned_accumulate's words, the same bits, as machine code: (threads, N/2) uint32,
    or (N/2, threads) where `registers_first` (addend too: each register's threads in a row, the SASS
    executor's register file and the PTX machine's registers stacked, with no transposes).

    Whole warps in order, finite inputs; anything else (partial warps, infinities, NaNs) the NumPy rule."""
    warps = A.shape[0]
    whole = (len(row) == 32 * warps and (lane.reshape(warps, 32) == np.arange(32)).all()
             and (row.reshape(warps, 32) == np.arange(warps)[:, None]).all())
    if not whole or not (np.isfinite(A).all() and np.isfinite(B).all()):
        if registers_first:
            return aligned_accumulate(A, B, b_of_warp, row, lane, n, np.ascontiguousarray(addend.T), atype).T
        return aligned_accumulate(A, B, b_of_warp, row, lane, n, addend, atype)
    in_f32 = atype == "f16"
    old = np.asarray(addend, np.float32)
    words = np.empty(old.shape, np.float32)
    finite = _accumulate_groups(np.ascontiguousarray(A, np.float64), np.ascontiguousarray(B, np.float64),
                                np.ascontiguousarray(b_of_warp, np.int64), lane_columns(n),
                                old if registers_first else old.T, ALIGN_BITS[atype], MIN_EXPONENT[atype],
                                F16_LOWEST_LEAD if in_f32 else LOWEST_LEAD, F32_KIND if in_f32 else F64_KIND,
                                words if registers_first else words.T)
    if not finite:
        if registers_first:
            return aligned_accumulate(A, B, b_of_warp, row, lane, n, np.ascontiguousarray(addend.T), atype).T
        return aligned_accumulate(A, B, b_of_warp, row, lane, n, addend, atype)
    return words.view(np.uint32)
