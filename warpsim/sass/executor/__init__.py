"""A vectorized SASS executor for sm_90: the instructions the GPU issues, run on warpsim's memory.

    from warpsim.sass.executor import load_program, run_launch
    program = load_program(sass_module, "saxpy")          # SassUnsupported before anything runs
    run_launch(program, image, memory=memory_copy, grid=(4,), block=(256,), params=param_bytes)

Layout (one module per SASS family, each opcode one table entry, table.py):
state.py (registers, barriers, windows), operands.py (reading and writing
operands as bits), program.py (decoding into blocks of steps), engine.py (the
issue loop), launch.py (constant banks, batches); families: integer, compare,
floating, conversion, moves, memory (+ access.py), atomics, warp, control, tensor,
async_copy (mbarriers, ELECT, TMA, bulk copies), cluster (ranks, cluster barriers, DSMEM);
pipe_only.py: the pipes of opcodes the executor does not run yet.
"""

from __future__ import annotations

from . import async_copy, atomics, cluster, compare, control, conversion, floating, integer, memory, moves, tensor, warp  # noqa: F401,E501  (fill the table)
from . import pipe_only  # noqa: F401  (the pipes of opcodes without semantics yet)
from .errors import SassDeadlock, SassExecutionError, SassFault, SassTrap, SassUnsupported
from .launch import load_program, run_launch
from .table import OPCODES, PIPES, coverage_rows, coverage_table, pipe_by_opcode, pipes_by_modifier

__all__ = ["load_program", "run_launch", "SassUnsupported", "SassExecutionError", "SassFault", "SassTrap", "SassDeadlock",
           "OPCODES", "PIPES", "coverage_rows", "coverage_table", "pipe_by_opcode", "pipes_by_modifier"]
