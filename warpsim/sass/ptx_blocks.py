"""Which PTX block each SASS instruction of a kernel follows, and what that gives each PTX block.

ptxas turns a PTX block into SASS instructions under its PTX lines, splits 64-bit operations in
two, unrolls loops into copies, and places moves after a loop's branch. Two users read the PTX
run through this mapping: the timing model, which gives each SASS instruction the count of the
PTX block it follows (timing/execution.PtxRecorder), and the clock a PTX run reads, which
advances per PTX block by the cycles of the SASS it stands for (ptx_block_cycles, the machine's
clock source: sass/__init__.py).
"""

from __future__ import annotations

import numpy as np


def ptx_block_of_sass(program, function) -> list:
    """Per SASS instruction of `function`: the gid of the PTX block whose execution it follows, or
    None (no PTX line of the program). That is its PTX line's block, except for an instruction under
    a PTX branch's line placed after that line's first SASS branch: a BSYNC, BRA or move on the way
    out of a loop, which runs as often as the block the branch falls through to. Kept per (program,
    function)."""
    kept = program.__dict__.setdefault("_ptx_block_of_sass", {})
    if id(function) not in kept:
        block_of_line = {ins.line: block.gid for block in program.blocks for ins in block.instructions
                         if getattr(ins, "line", None)}
        falls_to = {b.instructions[-1].line: b.next_gid for b in program.blocks
                    if b.instructions and b.next_gid >= 0 and getattr(b.instructions[-1], "line", None)}
        branch_at: dict = {}                # PTX line -> the index of its first SASS branch
        for k, ins in enumerate(function.instructions):
            if ins.ptx_line in falls_to and ins.opcode == "BRA":
                branch_at.setdefault(ins.ptx_line, k)
        kept[id(function)] = (function, [
            falls_to[ins.ptx_line] if k > branch_at.get(ins.ptx_line, k) else block_of_line.get(ins.ptx_line)
            for k, ins in enumerate(function.instructions)])
    return kept[id(function)][1]


def block_copies(program, function, of_sass: list) -> np.ndarray:
    """Per PTX block (by gid): how many copies of it the function's SASS holds, 1 or more. A loop
    ptxas unrolled k times gives each of the block's lines k copies of one SASS instruction; a
    64-bit operation's halves give a line two that differ (IADD3 and IADD3.X, ISETP.GE.U32 and
    ISETP.GE.AND.EX), a 64-bit move two alike. So a line's copies are those of its most repeated
    SASS instruction, and the block's the most common of its lines' (the smallest of a tie)."""
    alike: dict = {}
    for ins, gid in zip(function.instructions, of_sass):
        if gid is not None:
            key = (gid, ins.ptx_line, ins.full_opcode)
            alike[key] = alike.get(key, 0) + 1
    per_line: dict = {}
    for (gid, line, _), n in alike.items():
        per_line[gid, line] = max(per_line.get((gid, line), 0), n)
    counts_of: dict = {}
    for (gid, _), n in per_line.items():
        counts_of.setdefault(gid, []).append(n)
    copies = np.ones(len(program.blocks))
    for gid, counts in counts_of.items():
        values, times = np.unique(counts, return_counts=True)
        copies[gid] = values[np.argmax(times)]
    return copies


def ptx_block_cycles(program, function):
    """Per PTX block (by gid): the issue cycles of the SASS that one warp's issue of it stands for,
    float64, or None where no SASS instruction names a PTX line of the program. A SASS block issues
    as a whole: its clock cycles (SassFunction.block_clock_cycles: stall counts, an S2R's wait, a
    taken branch's refetch, as the SASS executor's clock counts them) go to the PTX block most of
    its instructions follow (ptx_block_of_sass; the first of a tie); a block ptxas copied counts a
    copy's (block_copies). The PTX machine's clock then advances as the SASS executor's does over
    the same path (machine/engine.block_cycles). Kept per (program, function)."""
    kept = program.__dict__.setdefault("_ptx_block_cycles", {})
    if id(function) in kept:
        return kept[id(function)][1]
    of_sass = ptx_block_of_sass(program, function)
    cycles = np.zeros(len(program.blocks), dtype=np.float64)
    mapped = False
    for sblock in function.blocks:
        votes: dict = {}
        for gid in of_sass[sblock.start:sblock.end]:
            if gid is not None:
                votes[gid] = votes.get(gid, 0) + 1
        if sblock.reachable and votes:
            mapped = True
            cycles[max(votes, key=votes.get)] += function.block_clock_cycles(sblock.start, sblock.end)
    cycles = cycles / block_copies(program, function, of_sass) if mapped else None
    kept[id(function)] = (function, cycles)
    return cycles

