"""Float results as the GPU gives them: NaN rules, rounded arithmetic, min/max, the SFU's approximations.

Both executors call these on register values of a float type (NumPy float16,
float32, float64; bf16 as its uint16 bits): PTX's add/sub/mul/fma/min/max and
the .approx functions (machine/isa/floating.py) and SASS's FADD/FMUL/FFMA,
FMNMX, MUFU, DADD/DMUL/DFMA and the packed halves of HADD2/HMUL2/HFMA2/HMNMX2
(sass/executor/floating.py, through semantics/packed.py). What differs
between targets and modifiers is a FloatEnv (flush-to-zero of operands and
of results, .sat, .relu, which NaN comes out, whether a NaN wins min/max),
never an instruction object.

NaN results: f32/f16/bf16 invalid results are the canonical NaN
(semantics/floatbits.CANONICAL_NAN); the FP64 unit instead passes a NaN
operand on, quieted, in an order seen on an H200 (not x86's), or 0xfff8...0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .floatbits import (CANONICAL_NAN, F32, F64, FORMATS, add_rounded, decode, encode, flush_subnormal,
                        flush_tiny_result, fma_rounded, mul_rounded, round_to, round_to_odd, two_sum)

DEFAULT_NAN_F64 = np.uint64(0xFFF8000000000000).view(np.float64)
_QUIET_F64 = np.uint64(1 << 51)
_HIGH = np.uint64(0xFFFFFFFF00000000)
_HIGH_WORD_NAN = np.uint64(CANONICAL_NAN["f32"] << 32)
_CANONICAL_BITS = {np.dtype(np.float32): np.uint32(CANONICAL_NAN["f32"]),
                   np.dtype(np.float16): np.uint16(CANONICAL_NAN["f16"])}


@dataclass(frozen=True)
class FloatEnv:
    """One instruction's float rules, read by each executor from its own modifiers (QEMU's
    float_status in small): `ftz_in` reads subnormal operands as zero of their sign, `ftz_out`
    writes subnormal results (and tiny ones rounded up to the smallest normal) as zero; `sat`
    clamps results to [0, 1] with NaN -> +0, `relu` negatives to +0 (NaN kept); `nan` is
    "canonical" (the format's canonical NaN, f32/f16/bf16) or "operand" (a NaN operand passed
    on quieted, the FP64 unit); `nan_wins`: a NaN operand makes min/max NaN (.NaN) instead of
    losing to the number."""
    ftz_in: bool = False
    ftz_out: bool = False
    sat: bool = False
    relu: bool = False
    nan: str = "canonical"
    nan_wins: bool = False

    def __post_init__(self):
        if self.nan not in ("canonical", "operand"):
            raise ValueError(f"FloatEnv.nan is 'canonical' or 'operand', not {self.nan!r}")

    @classmethod
    def flushing(cls, ftz: bool, **rules) -> "FloatEnv":
        """.ftz / .FTZ: operands and results flushed together (as both ISAs' arithmetic does)."""
        return cls(ftz_in=ftz, ftz_out=ftz, **rules)

    def inputs(self, values, fmt):
        """Operands as the unit reads them: subnormals flushed under ftz_in."""
        return [flush_subnormal(v, fmt) for v in values] if self.ftz_in else list(values)

    def outputs(self, result, fmt, rescaled=None):
        """A rounded result after ftz_out (`rescaled`: floatbits.flush_tiny_result's tininess
        test, for operations whose rounding can carry a tiny value up), sat and relu."""
        if self.ftz_out:
            result = flush_tiny_result(result, rescaled, fmt)
        if self.sat:
            result = np.where(np.isnan(result), 0, np.clip(result, 0, 1)) + result.dtype.type(0)
        if self.relu:
            result = np.where(result < 0, 0, result) + result.dtype.type(0)
        return result


PLAIN = FloatEnv()
FP64_UNIT = FloatEnv(nan="operand")


def canonical_nan(x):
    """f32/f16 NaNs -> the canonical NaN the GPU writes (NumPy keeps payloads); f64 as it is."""
    bits = _CANONICAL_BITS.get(x.dtype)
    if bits is None:
        return x
    nan = np.isnan(x)
    if not nan.any():
        return x
    return np.where(nan, np.asarray(bits).view(x.dtype), x)


def quiet_f64(x):
    """An f64 NaN with its quiet bit set (what the FP64 unit passes on)."""
    return (np.asarray(x, dtype=np.float64).view(np.uint64) | _QUIET_F64).view(np.float64)


def operand_nan(result, a, b):
    """f64 add/mul/min/max (DADD/DMUL/DMNMX) pass on a NaN operand quieted, the second one when
    both are NaN (seen on an H200; x86 would take the first); 0xfff8...0 if neither is NaN."""
    nan = np.isnan(result)
    if not nan.any():
        return result
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    chosen = np.select([np.isnan(b), np.isnan(a)], [b, a], DEFAULT_NAN_F64)
    return np.where(nan, quiet_f64(chosen), result)


def fma_operand_nan(result, a, b, c):
    """f64 fma (DFMA) passes on a NaN operand quieted; seen on an H200: b wins over c,
    c over a (x86, and so NumPy, prefer a). Invalid operations: 0xfff8...0."""
    nan = np.isnan(result)
    if not nan.any():
        return result
    a, b, c = np.broadcast_arrays(a, b, c)
    chosen = np.select([np.isnan(b), np.isnan(c), np.isnan(a)], [b, c, a], DEFAULT_NAN_F64)
    return np.where(nan, quiet_f64(chosen), result)


def fma_nearest(a, b, c):
    """a*b + c rounded once to nearest in the operands' (f32 or f16) type: the product is exact
    in f64, TwoSum gives the exact sum as a pair, rounding it to odd in f64 and casting rounds
    once (a naive a*b+c in f64 would round twice). NaNs keep NumPy's payloads.

    The f64 sum rounded to nearest lands on the same side of every midpoint between two
    neighbours of the narrow type as the exact sum does (the midpoints are f64 numbers, and
    rounding is monotone), so casting it rounds once unless it lands on such a midpoint or
    below the narrow type's normal range (where the midpoints sit at other bits): only then
    are the pair and the rounding to odd needed."""
    dtype = np.result_type(a, b, c)
    product = np.multiply(a, b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    total = product + c
    low_bits = _MIDPOINT_BITS.get(np.dtype(dtype))
    if low_bits is not None:
        mask, midpoint, tiny = low_bits
        suspect = ((total.view(np.uint64) & mask) == midpoint) | (np.abs(total) < tiny)
        if not suspect.any():
            return total.astype(dtype)
        if total.ndim == 1:                 # the pair and rounding to odd for those lanes only
            lanes = np.flatnonzero(suspect)
            pair = two_sum(np.broadcast_to(product, total.shape)[lanes], np.broadcast_to(c, total.shape)[lanes])
            total = total.copy() if not total.flags.writeable else total
            total[lanes] = round_to_odd(*pair)
            return total.astype(dtype)
    total, err = two_sum(product, c)
    return round_to_odd(total, err).astype(dtype)


def _midpoint_bits(dtype) -> tuple:
    """(mask of the f64 significand bits below `dtype`'s, the pattern of a midpoint there,
    `dtype`'s smallest normal): what fma_nearest tests a sum against."""
    below = 52 - np.finfo(dtype).nmant
    return np.uint64((1 << below) - 1), np.uint64(1 << (below - 1)), float(np.finfo(dtype).tiny)


_MIDPOINT_BITS = {np.dtype(t): _midpoint_bits(t) for t in (np.float32, np.float16)}


def ieee_min_max(x, y, take_min, nan_wins: bool = False):
    """IEEE minNum/maxNum per lane (take_min: bool or bool array): a NaN loses to a number, two
    NaNs give NaN, -0 counts as less than +0. nan_wins (PTX's .NaN): any NaN operand gives NaN."""
    # not np.fmin/fmax: they return NaN for a signalling NaN operand, but only
    # in NumPy's scalar loop (array-length dependent); the GPU returns the number
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(invalid="ignore"):
        if isinstance(take_min, (bool, np.bool_)):          # one instruction's min or max: one comparison
            chosen = np.where(x < y, x, y) if take_min else np.where(x > y, x, y)
        else:
            chosen = np.where(take_min, np.where(x < y, x, y), np.where(x > y, x, y))
    x_nan, y_nan = np.isnan(x), np.isnan(y)
    if x_nan.any() or y_nan.any():
        chosen = np.where(x_nan, y, np.where(y_nan, x, chosen))
    both_zero = (x == 0) & (y == 0)
    if both_zero.any():
        negative = np.where(take_min, np.signbit(x) | np.signbit(y), np.signbit(x) & np.signbit(y))
        zero = np.where(negative, -x.dtype.type(0), x.dtype.type(0))
        chosen = np.where(both_zero, zero, chosen)
    if nan_wins:
        chosen = np.where(x_nan | y_nan, x.dtype.type(np.nan), chosen)
    return chosen


def min_max_picks(x, y, take_min):
    """DSETP.MIN/MAX's two predicates for f64 x, y: whether ieee_min_max(x, y) is x (the SASS
    then selects x, else y), and whether both are NaN (it then quiets y's high word: y quieted,
    as operand_nan makes PTX's min/max.f64)."""
    chosen = ieee_min_max(x, y, take_min)
    return (chosen.view(np.uint64) == x.view(np.uint64)) & ~np.isnan(x), np.isnan(x) & np.isnan(y)


def sfu_revolutions(fn):
    """MUFU.SIN/COS of an angle t in revolutions: the SFU takes t as fixed point truncated to
    2^-25 of a revolution (so sin of |x| < 1.7e-7 is 0 on the GPU) and evaluates fn(2 pi t) on
    its fraction. Within 2^-21.5 of an H200 for all inputs, huge ones included."""
    def evaluate(t):
        t = np.trunc(t * 2.0 ** 25) * 2.0 ** -25
        fraction = t - np.round(t)
        fraction = np.where(fraction == 0, np.copysign(0.0, t), fraction)   # sin(-n) = -0
        return fn(2 * np.pi * fraction)
    return evaluate


# The special-function unit's approximations (MUFU, PTX's .approx), each modelled as the f64
# function rounded once: within PTX's bounds, but not the SFU's last bit for a fraction of
# inputs (rcp: about 1 input in 8 differs from an H200 in the last bit). sin/cos take their
# angle in revolutions (to_revolutions).
SFU_FUNCTIONS = {"rcp": lambda v: 1.0 / v, "rsqrt": lambda v: 1.0 / np.sqrt(v), "sqrt": np.sqrt,
                 "ex2": np.exp2, "lg2": np.log2, "sin": sfu_revolutions(np.sin),
                 "cos": sfu_revolutions(np.cos), "tanh": np.tanh}
SFU_FLUSHING = FloatEnv(ftz_in=True, ftz_out=True)   # MUFU itself: subnormal operands and results are 0


def sfu_approx(name: str, x, fmt=F32, env: FloatEnv = PLAIN):
    """SFU_FUNCTIONS[name] of float64 values `x` of format `fmt`, rounded to nearest in `fmt`,
    operands and results flushed as `env` says (MUFU: SFU_FLUSHING; PTX's .approx without .ftz
    covers the full range, as the scaling ptxas puts around MUFU does)."""
    (x,) = env.inputs([np.asarray(x, dtype=np.float64)], fmt)
    return env.outputs(round_to(SFU_FUNCTIONS[name](x), fmt, "rn"), fmt)


def high_word_sfu(name: str, x):
    """MUFU.RCP64H / MUFU.RSQ64H (`name` "rcp" or "rsqrt") on f64 values: the SFU reads only the
    operand's high word and writes only the result's high word (low word 0). Modelled as the
    truncated high word of the f64 function of the truncated operand; on an H200 that matches
    about 95% of inputs, the rest differ by one unit in the high word."""
    x = flush_subnormal((x.view(np.uint64) & _HIGH).view(np.float64), F64)
    y = flush_subnormal(SFU_FUNCTIONS[name](x), F64)
    bits = np.where(np.isnan(y), _HIGH_WORD_NAN, y.view(np.uint64) & _HIGH)
    return bits.view(np.float64)


INV_2PI_F32 = float(np.float32(0.15915494))          # 0x3e22f983


def to_revolutions(x):
    """The FMUL.RZ by f32(1/(2 pi)) ptxas puts before MUFU.SIN/COS (subnormal inputs flushed)."""
    return round_to(flush_subnormal(x, F32) * INV_2PI_F32, F32, "rz")


# ------------------------------------------------------------ rounded arithmetic

_ROUNDED = {"add": add_rounded, "sub": lambda x, y, fmt, mode: add_rounded(x, -y, fmt, mode),
            "mul": mul_rounded, "fma": fma_rounded}
_NUMPY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fma": fma_nearest}
# mul, fma: the operands whose exact result is `scale` times the operation's (.ftz's tininess test)
_SCALED = {"mul": lambda scale, x, y: (x * scale, y), "fma": lambda scale, x, y, z: (x * scale, y, z * scale)}
_NATIVE = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def arithmetic(op: str, type_name: str, *values, mode: str = "rn", env: FloatEnv = PLAIN, out: str | None = None,
               scale: int = 0):
    """add, sub, mul or fma (`op`) of register values of float type `type_name`, rounded once by
    `mode` to type `out` (default the same; HADD2.F32 sums f16 halves into an f32), under `env`:
    register values of `out`. Round to nearest within one NumPy type is NumPy's own IEEE
    arithmetic (f16 sums and products are exact in f64, fma rounds once through fma_nearest);
    everything else is decoded to float64 and rounded exactly by floatbits.

    `scale` (mul of f32 or narrower only): the exact product times 2^scale, rounded once (SASS's
    FMUL.D2/.D4/.D8 are -1/-2/-3, .M2/.M4/.M8 1/2/3). Rounding once differs from rounding the
    product and then scaling it where the product overflows and the scale brings it back (D2 of
    2^128: 2^127, not inf) and where the scaled result is subnormal (one rounding on the
    subnormal grid, not a second one after rounding to 24 bits); .ftz flushes operands before
    the scale and tests the scaled result."""
    out = out or type_name
    fmt, out_fmt = FORMATS[type_name], FORMATS[out]
    dtype = _NATIVE.get(type_name)
    if scale and (op != "mul" or fmt is F64):
        raise ValueError(f"a scale applies to a mul of f32 or narrower, not {op} of {type_name}")
    if mode == "rn" and out == type_name and dtype is not None and not (op == "fma" and dtype is np.float64) \
            and not scale:
        operands = env.inputs([np.asarray(v, dtype=dtype) for v in values], fmt)
        if dtype is np.float16 and op != "fma":
            result = _NUMPY[op](*(v.astype(np.float64) for v in operands)).astype(np.float16)
        else:
            result = np.asarray(_NUMPY[op](*operands), dtype=dtype)
    else:
        operands = env.inputs([decode(v, type_name) for v in values], fmt)
        if scale:               # exact in f64: an f32 operand times 2^+-3 stays in f64's normal range
            operands[0] = operands[0] * 2.0 ** scale
        result = _ROUNDED[op](*operands, out_fmt, mode)
    scaled = _SCALED.get(op)
    rescaled = None if scaled is None else (lambda scale: _ROUNDED[op](
        *scaled(scale, *(np.asarray(v, dtype=np.float64) for v in operands)), out_fmt, mode))
    result = env.outputs(np.asarray(result), out_fmt, rescaled)
    if env.nan == "operand":
        return (fma_operand_nan if op == "fma" else operand_nan)(np.asarray(result, dtype=np.float64), *values)
    in_register_type = out in _NATIVE and result.dtype == np.dtype(_NATIVE[out])
    return canonical_nan(result) if in_register_type else encode(result, out)


def min_max(type_name: str, values, take_min, env: FloatEnv = PLAIN, xorsign: bool = False):
    """min (`take_min`: bool, or a bool per lane) or max of two or more register values of float
    type `type_name`, under `env` (ftz_in, nan_wins, the NaN rule): IEEE minNum/maxNum folded
    left. `xorsign` (PTX's .xorsign.abs): compare magnitudes, the sign of the result the xor
    of the first two operands' signs."""
    x = env.inputs([decode(v, type_name) for v in values], FORMATS[type_name])
    sign = None
    if xorsign:
        sign = np.signbit(x[0]) ^ np.signbit(x[1])
        x = [np.abs(v) for v in x]
    result = x[0]
    for v in x[1:]:
        result = ieee_min_max(result, v, take_min, nan_wins=env.nan_wins)
    if sign is not None:
        result = np.where(sign, -result, result)
    if env.nan == "operand":
        result = operand_nan(result, *x)
    return encode(result, type_name)
