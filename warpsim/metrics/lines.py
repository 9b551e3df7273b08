"""Per-source-line attribution and the source view.

Every PTX instruction carries the innermost source location of its `.loc`
(CUDA C++ through NVRTC and Numba kernels alike; an inlined function's lines
are its own, as in Nsight Compute's source page). The counters of each
executed instruction and memory access are added to that line. The source
view prints the lines of the kernel's source file with the numbers beside
them and highlights the lines that waste the most: idle lanes (divergence),
sectors beyond what the bytes need (coalescing) and bank conflicts.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field

from ..ptx.sources import read_source

NO_LINE = "<no line info>"


@dataclass
class LineStats:
    file: str
    line: int
    inst: int = 0                  # warp-level instructions issued
    thread_inst: int = 0           # active lanes summed
    pred_on: int = 0
    branches: int = 0              # warp-level branches executed
    divergent: int = 0             # ... whose lanes split
    global_requests: int = 0
    global_sectors: int = 0
    global_ideal_sectors: int = 0  # what the bytes asked for would need, at best
    shared_requests: int = 0
    shared_wavefronts: int = 0
    shared_ideal_wavefronts: int = 0
    local_requests: int = 0
    local_sectors: int = 0
    ptx_lines: list = field(default_factory=list)

    @property
    def threads_per_inst(self) -> float:
        return self.thread_inst / self.inst if self.inst else 0.0

    @property
    def simt_efficiency_pct(self) -> float:
        return 100.0 * self.thread_inst / (32 * self.inst) if self.inst else 0.0

    @property
    def idle_lane_slots(self) -> int:
        return 32 * self.inst - self.thread_inst

    @property
    def sectors_per_request(self) -> float:
        return self.global_sectors / self.global_requests if self.global_requests else 0.0

    @property
    def excess_sectors(self) -> int:
        return max(0, self.global_sectors - self.global_ideal_sectors)

    @property
    def bank_conflicts(self) -> int:
        return self.shared_wavefronts - self.shared_ideal_wavefronts

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(threads_per_inst=self.threads_per_inst, simt_efficiency_pct=self.simt_efficiency_pct,
                 sectors_per_request=self.sectors_per_request, bank_conflicts=self.bank_conflicts)
        return d


def _where(program, ins) -> tuple:
    loc = ins.loc
    if loc is None:
        return NO_LINE, 0
    return program.module.files.get(loc.file, f"file{loc.file}"), loc.line


def line_table(counters) -> list:
    """LineStats of every source line that executed something, in file/line order."""
    program = counters.program
    rows: dict = {}

    def row(ins) -> LineStats:
        key = _where(program, ins)
        r = rows.get(key)
        if r is None:
            r = rows[key] = LineStats(*key)
        return r

    for _, _, ins, warps, threads, pred_on in counters.instruction_rows():
        r = row(ins)
        r.inst += warps
        r.thread_inst += threads
        r.pred_on += pred_on
        if ins.line not in r.ptx_lines:
            r.ptx_lines.append(ins.line)
    for _, ins, executions, divergent in counters.branch_rows():
        r = row(ins)
        r.branches += executions
        r.divergent += divergent
    for site in counters.sites.values():
        r = row(site.ins)
        if site.space == "global":
            r.global_requests += site.requests
            r.global_sectors += site.sectors
            r.global_ideal_sectors += site.ideal_sectors
        elif site.space == "shared":
            r.shared_requests += site.requests
            r.shared_wavefronts += site.wavefronts
            r.shared_ideal_wavefronts += site.ideal_wavefronts
        elif site.space == "local":
            r.local_requests += site.requests
            r.local_sectors += site.sectors
    return sorted(rows.values(), key=lambda r: (r.file == NO_LINE, r.file, r.line))


# ---------------------------------------------------------------- worst lines

WASTE = {
    "idle lanes": lambda r: r.idle_lane_slots,
    "excess sectors": lambda r: r.excess_sectors,
    "bank conflicts": lambda r: r.bank_conflicts,
    "divergent branches": lambda r: r.divergent,
}


def worst_lines(lines, share: float = 0.2) -> dict:
    """(file, line) -> reasons: the top line of each kind of waste, and any line with `share` of it."""
    flagged: dict = {}
    for reason, waste in WASTE.items():
        total = sum(waste(r) for r in lines)
        if total <= 0:
            continue
        top = max(lines, key=waste)
        for r in lines:
            amount = waste(r)
            if amount > 0 and (r is top or amount >= share * total):
                flagged.setdefault((r.file, r.line), []).append(reason)
    return flagged


# ---------------------------------------------------------------- source text

def _fmt_int(v) -> str:
    return f"{v:,}" if v else ""


NUMBER_COLUMNS = (("warp inst", 11), ("thr", 4), ("SIMT%", 5), ("div", 5), ("sec/req", 7), ("bank", 7))


class SourceView:
    """Rich renderable: each source file's executed region with per-line numbers beside it.

    The source column gets whatever width the numbers leave (long lines are cut
    with an ellipsis), so the view fits the terminal it is printed on."""

    def __init__(self, lines, sources: dict | None = None, context: int = 2, title: str | None = None):
        self.lines, self.sources, self.context, self.title = lines, sources, context, title

    def __rich_console__(self, console, options):
        flagged = worst_lines(self.lines)
        by_file: dict = {}
        for r in self.lines:
            by_file.setdefault(r.file, {})[r.line] = r
        for path, stats in by_file.items():
            yield self._table(path, stats, flagged, options.max_width)

    def _table(self, path, stats, flagged, width):
        from rich.table import Table
        from rich.text import Text
        reasons_width = max([len(", ".join(v)) for v in flagged.values()] + [9])
        fixed = 5 + sum(w for _, w in NUMBER_COLUMNS) + reasons_width + 3 * (len(NUMBER_COLUMNS) + 3) + 1
        text = read_source(path, self.sources) if path != NO_LINE else None
        t = Table(title=f"{self.title + ': ' if self.title else ''}{path}", title_justify="left")
        t.add_column("line", justify="right", style="dim", no_wrap=True, width=5)
        t.add_column("source", overflow="ellipsis", no_wrap=True, max_width=max(20, width - fixed))
        for name, w in NUMBER_COLUMNS:
            t.add_column(name, justify="right", no_wrap=True, width=w)
        t.add_column("worst for", style="bold red", no_wrap=True, width=reasons_width)
        if text is None:
            numbers = sorted(stats)
        else:
            known = [n for n in stats if n]
            first = max(1, min(known) - self.context) if known else 1
            last = min(len(text), max(known, default=0) + self.context)
            numbers = list(range(first, last + 1))
        for n in numbers:
            r = stats.get(n)
            src = text[n - 1] if text is not None and 0 < n <= len(text) else ""
            if r is None:
                t.add_row(str(n), Text(src, style="dim"), *[""] * (len(NUMBER_COLUMNS) + 1))
                continue
            reasons = flagged.get((r.file, r.line), [])
            eff = r.simt_efficiency_pct
            eff_style = "red" if r.inst and eff < 50 else ("yellow" if r.inst and eff < 90 else "")
            t.add_row(str(n) if n else "-", Text(src, style="bold" if reasons else ""), _fmt_int(r.inst),
                      f"{r.threads_per_inst:.1f}" if r.inst else "",
                      Text(f"{eff:.0f}" if r.inst else "", style=eff_style), _fmt_int(r.divergent),
                      Text(f"{r.sectors_per_request:.1f}" if r.global_requests else "",
                           style="red" if r.excess_sectors else ""),
                      Text(_fmt_int(r.bank_conflicts), style="red" if r.bank_conflicts else ""),
                      ", ".join(reasons))
        return t


def source_view(lines, sources: dict | None = None, context: int = 2, title: str | None = None):
    """A rich renderable of the source lines with their numbers (see SourceView)."""
    return SourceView(lines, sources, context, title)


def hot_lines_table(lines, limit: int = 8, title: str = "Source lines (most warp instructions first)"):
    """A short rich table of the lines that issue the most, with the worst ones marked."""
    from rich.table import Table
    flagged = worst_lines(lines)
    t = Table(title=title, title_justify="left")
    for name, justify in (("line", "left"), ("warp inst", "right"), ("SIMT %", "right"),
                          ("div br", "right"), ("sect/req", "right"), ("bank confl", "right"),
                          ("worst for", "left")):
        t.add_column(name, justify=justify)
    ranked = sorted(lines, key=lambda r: -r.inst)
    shown = ranked[:limit] + [r for r in ranked[limit:] if (r.file, r.line) in flagged]
    for r in shown:
        where = f"{os.path.basename(r.file)}:{r.line}" if r.line else r.file
        t.add_row(where, f"{r.inst:,}", f"{r.simt_efficiency_pct:.1f}" if r.inst else "",
                  _fmt_int(r.divergent),
                  f"{r.sectors_per_request:.2f}" if r.global_requests else "",
                  _fmt_int(r.bank_conflicts), ", ".join(flagged.get((r.file, r.line), [])),
                  style="bold red" if (r.file, r.line) in flagged else None)
    return t
