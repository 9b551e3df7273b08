"""Which PTX add/sub ptxas fused with a multiply, read from the SASS it made.

The PTX machine asks at load time (machine/contraction.py gives the candidates:
an add/sub with a contractable multiply behind a source). The module is compiled
once with ptxas (the cubin and listing cached on disk, shared with every other
SASS user of the module) and each candidate's PTX line is looked up: an FFMA,
DFMA or HFMA2 there and no FADD, DADD or HADD2 means the GPU adds the product
unrounded. Where both sources are products, the one the FFMA takes as its
addend is the one ptxas kept (its own FMUL wrote that register); the other is
fused. Without ptxas, or when ptxas refuses the PTX, nothing is fused.
"""

from __future__ import annotations

FUSED = frozenset({"FFMA", "DFMA", "HFMA2"})
UNFUSED = frozenset({"FADD", "DADD", "HADD2"})
PRODUCTS = frozenset({"FMUL", "DMUL", "HMUL2"})


def fused_by_ptxas(sass, candidates) -> dict:
    """{add/sub instruction: the mul instruction ptxas fused into it}, from the module's SASS."""
    at_line: dict = {}
    for fn in sass.functions.values():
        for ins in fn.instructions:
            if ins.ptx_line:
                at_line.setdefault(ins.ptx_line, []).append(ins)
    fused = {}
    for candidate in candidates:
        mul = _fused_multiply(candidate, at_line)
        if mul is not None:
            fused[candidate.add] = mul
    return fused


def _fused_multiply(candidate, at_line):
    add = candidate.add
    here = at_line.get(add.line, ())
    opcodes = {ins.opcode for ins in here}
    fmas = [ins for ins in here if ins.opcode in FUSED and not _times_one(ins)]
    if not fmas or opcodes & UNFUSED or any(mul.line == add.line for _, mul, _ in candidate.multiplies):
        return None
    if len(candidate.multiplies) == 1:
        return candidate.multiplies[0][1]
    (_, first, _), (_, second, _) = candidate.multiplies
    addend = fmas[0].operands[3].name if len(fmas[0].operands) > 3 else None
    kept_first = addend in _products_written(first, at_line)
    kept_second = addend in _products_written(second, at_line)
    if kept_first != kept_second:
        return second if kept_first else first
    lone_first, lone_second = (not _products_written(m, at_line) for m in (first, second))
    if lone_first != lone_second:            # no FMUL of its own left: the fused one
        return first if lone_first else second
    return None


def _products_written(mul, at_line) -> set:
    return {ins.operands[0].name for ins in at_line.get(mul.line, ())
            if ins.opcode in PRODUCTS and ins.operands}


def _times_one(ins) -> bool:
    """HFMA2 a, 1, 1, c, FFMA RZ, ... and the like: an add or a move ptxas put on the FMA pipe,
    not a fused product."""
    return any((op.kind == "imm" and op.value in (1, 1.0)) or (op.kind == "reg" and op.number is None)
               for op in ins.operands[1:3])
