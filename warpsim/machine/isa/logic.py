"""Logic and shift instructions: and, or, xor, not, cnot, shl, shr, shf, lop3, prmt.

PTX defines shifts for every amount (the amount is an unsigned 32-bit value;
past the width a shift gives 0, or the sign for shr.s), while NumPy leaves a
shift by the register width or more undefined; semantics/integer.py makes
shifting total for both executors.
"""

from __future__ import annotations

import numpy as np

from ...semantics.bits import PRMT_MODE_SELECTORS, lut3, permute_bytes, prmt_mode_selectors
from ...semantics.bits import funnel_shift as funnel_shift_pair
from ...semantics.integer import shift_amount, shift_left, shift_right
from .table import Signature, same_type, value_op

BIT_TYPES = frozenset({"b16", "b32", "b64"})
LOGIC_TYPES = BIT_TYPES | {"pred"}
SHIFT_RIGHT_TYPES = BIT_TYPES | {"u16", "u32", "u64", "s16", "s32", "s64"}


# ------------------------------------------------------------------ modifier helpers

def chosen(ins, choices):
    """The one modifier of `choices` the instruction carries, or None."""
    return next((m for m in ins.mods if m in choices), None)


def no_flags(*allowed):
    """A check= that rejects any modifier outside `allowed` and more than one type."""
    def check(ins):
        extra = sorted(ins.flags - set(allowed))
        if extra:
            return f"modifier(s) {', '.join('.' + m for m in extra)} not supported on {ins.opcode}"
        if len(ins.types) != 1:
            return f"{ins.opcode} takes exactly one type, got {ins.types or 'none'}"
        return None
    return check


# --------------------------------------------------------- and, or, xor, not, cnot

_BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


@value_op("and", "or", "xor", family="logic", signature=same_type,
          types=LOGIC_TYPES, check=no_flags())
def bitwise(ins, a, b):
    """Bitwise on .bN; on .pred (NumPy bool) the same ufuncs are the Boolean ops."""
    return _BITWISE[ins.opcode](a, b)


@value_op("not", family="logic", signature=same_type, types=LOGIC_TYPES, check=no_flags())
def bitwise_not(ins, a):
    """One's complement; np.invert on bool is logical not, as not.pred wants."""
    return np.invert(a)


@value_op("cnot", family="logic", signature=same_type, types=BIT_TYPES, check=no_flags())
def c_logical_not(ins, a):
    """C's !a: 1 where a is 0, else 0. (ptxas has no cnot.pred; not.pred is that.)"""
    a = np.asarray(a)
    return (a == 0).astype(a.dtype)


# ------------------------------------------------------------------ shifts

def _shift_signature(ins) -> Signature:
    """The shift amount is always an unsigned 32-bit operand."""
    return Signature((ins.type,), (ins.type, "u32"))


@value_op("shl", family="logic", signature=_shift_signature, types=BIT_TYPES, check=no_flags())
def shl(ins, a, amount):
    return shift_left(a, amount)


@value_op("shr", family="logic", signature=_shift_signature,
          types=SHIFT_RIGHT_TYPES, check=no_flags())
def shr(ins, a, amount):
    """.sN values arrive as signed dtypes, so shift_right is arithmetic for them."""
    return shift_right(a, amount)


def _check_shf(ins):
    directions = ins.flags & {"l", "r"}
    modes = ins.flags & {"wrap", "clamp"}
    if len(directions) != 1 or len(modes) != 1:
        return "shf needs one direction (.l/.r) and one mode (.wrap/.clamp)"
    return no_flags("l", "r", "wrap", "clamp")(ins)


@value_op("shf", family="logic", types={"b32"}, check=_check_shf,
          signature=lambda ins: Signature(("b32",), ("b32", "b32", "u32")))
def funnel_shift(ins, a, b, c):
    """Shift the 64-bit b:a by c (clamped to 32, or wrapped mod 32).

    shf.l keeps the upper 32 bits of the shifted pair, shf.r the lower.
    """
    amount = shift_amount(c, wrap="wrap" in ins.flags)
    left = "l" in ins.flags
    shifted = funnel_shift_pair(a, b, amount, left)
    return ((shifted >> np.uint64(32)) if left else shifted).astype(np.uint32)


# ------------------------------------------------------------------ lop3

_LOP3_BOOL_OPS = {"and": np.logical_and, "or": np.logical_or}


def _lop3_signature(ins) -> Signature:
    if chosen(ins, _LOP3_BOOL_OPS):
        return Signature(("b32", "pred"), ("b32", "b32", "b32", "b32", "pred"))
    return Signature(("b32",), ("b32", "b32", "b32", "b32"))


def _check_lop3(ins):
    if len(ins.flags & set(_LOP3_BOOL_OPS)) > 1:
        return "lop3 takes at most one of .and/.or"
    return no_flags(*_LOP3_BOOL_OPS)(ins)


@value_op("lop3", family="logic", types={"b32"}, signature=_lop3_signature, check=_check_lop3)
def lop3(ins, a, b, c, lut, *combine):
    """Any 3-input Boolean function, given as its truth table immLut.

    Bit k of immLut is F at the inputs a=k>>2&1, b=k>>1&1, c=k&1 (that is what
    evaluating F on 0xF0, 0xCC, 0xAA means), so F is the OR of the minterms whose
    bit is set. The LUT may even differ per lane.
    """
    a, b, c = (np.asarray(x, dtype=np.uint32) for x in (a, b, c))
    result = lut3(np.asarray(lut).astype(np.uint32), a, b, c)
    bool_op = chosen(ins, _LOP3_BOOL_OPS)
    if bool_op:
        return result, _LOP3_BOOL_OPS[bool_op](result != 0, combine[0])
    return result


# ------------------------------------------------------------------ prmt

def _check_prmt(ins):
    if len(ins.flags & set(PRMT_MODE_SELECTORS)) > 1:
        return "prmt takes at most one mode"
    return no_flags(*PRMT_MODE_SELECTORS)(ins)


@value_op("prmt", family="logic", types={"b32"}, signature=same_type, check=_check_prmt)
def prmt(ins, a, b, c):
    """Pick four bytes of {b, a} (bytes 0-3 from a, 4-7 from b).

    Generic form: nibble i of c selects result byte i; a selector with bit 3
    set replicates that byte's sign bit instead of copying it.
    """
    mode = chosen(ins, PRMT_MODE_SELECTORS)
    selectors = prmt_mode_selectors(mode, c) if mode else np.asarray(c, dtype=np.uint32)
    return permute_bytes(a, b, selectors)
