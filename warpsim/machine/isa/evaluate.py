"""Run one value instruction on NumPy values: the typing rules in one place.

The code generator compiles the same steps into block functions; tests use
`evaluate` directly to check a family's semantics without parsing PTX.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Imm, Instruction, Reg
from ...ptx.types import ptx_type
from .table import VALUE, lookup


def typed_immediate(imm: Imm, type_name: str):
    """An immediate as a NumPy scalar of the operand's type.

    0f/0d literals give raw bits; integers wrap into the type's width as PTX
    says; decimal floats are f64 values rounded to the type.
    """
    t = ptx_type(type_name)
    if t.kind == "pred":
        return np.bool_(bool(imm.value))
    if imm.bits:
        bits_dtype = np.uint32 if imm.bits == 32 else np.uint64
        as_float = np.array(imm.value, dtype=bits_dtype).view(
            np.float32 if imm.bits == 32 else np.float64)[()]
        if t.kind == "f":
            return t.dtype.type(as_float)
        return np.array(imm.value & ((1 << t.bits) - 1), dtype=np.uint64).astype(t.storage).view(t.dtype)[()]
    if isinstance(imm.value, float) or t.kind == "f":
        if t.name in ("bf16", "bf16x2", "f16x2"):
            raise ValueError(f"decimal immediate for {t.name}")
        return t.dtype.type(float(imm.value))
    mask = (1 << t.bits) - 1
    return np.array(int(imm.value) & mask, dtype=np.uint64).astype(t.storage).view(t.dtype)[()]


def parse_mnemonic(mnemonic: str, n_dsts: int, n_srcs: int) -> Instruction:
    """'add.sat.s32' -> an Instruction with placeholder register operands."""
    opcode, *mods = mnemonic.split(".")
    return Instruction(opcode, tuple(mods),
                       dsts=tuple(Reg(f"%d{i}") for i in range(n_dsts)),
                       srcs=tuple(Reg(f"%s{i}") for i in range(n_srcs)))


def evaluate(mnemonic: str, *sources, n_dsts: int = 1):
    """Compute `mnemonic` on typed sources; returns the typed result(s).

    Sources are NumPy arrays or scalars already of the operand types the
    instruction's signature names (as the engine would pass them).
    """
    ins = parse_mnemonic(mnemonic, n_dsts, len(sources))
    spec = lookup(ins)
    assert spec.kind == VALUE, f"{mnemonic} is not a value instruction"
    sig = spec.signature(ins)
    typed = [np.asarray(s).astype(ptx_type(t).dtype) if ptx_type(t).kind != "pred"
             else np.asarray(s, dtype=bool) for s, t in zip(sources, sig.srcs)]
    return spec.compute(ins, *typed)
