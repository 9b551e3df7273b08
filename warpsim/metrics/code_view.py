"""Source, PTX and SASS side by side: which machine instructions each source line became,
and how often the GPU would have issued each.

One row per SASS instruction of the kernel, in code order, with the PTX
instruction it came from (ptxas's line info) and the source line that PTX
instruction carries. Counts are warp-level executions from the SASS run
(`LaunchProfile.sass_counts`, offset -> count) when the profile is at SASS
level; without them the view still shows what each line compiled to.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CodeRow:
    source_file: str
    source_line: int          # 0: no line info
    ptx_line: int             # 0: none (a cubin without PTX)
    ptx_text: str
    offset: int               # of the SASS instruction
    sass_text: str
    executions: int | None    # warp-level executions of the SASS instruction (None: not counted)


def code_view(loaded_module, kernel: str, sass_counts: dict | None = None) -> list:
    """The rows for one kernel (the SASS from warpsim.sass, built once per module)."""
    from ..sass import sass_of
    function = sass_of(loaded_module).kernel(kernel)
    ptx = loaded_module.__dict__.get("_ptx_line_texts")
    if ptx is None:                         # formatted once per module: a profile asks per launch
        ptx = loaded_module._ptx_line_texts = {ins.line: str(ins) for fn in loaded_module.module.functions.values()
                                               for ins in fn.body}
    rows = []
    for ins in function.instructions:
        file, line = ins.source if ins.source else ("", 0)
        count = None if sass_counts is None else int(sass_counts.get(ins.offset, 0))
        rows.append(CodeRow(file, line, ins.ptx_line or 0, ptx.get(ins.ptx_line, ""), ins.offset,
                            ins.text, count))
    return rows
