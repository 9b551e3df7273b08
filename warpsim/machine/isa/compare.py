"""Comparison and selection: setp, set, selp, slct.

What a comparison computes, NaN rules included, is semantics/compare.py's
(SASS's ISETP/FSETP/DSETP share it); this module decodes the modifiers and the
operand types. .ftz flushes subnormal inputs to a zero of the same sign.
Half-precision values: .f16 arrives as float16, .bf16 as its raw u16 bits
(widened here) and the packed .f16x2/.bf16x2 as the raw 32-bit word, whose
halves semantics/packed.py compares (HSETP2/HSET2 too).
"""

from __future__ import annotations

import numpy as np

from ...ptx.types import TYPES
from ...semantics.compare import NAN_TESTS, ORDERED, UNORDERED, UNSIGNED, compare
from ...semantics.floatbits import bf16_to_f32, flush_subnormal
from ...semantics.packed import pack_truths, packed_compare
from .table import FLOAT_TYPES, INT_TYPES, Signature, value_op

COMPARE_OPS = frozenset(ORDERED) | frozenset(UNSIGNED) | frozenset(UNORDERED) | frozenset(NAN_TESTS)
BOOL_OPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}

PACKED_HALVES = frozenset({"f16x2", "bf16x2"})
NUMERIC_TYPES = (INT_TYPES - {"pred", "b8", "u8", "s8"}) | FLOAT_TYPES
FTZ_TYPES = frozenset({"f32", "f16", "f16x2"})


# ------------------------------------------------------------------ operand decoding

def _comparable(values, type_name: str, ftz: bool):
    """The operand as a comparable array (bf16 widened), subnormals flushed under .ftz."""
    part = bf16_to_f32(values) if type_name == "bf16" else np.asarray(values)
    return flush_subnormal(part) if ftz else part


# ------------------------------------------------------------------ modifiers

def _compare_op(ins) -> str:
    return next(m for m in ins.mods if m in COMPARE_OPS)


def _bool_op(ins):
    found = ins.flags & set(BOOL_OPS)
    return next(iter(found)) if found else None


def _check_compare(ins, source_type: str, extra_flags=()):
    """The checks setp and set share: one CmpOp valid for the source type, at most one BoolOp."""
    ops = [m for m in ins.mods if m in COMPARE_OPS]
    if len(ops) != 1:
        return f"{ins.opcode} needs exactly one comparison operator"
    op = ops[0]
    is_float = TYPES[source_type].is_float or source_type in ("bf16", "bf16x2", "f16x2")
    if is_float and op in UNSIGNED:
        return f".{op} is an unsigned-integer comparison, not valid on .{source_type}"
    if not is_float and (op in UNORDERED or op in NAN_TESTS):
        return f".{op} is a floating-point comparison, not valid on .{source_type}"
    if TYPES[source_type].kind == "b" and not is_float and op not in ("eq", "ne"):
        return f"only .eq/.ne compare bit types like .{source_type} (as ptxas rules)"
    if TYPES[source_type].is_signed and op in UNSIGNED:
        return f".{op} is an unsigned comparison, not valid on .{source_type}"
    if len(ins.flags & set(BOOL_OPS)) > 1:
        return f"{ins.opcode} takes at most one of .and/.or/.xor"
    if "ftz" in ins.flags and source_type not in FTZ_TYPES:
        return f".ftz is not defined for .{source_type}"
    extra = ins.flags - COMPARE_OPS - set(BOOL_OPS) - {"ftz"} - set(extra_flags)
    if extra:
        return f"modifier(s) {sorted(extra)} not supported on {ins.opcode}"
    return None


def _truths(ins, a, b, source_type: str):
    """(a CmpOp b) per lane: one array, or (low, high) for packed halves (semantics/packed.py)."""
    ftz = "ftz" in ins.flags
    op = _compare_op(ins)
    if source_type in PACKED_HALVES:
        return list(packed_compare(op, source_type[:-2], a, b, ftz))
    return [compare(op, _comparable(a, source_type, ftz), _comparable(b, source_type, ftz))]


# ------------------------------------------------------------------ setp

def _setp_signature(ins) -> Signature:
    t = ins.type
    combine = ("pred",) if _bool_op(ins) else ()
    return Signature(("pred",) * max(1, len(ins.dsts)), (t, t) + combine)


def _check_setp(ins):
    if len(ins.types) != 1:
        return f"setp takes exactly one type, got {ins.types or 'none'}"
    return _check_compare(ins, ins.type)


@value_op("setp", family="compare", signature=_setp_signature, types=NUMERIC_TYPES,
          check=_check_setp)
def setp(ins, a, b, *combine):
    """p = BoolOp(t, c) and q = BoolOp(!t, c); for packed halves p and q take the
    low and high halves' results instead. `!c` arrives already negated."""
    truths = _truths(ins, a, b, ins.type)
    if len(truths) == 1:
        truths = [truths[0], ~truths[0]]
    bool_op = _bool_op(ins)
    if bool_op:
        truths = [BOOL_OPS[bool_op](t, combine[0]) for t in truths]
    return truths[0] if len(ins.dsts) <= 1 else tuple(truths)


# ------------------------------------------------------------------ set

# 1.0 in each half-precision format, as the raw bits the registers hold.
_HALF_ONE = {"f16": 0x3C00, "bf16": 0x3F80}


def _true_value(dest_type: str):
    """What set writes for true: 1.0 for floats, all ones for integers."""
    t = TYPES[dest_type]
    if dest_type == "bf16":
        return t.dtype.type(_HALF_ONE["bf16"])
    if t.is_float:
        return t.dtype.type(1.0)
    return np.asarray((1 << t.bits) - 1, dtype=t.storage).view(t.dtype)[()]


def _packed_true_half(dest_type: str) -> int:
    """For packed sources each 16-bit half of the result is set separately."""
    return {"f16x2": _HALF_ONE["f16"], "bf16x2": _HALF_ONE["bf16"]}.get(dest_type, 0xFFFF)


def _set_signature(ins) -> Signature:
    dest_type, source_type = ins.types
    combine = ("pred",) if _bool_op(ins) else ()
    return Signature((dest_type,), (source_type, source_type) + combine)


def _check_set(ins):
    if len(ins.types) != 2:
        return f"set needs .dtype.stype, got {ins.types or 'none'}"
    dest_type, source_type = ins.types
    if source_type in PACKED_HALVES:
        allowed = {"u32", "s32", source_type}
    else:
        allowed = {"u32", "s32", "f32", "u16", "s16", "f16", "bf16"}
    if dest_type not in allowed:
        return f"set.{dest_type}.{source_type} is not a PTX destination/source pairing"
    return _check_compare(ins, source_type)


@value_op("set", family="compare", signature=_set_signature, types=NUMERIC_TYPES,
          check=_check_set)
def set_(ins, a, b, *combine):
    """Like setp, but writes 1.0 (floats) or all ones (integers) for true, 0 for false."""
    dest_type, source_type = ins.types
    truths = _truths(ins, a, b, source_type)
    bool_op = _bool_op(ins)
    if bool_op:
        truths = [BOOL_OPS[bool_op](t, combine[0]) for t in truths]
    dtype = TYPES[dest_type].dtype
    if source_type in PACKED_HALVES:
        return pack_truths(*truths, _packed_true_half(dest_type)).view(dtype)
    return np.where(truths[0], _true_value(dest_type), dtype.type(0))


# ------------------------------------------------------------------ selp, slct

SELECT_TYPES = NUMERIC_TYPES


@value_op("selp", family="compare", types=SELECT_TYPES,
          signature=lambda ins: Signature((ins.type,), (ins.type, ins.type, "pred")),
          check=lambda ins: None if len(ins.types) == 1 and not ins.flags
          else "selp takes one type and no modifiers")
def selp(ins, a, b, c):
    """d = c ? a : b, bits copied unchanged (NaN payloads included)."""
    return np.where(c, a, b)


def _check_slct(ins):
    if len(ins.types) != 2 or ins.types[1] not in ("s32", "f32"):
        return "slct needs .dtype.s32 or .dtype.f32"
    if ins.flags - {"ftz"} or ("ftz" in ins.flags and ins.types[1] != "f32"):
        return "slct accepts only .ftz, and only with an .f32 selector"
    return None


def _slct_signature(ins) -> Signature:
    """slct.dtype.ctype d, a, b, c: d, a, b are dtype; the selector c is ctype."""
    data_type, selector_type = ins.types
    return Signature((data_type,), (data_type, data_type, selector_type))


@value_op("slct", family="compare", types=SELECT_TYPES, check=_check_slct,
          signature=_slct_signature)
def slct(ins, a, b, c):
    """d = (c >= 0) ? a : b. For .f32 c: -0.0 selects a, NaN selects b, and
    .ftz makes a negative subnormal a -0.0 (so it selects a)."""
    c = np.asarray(c)
    if "ftz" in ins.flags:
        c = flush_subnormal(c)
    return np.where(c >= 0, a, b)
