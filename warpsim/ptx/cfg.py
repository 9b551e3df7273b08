"""Basic blocks, control-flow graph and immediate post-dominators of a Function.

Block boundaries are placed where the machine must look at a warp between
instructions: after branches, calls, returns and exits; at labels; and before
every instruction where lanes of a warp or threads of a CTA meet (barriers and
`.sync` warp operations), so the scheduler can hold a group there until its
partners arrive. A barrier is a block of its own.

Which instructions those are is the machine's instruction table's answer, not
this module's: the caller passes the two predicates (machine.program passes
the table's is_warp_sync and is_cta_barrier). Without them only control flow
splits blocks, which is all a register-liveness analysis needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .ir import Function, Instruction, Sym

ENDS_BLOCK = frozenset({"bra", "brx", "ret", "exit", "trap", "call"})


def never(ins: Instruction) -> bool:
    return False


@dataclass
class Block:
    id: int                       # index in CFG.blocks
    start: int                    # first instruction index in Function.body
    end: int                      # one past the last
    successors: list = field(default_factory=list)
    predecessors: list = field(default_factory=list)
    ipdom: int | None = None      # immediate post-dominator (None: the virtual exit)

    @property
    def size(self) -> int:
        return self.end - self.start


class CFG:
    """Blocks of `fn`, split also where `is_warp_sync` (lanes of a warp meet: the
    block starts there) and `is_cta_barrier` (threads of a CTA meet: a block of
    its own) say so."""

    def __init__(self, fn: Function, is_warp_sync: Callable[[Instruction], bool] = never,
                 is_cta_barrier: Callable[[Instruction], bool] = never):
        self.fn = fn
        self.is_warp_sync, self.is_cta_barrier = is_warp_sync, is_cta_barrier
        self.blocks: list[Block] = []
        self.block_of_index: dict[int, int] = {}
        self._split()
        self._link()
        self._post_dominators()

    def _split(self):
        body = self.fn.body
        leaders = {0} if body else set()
        leaders.update(i for i in self.fn.labels.values() if i < len(body))
        for k, ins in enumerate(body):
            if ins.opcode in ENDS_BLOCK and k + 1 < len(body):
                leaders.add(k + 1)
            barrier = self.is_cta_barrier(ins)
            if barrier or self.is_warp_sync(ins):
                leaders.add(k)
            if barrier and k + 1 < len(body):
                leaders.add(k + 1)
        starts = sorted(leaders)
        for n, start in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(body)
            self.blocks.append(Block(n, start, end))
            self.block_of_index[start] = n

    def block_at(self, index: int) -> int | None:
        """Block starting at instruction `index` (None: falls off the end)."""
        return self.block_of_index.get(index)

    def target_block(self, label: str) -> int:
        return self.block_of_index[self.fn.labels[label]]

    def _link(self):
        body = self.fn.body
        for b in self.blocks:
            last = body[b.end - 1]
            succ = []
            if last.opcode == "bra":
                target = last.srcs[0]
                label = target.name if isinstance(target, Sym) else str(target)
                succ.append(self.target_block(label))
                if last.guard is not None:
                    nxt = self.block_at(b.end)
                    if nxt is not None:
                        succ.append(nxt)
            elif last.opcode == "brx":
                succ.extend(self.target_block(lbl) for lbl in self.branch_table(last))
            elif last.opcode in ("ret", "exit", "trap") and last.guard is None:
                pass
            else:
                nxt = self.block_at(b.end)
                if nxt is not None:
                    succ.append(nxt)
            b.successors = list(dict.fromkeys(succ))
        for b in self.blocks:
            for s in b.successors:
                self.blocks[s].predecessors.append(b.id)

    def branch_table(self, ins: Instruction) -> list:
        """Labels of a brx.idx table (declared with .branchtargets)."""
        return []

    def _post_dominators(self):
        """Iterative post-dominator sets on the reversed graph; exit is virtual node -1."""
        n = len(self.blocks)
        if n == 0:
            return
        exits = [b.id for b in self.blocks if not b.successors]
        everything = frozenset(range(n)) | {-1}
        pdom = {b: everything for b in range(n)}
        changed = True
        order = list(reversed(range(n)))
        while changed:
            changed = False
            for b in order:
                succ = self.blocks[b].successors
                if not succ:
                    new = frozenset({b, -1})
                else:
                    inter = None
                    for s in succ:
                        inter = pdom[s] if inter is None else inter & pdom[s]
                    new = inter | {b}
                if new != pdom[b]:
                    pdom[b] = new
                    changed = True
        for b in range(n):
            strict = pdom[b] - {b}
            # The immediate post-dominator is the strict one post-dominated by all others.
            ipdom = None
            for c in strict:
                if c == -1:
                    continue
                if all(d == c or d == -1 or d in pdom[c] for d in strict):
                    ipdom = c
                    break
            self.blocks[b].ipdom = ipdom
        self.exits = exits
