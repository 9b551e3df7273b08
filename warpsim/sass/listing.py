"""SASS listing with the source and PTX lines each instruction came from (`warpsim sass`).

Like `cuobjdump -sass`, plus what it leaves out: the control codes in
CuAssembler-like notation, the basic blocks and their successors, and the
source and PTX line text printed whenever they change. Execution counts (from
a SASS run) are an optional column: `counts` maps an instruction offset to a
number, or a kernel name to such a map.
"""

from __future__ import annotations

import os

from ..toolchains import describe_toolchain
from .ir import SassModule


def _line_reader(sources: dict | None):
    """file name -> its lines, from `sources` (code given as a string) or the disk."""
    cache = {}

    def line(file: str, number: int) -> str:
        if file not in cache:
            text = (sources or {}).get(file)
            if text is None:
                text = (sources or {}).get(os.path.basename(file))
            if text is None:
                try:
                    with open(file, encoding="utf-8", errors="replace") as handle:
                        text = handle.read()
                except OSError:
                    text = ""
            cache[file] = text.splitlines()
        lines = cache[file]
        return lines[number - 1].strip() if 0 < number <= len(lines) else ""

    return line


def _counts_for(counts, name: str, single: bool) -> dict | None:
    if not counts:
        return None
    if any(isinstance(value, dict) for value in counts.values()):
        return counts.get(name)
    return counts if single else None


def format_listing(module: SassModule, kernel: str | None = None, *, sources: dict | None = None,
                   counts: dict | None = None, show_control: bool = True, show_unreachable: bool = False) -> str:
    """The listing of one kernel (or every function), as text.

    sources: file name -> text for source files not on disk. counts: see the module docstring.
    show_unreachable: also print the padding ptxas puts after the last EXIT (self-loop BRA, NOPs).
    """
    names = [module.kernel(kernel).name] if kernel else list(module.functions)
    source_line = _line_reader(sources)
    ptx_lines = module.ptx_text.splitlines() if module.ptx_text else []
    out = []
    for name in names:
        fn = module.functions[name]
        shown_counts = _counts_for(counts, name, kernel is not None or len(names) == 1)
        kind = "kernel" if fn.entry else "function"
        live = [b for b in fn.blocks if b.reachable]
        padding = len(fn.instructions) - sum(b.end - b.start for b in live)
        header = f"// {kind} {name}: {len(fn.instructions) - padding} instructions in {len(live)} blocks"
        header += f" (+{padding} of padding)" if padding else ""
        tools = ", ".join(x for x in (module.arch, describe_toolchain(module.ptx_text, module.ptxas_version)) if x)
        out.append(header + (f" ({tools})" if tools else ""))
        for note in module.notes:
            out.append(f"// note: {note}")
        last_source, last_ptx = None, None
        labels_at = {}
        for label, index in fn.labels.items():
            labels_at.setdefault(index, []).append(label)
        for block in fn.blocks:
            if not block.reachable and not show_unreachable:
                continue
            successors = ", ".join(str(s) for s in block.successors) or "none"
            out.append(f"\n  // block {block.index} -> {successors}" + ("" if block.reachable else " (unreachable)"))
            for index in range(block.start, block.end):
                ins = fn.instructions[index]
                out += [f"  {label}:" for label in labels_at.get(index, ())]
                if ins.source is not None and ins.source != last_source:
                    file, number = ins.source
                    out.append(f"  // {os.path.basename(file)}:{number}  {source_line(file, number)}".rstrip())
                    last_source = ins.source
                if ins.ptx_line is not None and ins.ptx_line != last_ptx:
                    known = 0 < ins.ptx_line <= len(ptx_lines)
                    text = " ".join(ptx_lines[ins.ptx_line - 1].split()) if known else ""
                    out.append(f"  //   PTX {ins.ptx_line}: {text}".rstrip())
                    last_ptx = ins.ptx_line
                out.append(_instruction_line(ins, shown_counts, show_control))
        out.append("")
    return "\n".join(out)


def _instruction_line(ins, counts, show_control: bool) -> str:
    parts = [f"    /*{ins.offset:04x}*/"]
    if counts is not None:
        count = counts.get(ins.offset)
        parts.append(f"{count:>10}" if count is not None else " " * 10)
    if show_control:
        parts.append(ins.control.text() if ins.control else " " * 21)
    guard = f"@{ins.guard.text}" if ins.guard is not None else ""
    parts.append(f"{guard:>5} {ins.text[len(guard):].strip()} ;")
    return "  ".join(parts)
