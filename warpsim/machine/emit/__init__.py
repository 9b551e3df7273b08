"""Code generation for the instructions that are not pure value functions:
moves of special registers, symbols and vectors; address conversion; memory
access and atomics; warp exchange; barriers; control flow.

Each emitter gets the BlockCompiler and the instruction and returns True when
it has set the next program counter of every thread itself (a terminator).
One module per family registers its emitters in EMITTERS (see common.py);
importing this package imports them all.
"""

from .common import EMITTERS, emitter
from . import atomics, barriers, control, memory, moves, tensor, warp  # noqa: F401  (they register)

__all__ = ["EMITTERS", "emitter"]
