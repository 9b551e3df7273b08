"""What can stop a SASS run: an opcode the executor does not know, a bad access, a hang.

Every error names the kernel, and where it applies the SASS instruction (offset
and text) and the PTX and source line ptxas gave it, so a fallback note can say
exactly why the SASS counts are missing.
"""

from __future__ import annotations

from ...errors import WarpsimError


class SassExecutionError(WarpsimError):
    """A SASS run could not finish (the PTX run's results stand)."""


class SassUnsupported(SassExecutionError):
    """The kernel's SASS uses opcodes or modifiers the executor does not implement.

    Raised when the kernel's SASS is loaded, before anything runs; `unsupported`
    lists each (full opcode, why) once, in address order.
    """

    def __init__(self, kernel: str, unsupported: list):
        self.kernel = kernel
        self.unsupported = list(unsupported)
        shown = "; ".join(f"{text} ({why})" for text, why in self.unsupported[:8])
        more = f" and {len(self.unsupported) - 8} more" if len(self.unsupported) > 8 else ""
        super().__init__(f"the SASS executor does not support {shown}{more} in kernel '{kernel}'")


class SassFault(SassExecutionError):
    """A lane accessed memory it may not (the PTX run of the same launch did not fault).

    `block`, `thread`, `instruction` and `source_line` say where, as a LaunchError does."""

    def __init__(self, message: str, block=None, thread=None, instruction: str = "", source_line: str = ""):
        self.block, self.thread, self.instruction, self.source_line = block, thread, instruction, source_line
        super().__init__(message)


class SassTrap(SassExecutionError):
    """A lane ran BPT.TRAP (PTX trap, or a check CUDA's headers compile to one): the launch fails.

    `block`, `thread`, `instruction` and `source_line` say where, as a LaunchError does."""

    def __init__(self, message: str, block=None, thread=None, instruction: str = "", source_line: str = ""):
        self.block, self.thread, self.instruction, self.source_line = block, thread, instruction, source_line
        super().__init__(message)


class SassIllegalInstruction(SassTrap):
    """A lane ran WARPSYNC with a mask that leaves it out: the GPU stops the launch
    (cudaErrorIllegalInstruction)."""


class SassDeadlock(SassExecutionError):
    """No lane can issue: every live lane waits at a convergence or CTA barrier."""


def lane_place(st, g, lane: int) -> tuple:
    """(block, thread) of lane `lane` of group g, as a fault or trap names them."""
    slot = int(g.idx[lane])
    return tuple(int(v) for v in st.ctaid[:, slot]), tuple(int(v) for v in st.tid[:, slot])


def source_line(ins) -> str:
    """'k.cu:3' of an instruction built with line info, else ''."""
    return f"{ins.source[0].rsplit('/', 1)[-1]}:{ins.source[1]}" if ins.source is not None else ""


def where(ins) -> str:
    """'/*0090*/ LDG.E R2, desc[UR4][R2.64] (PTX line 40, k.cu:3)' for messages."""
    text = f"/*{ins.offset:04x}*/ {ins.text}"
    extra = []
    if ins.ptx_line is not None:
        extra.append(f"PTX line {ins.ptx_line}")
    if ins.source is not None:
        extra.append(f"{ins.source[0].rsplit('/', 1)[-1]}:{ins.source[1]}")
    return text + (f" ({', '.join(extra)})" if extra else "")
