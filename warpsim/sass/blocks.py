"""Basic blocks of a SASS function, and which block follows which.

A block starts at the function's entry, at every label an instruction names
(branch, BSSY and CALL targets) and after every instruction that ends one; it
ends before the next start. nvdisasm also labels places nothing jumps to (the
offsets .nv.info lists, e.g. of EXITs and shuffles); those stay in the
function's `labels` but split nothing, so blocks are maximal. What ends a block, and whether control can fall through it,
is the table below: one line per opcode. A guarded terminator (`@P0 EXIT`,
`@!P1 BRA`) also falls through, for the lanes whose predicate is false, and so does one with a
predicate operand (`EXIT P1`, `BRA P2`), for the lanes where it is false.
"""

from __future__ import annotations

from .ir import BasicBlock

# opcode -> (falls through when unguarded, follows its label operand)
BLOCK_ENDS = {
    "BRA": (False, True),
    "JMP": (False, True),
    "BRX": (False, False),      # indirect: targets from nvdisasm's BRANCH_TARGETS list, when it prints one
    "JMX": (False, False),
    "EXIT": (False, False),
    "RET": (False, False),
    "KILL": (False, False),
    "BPT": (False, False),      # BPT.TRAP: the kernel stops
    "CALL": (True, False),      # returns to the next instruction; the callee is another function
    "BSYNC": (True, False),     # the reconvergence point: divergent paths meet here
    "BREAK": (True, False),
    "WARPSYNC": (True, False),
}


def _ends(ins) -> tuple | None:
    """(falls through, label target or None) when `ins` ends its block."""
    rule = BLOCK_ENDS.get(ins.opcode)
    if rule is None:
        return None
    falls, follows = rule
    target = ins.branch_target if follows else None
    return falls or ins.is_conditional, target


def split_blocks(function) -> list:
    instructions, labels = function.instructions, function.labels
    count = len(instructions)
    targets = ({ins.branch_target for ins in instructions} - {None}) | \
        {label for ins in instructions for label in ins.branch_targets}
    starts = {0} | {index for label, index in labels.items() if index < count and label in targets}
    for k, ins in enumerate(instructions):
        if _ends(ins) is not None and k + 1 < count:
            starts.add(k + 1)
    ordered = sorted(s for s in starts if s < count)
    labels_at = {}
    for label, index in labels.items():
        if label in targets:
            labels_at.setdefault(index, []).append(label)
    block_at = {start: n for n, start in enumerate(ordered)}
    blocks = []
    for n, start in enumerate(ordered):
        end = ordered[n + 1] if n + 1 < len(ordered) else count
        last = instructions[end - 1]
        ending = _ends(last)
        successors = []
        falls, target = ending if ending is not None else (True, None)
        if falls and end < count:
            successors.append(n + 1)
        if target is not None and labels.get(target, count) < count:
            successors.append(block_at[labels[target]])
        for label in last.branch_targets:       # an indirect branch's listed targets
            if labels.get(label, count) < count:
                successors.append(block_at[labels[label]])
        body = instructions[start:end]
        blocks.append(BasicBlock(
            n, start, end, tuple(labels_at.get(start, ())), tuple(dict.fromkeys(successors)),
            ptx_lines=tuple(sorted({i.ptx_line for i in body if i.ptx_line is not None})),
            source_lines=tuple(sorted({i.source for i in body if i.source is not None}))))
    _mark_reachable(blocks)
    return blocks


def _mark_reachable(blocks: list) -> None:
    if not blocks:
        return
    seen, stack = {0}, [0]
    while stack:
        for successor in blocks[stack.pop()].successors:
            if successor not in seen:
                seen.add(successor)
                stack.append(successor)
    for block in blocks:
        block.reachable = block.index in seen
