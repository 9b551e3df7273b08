"""The SASS executor's compiled tier: runs of value instructions as machine code, a warp at a time.

The NumPy steps (sass/executor/) run one instruction for every lane of a group
per call: a few NumPy passes, each a gather and a scatter of the group's lanes
once control flow has split them. This tier encodes the value instructions of
a block (integer, compare, float, moves) as rows of integers when the kernel's
SASS is loaded (layout.py; each family module says which forms it covers and
encodes them), and one Numba function compiled once per machine (segment.py)
runs a run of them, a segment, for a group: each instruction for the group's
lanes whose guard holds, in order, as the NumPy steps do, in one pass per
instruction; tests/sass/test_compiled.py runs every encoded instruction of real
kernels both ways on random registers.

Memory, warp-level, control and waiting instructions stay NumPy steps, and so
does any form a family does not cover; `report(program)` says which and why.
"""

from .segment import Segment, segments_for, segments_of, tier_report

__all__ = ["Segment", "segments_for", "segments_of", "tier_report"]
