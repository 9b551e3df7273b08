"""SASS opcodes the GPU issues that the executor does not run yet: their pipe only.

The timing model charges every instruction of a listing to a pipe, including
instructions of kernels the executor cannot run (those take their results and
counts from the PTX run). Each opcode is declared once: here while it has no
semantics, and in its family module (with its pipe) once it has.
"""

from __future__ import annotations

from .table import pipe_only

pipe_only("FSWZADD", pipe="fp32")
pipe_only("IMUL", "IMADSP", pipe="fma")
pipe_only("IADD", "IADD32I", "ISCADD", "LEA_HI", "LOP", "LOP32I", pipe="alu")
pipe_only("DMNMX", pipe="fp64")
pipe_only("F2IP", pipe="mufu")
pipe_only("BMMA", pipe="tensor")
pipe_only("CS2R_SR", pipe="special")
