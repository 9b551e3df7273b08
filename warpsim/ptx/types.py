"""PTX scalar types: the one map from a PTX type name to its NumPy form.

Registers are stored as unsigned integers of their bit width (predicates as
bool); an instruction's type decides how those bits are read. Every place that
needs to know how wide a type is, whether it is signed or floating, or which
NumPy dtype holds its values, asks this table instead of branching per type.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PtxType:
    name: str          # 'f32', 'u16', 'pred', ...
    bits: int          # width in bits (pred: 1)
    kind: str          # 'u' unsigned, 's' signed, 'b' untyped bits, 'f' float, 'pred'
    dtype: np.dtype    # how values of this type are held for arithmetic

    @property
    def nbytes(self) -> int:
        return max(1, self.bits // 8)

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_signed(self) -> bool:
        return self.kind == "s"

    @property
    def storage(self) -> np.dtype:
        """Dtype of a register holding a value of this type (bits, unsigned)."""
        return storage_dtype(self.bits)


def storage_dtype(bits: int) -> np.dtype:
    """Register storage for a width: unsigned integers, bool for predicates."""
    return _STORAGE[bits]


_STORAGE = {
    1: np.dtype(np.bool_),
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
    128: np.dtype(np.uint64),   # .b128 is held as pairs of u64 (rare; mov/ld/st only)
}


def _ptx_type(name, bits, kind, dtype):
    return PtxType(name, bits, kind, np.dtype(dtype))


TYPES: dict[str, PtxType] = {t.name: t for t in [
    _ptx_type("pred", 1, "pred", np.bool_),
    _ptx_type("b8", 8, "b", np.uint8), _ptx_type("u8", 8, "u", np.uint8), _ptx_type("s8", 8, "s", np.int8),
    _ptx_type("b16", 16, "b", np.uint16), _ptx_type("u16", 16, "u", np.uint16), _ptx_type("s16", 16, "s", np.int16),
    _ptx_type("b32", 32, "b", np.uint32), _ptx_type("u32", 32, "u", np.uint32), _ptx_type("s32", 32, "s", np.int32),
    _ptx_type("b64", 64, "b", np.uint64), _ptx_type("u64", 64, "u", np.uint64), _ptx_type("s64", 64, "s", np.int64),
    _ptx_type("b128", 128, "b", np.uint64),
    _ptx_type("f16", 16, "f", np.float16), _ptx_type("f32", 32, "f", np.float32), _ptx_type("f64", 64, "f", np.float64),
    # bf16 has no NumPy dtype: its values travel as their raw u16 bits and the
    # float family converts through f32 explicitly.
    _ptx_type("bf16", 16, "b", np.uint16),
    # Packed pairs: held as the 32-bit word; their families unpack them.
    _ptx_type("f16x2", 32, "b", np.uint32), _ptx_type("bf16x2", 32, "b", np.uint32),
    _ptx_type("u16x2", 32, "b", np.uint32), _ptx_type("s16x2", 32, "b", np.uint32),
    # Hidden per-thread condition-code register written by add.cc and friends.
    _ptx_type("cc", 32, "u", np.uint32),
    # tf32 and e4m3/e5m2 only appear in cvt; held as their bits.
    _ptx_type("tf32", 32, "b", np.uint32),
    _ptx_type("e4m3x2", 16, "b", np.uint16), _ptx_type("e5m2x2", 16, "b", np.uint16),
]}

# Names that are type modifiers in PTX text; .cc is a modifier, not a type.
TYPE_NAMES = frozenset(TYPES) - {"cc"}


def ptx_type(name: str) -> PtxType:
    return TYPES[name.lstrip(".")]


def reinterpret(values: np.ndarray, to: PtxType) -> np.ndarray:
    """View register bits as values of `to`, truncating wider registers.

    PTX lets ld/st/cvt name registers wider than the instruction type; the low
    bits carry the value.
    """
    values = np.asarray(values)
    if to.kind == "pred":
        return values.astype(np.bool_, copy=False)
    if values.dtype == np.bool_:
        values = values.astype(np.uint32)
    bits = values.dtype.itemsize * 8
    want = to.dtype.itemsize * 8
    if bits != want:
        values = values.astype(storage_dtype(want))
    return values.view(to.dtype)


def to_storage(values, from_type: PtxType, reg_bits: int) -> np.ndarray:
    """Turn typed values into register bits of width `reg_bits`.

    A narrower value written to a wider register is sign- or zero-extended by
    its type (PTX's rule for ld and cvt destinations); float/bits are zero
    extended.
    """
    values = np.asarray(values)
    if reg_bits == 1:
        return values.astype(np.bool_, copy=False)
    if values.dtype == np.bool_:
        values = values.astype(np.uint8)
    if values.dtype != from_type.dtype and from_type.kind != "pred":
        values = values.astype(from_type.dtype)
    bits = values.dtype.itemsize * 8
    if bits == reg_bits:
        return values.view(storage_dtype(reg_bits))
    if bits < reg_bits:
        if from_type.kind == "s":
            return values.astype(np.dtype(f"int{reg_bits}")).view(storage_dtype(reg_bits))
        return values.view(storage_dtype(bits)).astype(storage_dtype(reg_bits))
    return values.view(storage_dtype(bits)).astype(storage_dtype(reg_bits))
