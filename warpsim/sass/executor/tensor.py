"""Tensor cores: HMMA (the warp-wide mma.sync of sm_80 and later).

`HMMA.16816.F32 Rd, Ra, Rb, Rc` is mma.sync.m16n8k16.row.col.f32.f16.f16.f32:
the shape is the modifier's digits (16816: m16n8k16, 1688: m16n8k8), the
accumulator type the next modifier (.F32 or .F16), and the inputs f16 unless
.BF16 or .TF32 says otherwise. Fragments are consecutive registers from Ra, Rb,
Rc and Rd, laid out as the PTX manual fixes them; the multiply is the PTX
machine's (machine.isa.tensor.mma_sync), so both levels compute the same
products in the same order.
"""

from __future__ import annotations

import numpy as np

from ...machine.isa.tensor import mma_sync
from .operands import U32
from .table import Step, Unsupported, semantics

SHAPES = {"16816": "m16n8k16", "1688": "m16n8k8"}
INPUTS = {"BF16": "bf16", "TF32": "tf32"}           # absent: f16
ACCUMULATORS = {"F32": "f32", "F16": "f16"}


def fragment_registers(shape: str, atype: str, ctype: str) -> tuple:
    """(A, B, C/D) registers per lane of one HMMA."""
    k16 = shape == "m16n8k16"
    if atype == "tf32":
        a, b = 4, 2
    else:
        a, b = (4, 2) if k16 else (2, 1)
    return a, b, 4 if ctype == "f32" else 2


class MmaForm:
    """What mma_sync reads of a PTX instruction: the shape and the d, a, b, c types, as modifiers."""

    def __init__(self, shape: str, atype: str, ctype: str):
        self.mods = (shape, "row", "col", ctype, atype, atype, ctype)


@semantics("HMMA", family="tensor", pipe="tensor",
           mods=tuple(SHAPES) + tuple(INPUTS) + tuple(ACCUMULATORS), warp_level=True,
           doc="mma.sync: .16816 (m16n8k16) or .1688 (m16n8k8) of f16, .BF16 or .TF32 inputs into .F32 or .F16; "
               "the PTX machine's multiply")
def hmma(ins):
    shape = next((SHAPES[m] for m in ins.mods if m in SHAPES), None)
    ctype = next((ACCUMULATORS[m] for m in ins.mods if m in ACCUMULATORS), None)
    atype = next((INPUTS[m] for m in ins.mods if m in INPUTS), "f16")
    if shape is None or ctype is None or (atype == "tf32" and shape != "m16n8k8"):
        raise Unsupported("HMMA shape")
    ops = ins.operands
    if len(ops) != 4 or any(op.kind != "reg" for op in ops):
        raise Unsupported("operand form")
    counts = fragment_registers(shape, atype, ctype)
    form = MmaForm(shape, atype, ctype)
    d, a, b, c = ops

    def read(st, g, op, count):
        if op.number is None:
            return np.zeros((g.n, count), dtype=U32)
        return np.stack([st.R[op.number + k][g.sel] for k in range(count)], axis=1)

    def run(st, g):
        words = mma_sync(st, g.idx, form, read(st, g, a, counts[0]), read(st, g, b, counts[1]),
                         read(st, g, c, counts[2]))
        if d.number is not None:
            for k in range(counts[2]):
                st.R[d.number + k][g.sel] = words[:, k]
    return Step(ins, run)
