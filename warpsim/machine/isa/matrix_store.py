"""stmatrix: a warp stores m8n8 .b16 matrices from its fragments to shared memory (sm_90).

The inverse of ldmatrix (machine.isa.tensor): lanes 8j..8j+7 give the row
addresses of matrix j, and lane l's register j holds row l // 4, columns
2 (l % 4) and 2 (l % 4) + 1 of it (with .trans, of its transpose). Triton's
Hopper epilogue writes accumulator tiles to shared memory this way before
storing them to global memory.
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Vec
from .. import access
from .table import WARP, emitted, whole_warp
from .tensor import fragment_words, matrix_element_addresses

COUNTS = {"x1": 1, "x2": 2, "x4": 4}


def check_stmatrix(ins):
    if "m8n8" not in ins.mods or "b16" not in ins.mods:
        return "stmatrix.m8n8 .b16 is supported (.m16n8 .b8 forms are sm_100)"
    if access.space_of(ins) not in ("shared", "generic"):
        return "stmatrix stores to shared memory"
    count = next((COUNTS[m] for m in ins.mods if m in COUNTS), None)
    if count is None:
        return "stmatrix needs .x1, .x2 or .x4"
    regs = ins.srcs[1] if len(ins.srcs) > 1 else None
    given = len(regs.items) if isinstance(regs, Vec) else 1
    if given != count:
        return f"stmatrix .x{count} takes {count} registers, got {given}"
    return None


def stmatrix(ctx, site, idx, space, addrs, words, transpose: bool):
    """Store each lane's (n, count) fragment words at the addresses its warp's lanes gave."""
    count = words.shape[1]
    for j, (word_at, halves_at) in enumerate(matrix_element_addresses(ctx, idx, addrs, count, transpose)):
        word = words[:, j].astype(np.uint32)
        if word_at is not None:
            access.store(ctx, site, idx, space, word_at, np.uint32, [word])
        else:
            for h, at in enumerate(halves_at):
                access.store(ctx, site, idx, space, at, np.uint16,
                             [((word >> np.uint32(16 * h)) & np.uint32(0xFFFF)).astype(np.uint16)])


@emitted("stmatrix", family="matrix_store", kind=WARP, pipe="lsu", check=check_stmatrix,
         warp_sync=True, member_mask=whole_warp)
def emit_stmatrix(c, ins):
    """stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 [addr], {r0, ...}."""
    addr, regs = ins.srcs[0], ins.srcs[1]
    space = access.space_of(ins)
    expr, _ = c.address(addr, space)
    words = fragment_words(c, regs if isinstance(regs, Vec) else Vec((regs,)))
    c.emit(f"matrix_store.stmatrix(ctx, {c.site(ins)}, idx, {space!r}, {expr}, {words}, "
           f"{'trans' in ins.mods})")
    return False
