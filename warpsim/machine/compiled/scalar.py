"""Compiled emitters: a value instruction as one expression over one lane's register bits.

Each emitter receives the lane's operands already as storage-typed source
text (uint32/uint64 bits, bool predicates) and returns the expression of the
destination's bits, or None when the instruction has a form the compiled
tier does not cover exactly (the block then stays on the NumPy tier). The
table entry decides which family an instruction belongs to; the emitters are
keyed by (family, opcode) of that entry, so an opcode the NumPy tier gives
to another family is never compiled by mistake. Semantics are those of the
NumPy tier, written with the exact helpers of runtime.py; the differential
tests (tests/machine/test_tiers*.py) run both on the same inputs.
"""

from __future__ import annotations

import numpy as np

from ...semantics.compare import ORDERED, UNORDERED
from ...semantics.conversion import INT_ROUNDING
from ..isa.floating import contraction_signs
from ..isa.integer import DIVIDE_BY_ZERO

SCALAR: dict[tuple, callable] = {}        # (family, opcode) -> emitter(ins, srcs) -> expr | None

INT32 = {"b32", "u32", "s32"}
INT64 = {"b64", "u64", "s64"}
COMPARE_F32 = {test: code for code, test in enumerate(ORDERED)}   # runtime.compare_f32's codes
COMPARE_INT = {"eq": "==", "ne": "!="}
ORDER = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}


def scalar(family: str, *opcodes: str):
    def deco(fn):
        for opcode in opcodes:
            SCALAR[(family, opcode)] = fn
        return fn
    return deco


def gives_all_ones(by_zero) -> bool:
    """Whether a DIVIDE_BY_ZERO rule gives all ones, the result runtime.py's divisions give."""
    dividends = np.array([0, 1, -5, np.iinfo(np.int64).min], dtype=np.int64)
    return bool((np.asarray(by_zero(dividends)).view(np.uint64) == np.uint64(2**64 - 1)).all())


def _only(ins, *allowed) -> bool:
    """No modifier beyond the allowed ones (types are checked by the caller)."""
    return not (ins.flags - set(allowed))


# ------------------------------------------------------------ integer

@scalar("integer", "add", "sub")
def integer_add_sub(ins, srcs):
    if not _only(ins) or ins.type not in INT32 | INT64:
        return None
    width = 32 if ins.type in INT32 else 64
    return f"{ins.opcode}{width}({srcs[0]}, {srcs[1]})"


@scalar("integer", "mul", "mad")
def integer_mul_mad(ins, srcs):
    if ins.flags == {"wide"} and ins.type in ("u32", "s32"):
        return wide_product(ins, srcs)
    if ins.flags == {"hi"} and ins.type in ("u32", "s32"):      # the 64-bit product's high word (the
        high = f"np.uint32({wide_product(ins, srcs[:2])} >> np.uint64(32))"     # division by a constant)
        return high if ins.opcode == "mul" else f"add32({high}, {srcs[2]})"
    if ins.flags != {"lo"} or ins.type not in INT32 | INT64:
        return None
    width = 32 if ins.type in INT32 else 64
    return f"{ins.opcode}{width}({', '.join(srcs)})"


def wide_product(ins, srcs):
    """mul.wide / mad.wide of 32-bit operands: the whole 64-bit product (signed: of the s32 values),
    plus srcs[2] where there is one."""
    a, b = srcs[:2]
    if ins.type == "s32":
        product = f"np.uint64(s32({a}) * s32({b}))"
    else:
        product = f"(np.uint64({a}) * np.uint64({b}))"
    return product if len(srcs) == 2 else f"add64({product}, {srcs[2]})"


@scalar("integer", "div", "rem")
def integer_div_rem(ins, srcs):
    """Truncating; a zero divisor gives all ones where DIVIDE_BY_ZERO says so (runtime.py)."""
    if not _only(ins) or ins.type not in INT32 | INT64 or ins.type.startswith("b"):
        return None
    signed = ins.type.startswith("s")
    if not gives_all_ones(DIVIDE_BY_ZERO[(ins.opcode, signed)]):
        return None
    width = 32 if ins.type in INT32 else 64
    return f"{'s' if signed else 'u'}{ins.opcode}{width}({srcs[0]}, {srcs[1]})"


@scalar("integer", "min", "max")
def integer_min_max(ins, srcs):
    if not _only(ins) or ins.type not in INT32 | INT64 or ins.type.startswith("b"):
        return None
    a, b = srcs
    if ins.type == "s32":
        less = f"s32({a}) < s32({b})"
    elif ins.type == "s64":
        less = f"signed_less64({a}, {b})"
    else:
        less = f"{a} < {b}"
    return f"({a} if {less} else {b})" if ins.opcode == "min" else f"({b} if {less} else {a})"


@scalar("integer", "neg")
def integer_neg(ins, srcs):
    """-x modulo 2**width (-INT_MIN is INT_MIN, semantics/integer.negate)."""
    if not _only(ins) or ins.type not in {"s32", "s64"}:
        return None
    return f"sub{32 if ins.type == 's32' else 64}(0, {srcs[0]})"


@scalar("integer", "popc")
def integer_popc(ins, srcs):
    if not _only(ins) or ins.type not in {"b32", "b64"}:
        return None
    return f"popc64({srcs[0]})"


@scalar("integer", "bfe")
def integer_bfe(ins, srcs):
    if not _only(ins) or ins.type not in {"u32", "s32"}:
        return None
    return f"bfe32({srcs[0]}, {srcs[1]}, {srcs[2]}, {ins.type == 's32'})"


# ------------------------------------------------------------ logic

@scalar("logic", "and", "or", "xor")
def bitwise(ins, srcs):
    if not _only(ins) or ins.type not in INT32 | INT64 | {"pred"}:
        return None
    symbol = {"and": "&", "or": "|", "xor": "^"}[ins.opcode]
    if ins.type == "pred":
        symbol = {"and": "and", "or": "or", "xor": "!="}[ins.opcode]
    return f"({srcs[0]} {symbol} {srcs[1]})"


@scalar("logic", "not")
def bitwise_not(ins, srcs):
    if not _only(ins) or ins.type not in INT32 | INT64 | {"pred"}:
        return None
    return f"(not {srcs[0]})" if ins.type == "pred" else f"(~{srcs[0]})"


@scalar("logic", "shl", "shr")
def shift(ins, srcs):
    if not _only(ins) or ins.type not in INT32 | INT64:
        return None
    width = 32 if ins.type in INT32 else 64
    kind = "" if ins.opcode == "shl" else ("_s" if ins.type.startswith("s") else "_u")
    return f"{ins.opcode}{kind}{width}({srcs[0]}, {srcs[1]})"


# ------------------------------------------------------------ compare

@scalar("compare", "setp")
def setp(ins, srcs):
    """setp with one destination and no combining predicate: integers' ordered comparisons, f32's
    (.ftz) and f64's ordered and unordered ones."""
    if len(ins.dsts) != 1 or len(srcs) != 2:
        return None
    comparisons = ins.flags & (set(COMPARE_F32) | set(UNORDERED) | set(ORDER))
    if len(comparisons) != 1 or ins.flags - comparisons - {"ftz"}:
        return None
    cmp = next(iter(comparisons))
    a, b = srcs
    if ins.type in ("f32", "f64"):
        ordered = UNORDERED.get(cmp, cmp)
        if ordered not in COMPARE_F32 or ins.type == "f64" and "ftz" in ins.flags:
            return None
        if "ftz" in ins.flags:
            a, b = f"flush32({a})", f"flush32({b})"
        return f"compare_{ins.type}({a}, {b}, {COMPARE_F32[ordered]}, {cmp in UNORDERED})"
    if "ftz" in ins.flags or ins.type not in INT32 | INT64:
        return None
    if cmp in COMPARE_INT:
        return f"({a} {COMPARE_INT[cmp]} {b})"
    signed = ins.type.startswith("s") and cmp in ("lt", "le", "gt", "ge")
    if ins.type.startswith("b") and cmp in ("lt", "le", "gt", "ge"):
        return None
    if signed and ins.type == "s32":
        return f"(s32({a}) {ORDER[cmp]} s32({b}))"
    if signed:
        return f"(({a} ^ SIGN64) {ORDER[cmp]} ({b} ^ SIGN64))"
    return f"({a} {ORDER[cmp]} {b})"


@scalar("compare", "selp")
def selp(ins, srcs):
    if not _only(ins) or ins.type not in INT32 | INT64 | {"f32", "f64"}:
        return None
    return f"({srcs[0]} if {srcs[2]} else {srcs[1]})"


# ------------------------------------------------------------ floating

@scalar("floating", "add", "sub", "mul")
def float_arith(ins, srcs):
    """f32 with .rn and .ftz; f64 with .rn (the FP64 unit's NaN rules: runtime.py)."""
    if ins.type == "f64" and _only(ins, "rn"):
        if ins.contracted >= 0:
            return contracted(ins, srcs, "f64")
        return f"{ins.opcode}_f64({srcs[0]}, {srcs[1]})"
    if ins.type != "f32" or not _only(ins, "rn", "ftz"):
        return None
    if ins.contracted >= 0:
        return contracted(ins, srcs, "f32")
    return f"{ins.opcode}_f32({srcs[0]}, {srcs[1]}, {'ftz' in ins.flags})"


def contracted(ins, srcs, type_name: str):
    """An add/sub ptxas fused with its multiply (srcs[2:]): one fma, signs by the NumPy tier's rule
    (a negation flips the sign bit, NaNs included)."""
    negate_product, negate_other = contraction_signs(ins)
    x, y = srcs[2:]
    other = srcs[1 - ins.contracted]
    word, sign = ("np.uint32", "SIGN32") if type_name == "f32" else ("np.uint64", "SIGN64")
    if negate_product:
        x = f"{word}({x} ^ {sign})"
    if negate_other:
        other = f"{word}({other} ^ {sign})"
    if type_name == "f64":
        return f"fma_f64({x}, {y}, {other})"
    return f"fma_f32({x}, {y}, {other}, {'ftz' in ins.flags})"


@scalar("floating", "fma", "mad")
def float_fma(ins, srcs):
    if ins.type == "f64" and _only(ins, "rn"):
        return f"fma_f64({srcs[0]}, {srcs[1]}, {srcs[2]})"
    if ins.type != "f32" or not _only(ins, "rn", "ftz"):
        return None
    return f"fma_f32({srcs[0]}, {srcs[1]}, {srcs[2]}, {'ftz' in ins.flags})"


@scalar("floating", "min", "max")
def float_min_max(ins, srcs):
    if ins.type != "f32" or not _only(ins, "ftz") or len(srcs) != 2:
        return None
    return f"min_max_f32({srcs[0]}, {srcs[1]}, {ins.opcode == 'min'}, {'ftz' in ins.flags})"


@scalar("floating", "abs", "neg")
def float_abs_neg(ins, srcs):
    negate = ins.opcode == "neg"
    if ins.type == "f32" and _only(ins, "ftz"):
        return f"abs_neg_f32({srcs[0]}, {negate}, {'ftz' in ins.flags})"
    if ins.type == "f64" and _only(ins):
        return f"abs_neg_f64({srcs[0]}, {negate})"
    return None


@scalar("floating", "div", "rcp", "sqrt")
def float_rounded_once(ins, srcs):
    """div.rn, rcp.rn, sqrt.rn of f32 (with or without .ftz): IEEE's one rounding; .approx and .full
    are the SFU's and stay on the NumPy tier. sqrt.rn.f64 is NumPy's (x86's) sqrt, NaNs included."""
    if ins.opcode == "sqrt" and ins.type == "f64" and _only(ins, "rn"):
        return f"bits64_of(np.sqrt(f64_of({srcs[0]})))"
    if ins.type != "f32" or "rn" not in ins.flags or not _only(ins, "rn", "ftz"):
        return None
    return f"{ins.opcode}_f32({', '.join(srcs)}, {'ftz' in ins.flags})"


# ------------------------------------------------------------ conversion

@scalar("conversion", "cvt")
def convert(ins, srcs):
    if not ins.flags and len(ins.types) == 2 and set(ins.types) <= INT32 | INT64:
        return integer_resize(ins.types[0], ins.types[1], srcs[0])
    rounding = ins.flags - {"ftz"}
    if len(rounding) == 1 and rounding <= set(INT_ROUNDING) and ins.types in (("s32", "f32"), ("u32", "f32")):
        mode = next(iter(rounding)).upper()                                  # runtime's RNI, RZI, RMI, RPI
        return f"{ins.types[0]}_from_f32({srcs[0]}, {mode}, {'ftz' in ins.flags})"
    if ins.types == ("f64", "f32") and ins.flags <= {"ftz"}:
        return f"f64_from_f32({srcs[0]}, {'ftz' in ins.flags})"
    if ins.types == ("f32", "f64") and ins.flags in ({"rn"}, {"rn", "ftz"}):
        return f"f32_from_f64({srcs[0]}, {'ftz' in ins.flags})"
    if ins.flags != {"rn"} or len(ins.types) != 2 or ins.types[0] != "f32":
        return None
    source = ins.types[1]
    if source == "s32":
        return f"f32_from_s32({srcs[0]})"
    if source == "u32":
        return f"f32_from_u32({srcs[0]})"
    return None


def integer_resize(destination: str, source: str, value: str) -> str:
    """cvt between 32- and 64-bit integers without .sat: a wider destination extends the source
    as its type says (sign or zero), a narrower one keeps the low bits."""
    if destination in INT32:
        return f"u32({value})" if source in INT64 else value
    if source in INT64:
        return value
    return f"np.uint64(s32({value}))" if source == "s32" else f"np.uint64({value})"
