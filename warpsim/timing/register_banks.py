"""Register banks: the operand reads a sub-partition's register file serves, a unit of its own.

A sub-partition's register file has two banks, the even-numbered registers and the odd ones, and
each serves one 32-bit source operand a cycle to the math instructions being dispatched. Where a
warp's instructions read more registers from one bank than it issues instructions, the bank, not
the issue slot, sets how fast the sub-partition goes (Nsight Compute counts the difference as
dispatch_stall). A source the operand-reuse cache holds is not read from its bank: the previous
instruction read the same register in the same operand slot and marked it `.reuse`.

ptxas allocates registers to spread the reads where it can: in an FMA chain of 16, 80 or 128 live
values it alternates the chain's register between an even and an odd one, so that each FFMA reads
one source from each bank; at 24 to 72 it keeps one register (`FFMA R35, Rk, R35, 0.25`), and the
odd bank serves 1.5 reads an FFMA. The twenty-fifth microbenchmark batch (validation/timing,
microbench25.cu) runs both kinds and FFMA pairs reading three registers at 1, 2 and 8 warps a
sub-partition: with enough warps the H200 takes 1.36x as long for the single-register chains as
for the alternating ones (1.5x by the banks alone) and 2.83 cycles for an FFMA pair (3 by the
banks, 2 by issues); a lone warp's chain loses nothing (its fixed stalls cover the reads).
"""

from __future__ import annotations

import numpy as np

BANKS = 2
READ_PIPES = ("fp32", "fma", "fp16", "alu")   # math whose 32-bit sources come from the register banks


def _sources(ins) -> list:
    """(slot, register number, .reuse) of each register source: the operands after the first (the
    destination), slots numbered in their order; RZ fills a slot but is no read, predicates
    (a carry-out destination, say) take none."""
    out = []
    slot = 0
    for op in ins.operands[1:]:
        if op.kind == "reg" and op.number is not None:
            out.append((slot, op.number, op.reuse))
        if op.kind in ("reg", "ureg", "imm", "const"):
            slot += 1
    return out


def bank_reads(instructions, pipes) -> np.ndarray:
    """(instructions x BANKS) reads each instruction asks of each bank: its register sources the
    reuse cache does not hold, for math (READ_PIPES) only. The reuse cache follows the code's order
    (ptxas marks reuse between neighbours) and is empty after any other instruction."""
    reads = np.zeros((len(instructions), BANKS))
    cached = {}
    for i, (ins, pipe) in enumerate(zip(instructions, pipes)):
        if pipe not in READ_PIPES or getattr(ins, "operands", None) is None:
            cached = {}
            continue
        sources = _sources(ins)
        for slot, number, _ in sources:
            if cached.get(slot) != number:
                reads[i, number % BANKS] += 1
        cached = {slot: number for slot, number, reuse in sources if reuse}
    return reads
