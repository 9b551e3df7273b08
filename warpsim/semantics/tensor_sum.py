"""How the H200's tensor cores add: one MMA instruction's products and its accumulator, bit for bit.

Every float MMA warpsim runs (mma.sync and wmma as HMMA, wgmma as HGMMA and QGMMA, at PTX and
SASS level) sums here, so the rule has one home. It was fitted to words recorded on an H200
(validation/hopper/mma_rounding.py: mma.sync, wmma and wgmma on inputs built to tell rules
apart; tensor_core_rounding.py: tl.dot), and every recorded word equals it.

For each output element, one instruction adds its K products a*b (K = 16 for f16/bf16, 8 for
tf32, 32 for fp8) and the old accumulator C as one block:

- each product counts at exponent ea + eb, the inputs' exponents before the product is
  normalized; a subnormal input counts at its format's smallest normal exponent (the
  hardware reads the stored exponent field), and so does a subnormal accumulator;
- E is the largest of those and of C's exponent; every term is cut toward zero to a
  multiple of 2^(E - b): b = 25 for f16, bf16 and tf32 inputs, 13 for e4m3 and e5m2;
- the cut terms are added exactly; the sum goes to the accumulator toward zero as f32
  (f16/bf16/tf32 into f32), to 14 significant bits toward zero (fp8 into f32, an f32 then
  holds it exactly), or to nearest-even as f16 (f16 and fp8 into f16);
- a zero sum is +0 whatever the terms' signs (an integer sum has no sign).

So small products added to a larger accumulator lose their low bits and long sums drift
low (about 70 f32 ulps at K = 1024 for uniform f16 inputs); fp8 sums keep about 14 bits.
Integer MMAs are exact and do not come here. An instruction whose PTX form the compiler
splits (wmma m16n16k8 tf32: two HMMA.1684, k 0-3 then 4-7) adds one step at a time
(`chained_sum`).

mma.sync with fp8 inputs has no instruction of its own on sm_90: ptxas widens the inputs to f16
and issues two HMMA.16816.F32 from a zero accumulator (the k with k % 4 < 2, then the rest) and an
FADD of C; `fp8_mma_sync` computes that sequence, as the H200 runs it.
"""

from __future__ import annotations

import numpy as np

from .floatbits import F16, F32, FloatFormat, round_to, two_sum

ALIGN_BITS = {"f16": 25, "bf16": 25, "tf32": 25, "e4m3": 13, "e5m2": 13}   # bits kept below E
MIN_EXPONENT = {"f16": -14, "bf16": -126, "tf32": -126, "e4m3": -6, "e5m2": -14, "f32": -126}  # subnormals count there
FP8_SUM = FloatFormat("fp8 sum", 14, F32.emin, F32.max_finite)          # what an fp8 sum keeps
NO_EXPONENT = -1100                     # a zero term's exponent: below every float64, it never leads
LOWEST_LEAD = -990                      # all terms zero: any scale keeps them zero; 2^1015 is finite


def accumulates_here(atype: str, dtype: str) -> bool:
    """Whether inputs of `atype` into a `dtype` accumulator add by this module's rule (every float
    form the H200 was measured on: each input type into f32, f16 and fp8 into f16)."""
    return atype in ALIGN_BITS and dtype in ("f32", "f16")


def exponents(x: np.ndarray) -> np.ndarray:
    """floor(log2 |x|) as int32; zeros get NO_EXPONENT."""
    mantissa, exponent = np.frexp(x)
    return np.where(mantissa != 0, exponent - 1, NO_EXPONENT).astype(np.int32)


def input_exponents(x: np.ndarray, atype: str) -> np.ndarray:
    """The exponent each value of type `atype` (an input or the accumulator) counts at: its own, or
    its format's smallest normal one if it is subnormal."""
    e = exponents(x)
    return np.where(e == NO_EXPONENT, e, np.maximum(e, MIN_EXPONENT[atype])).astype(np.int32)


def aligned_sum(A: np.ndarray, B: np.ndarray, C: np.ndarray, atype: str, dtype: str = "f32") -> np.ndarray:
    """(W, M, N) accumulator values (float32, or float16 for dtype "f16"): C + A @ B.T per instruction.

    A is (W, M, K) and B (W, N, K) in float64 (B's rows are the output's columns), C (W, M, N)
    the old accumulator as float64; W instructions (or warps) at once, each adding its K
    products as the module doc says. One (W, M, N) step per k keeps the work in 2-D slices
    (a 4-D block of all K terms was 6x slower).
    """
    bits = ALIGN_BITS[atype]
    k = A.shape[2]
    A_k = np.ascontiguousarray(np.moveaxis(A, 2, 0))[..., None]              # (K, W, M, 1)
    B_k = np.ascontiguousarray(np.moveaxis(B, 2, 0))[:, :, None, :]          # (K, W, 1, N)
    ea, eb = input_exponents(A_k, atype), input_exponents(B_k, atype)
    lead = input_exponents(C, dtype)
    for i in range(k):
        np.maximum(lead, ea[i] + eb[i], out=lead)
    np.maximum(lead, LOWEST_LEAD, out=lead)
    scale = np.ldexp(1.0, bits - lead)
    units = np.trunc(C * scale)           # exact: |terms| * scale < 2^(bits + 2), a sum of 33 < 2^33
    for i in range(k):
        units += np.trunc(A_k[i] * B_k[i] * scale)
    total = units * np.ldexp(1.0, lead - bits)
    if dtype == "f16":                    # + 0: a zero sum (-0 from cut negative terms too) is +0
        return round_to(total, F16, "rn").astype(np.float16) + np.float16(0)
    if atype in ("e4m3", "e5m2"):
        total = round_to(total, FP8_SUM, "rz")
    return round_to(total, F32, "rz").astype(np.float32) + np.float32(0)


def chained_sum(A: np.ndarray, B: np.ndarray, C: np.ndarray, atype: str, dtype: str, step: int) -> np.ndarray:
    """aligned_sum over K in steps of `step` products, in K order, each step's result the next one's C."""
    k = A.shape[2]
    if step >= k:
        return aligned_sum(A, B, C, atype, dtype)
    for k0 in range(0, k, step):
        C = aligned_sum(A[..., k0:k0 + step], B[..., k0:k0 + step], np.asarray(C, np.float64), atype, dtype)
    return C


def fp8_k_halves(k: int = 32) -> np.ndarray:
    """Which of mma.sync m16n8k32's k the first of its two HMMAs takes: ptxas widens each A and B
    register's four fp8 to two f16 pairs (bytes 0-1, then 2-3), so the first HMMA gets k % 4 < 2."""
    return np.arange(k) % 4 < 2


def fp8_mma_sync(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """(W, 16, 8) float32: mma.sync.m16n8k32 of fp8 values (A (W, 16, 32), B (W, 8, 32), float64)
    into f32 C, as sm_90 runs it: two f16 HMMAs from zero (fp8 widens to f16 exactly) and C added
    to nearest (FADD)."""
    first = fp8_k_halves(A.shape[2])
    partial = aligned_sum(A[..., first], B[..., first], np.zeros(C.shape), "f16")
    partial = aligned_sum(A[..., ~first], B[..., ~first], partial.astype(np.float64), "f16")
    total, err = two_sum(partial.astype(np.float64), np.asarray(C, np.float64))
    return round_to(total, F32, "rn", err).astype(np.float32)
