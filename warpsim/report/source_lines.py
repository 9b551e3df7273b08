"""The kernel's source lines with their per-line figures, for a terminal.

`source_view` prints each source file's executed region with the numbers beside
each line (warp instructions, lanes, SIMT efficiency, divergent branches,
sectors per request, bank conflicts) and marks the lines warpsim.metrics.lines'
worst_lines names; `hot_lines_table` is its short form, the lines that issue most.
"""

from __future__ import annotations

import os

from ..metrics.lines import NO_LINE, read_source, worst_lines
from .terminal import table, text


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
        reasons_width = max([len(", ".join(v)) for v in flagged.values()] + [9])
        fixed = 5 + sum(w for _, w in NUMBER_COLUMNS) + reasons_width + 3 * (len(NUMBER_COLUMNS) + 3) + 1
        source = read_source(path, self.sources) if path != NO_LINE else None
        columns = [("line", dict(justify="right", style="dim", no_wrap=True, width=5)),
                   ("source", dict(overflow="ellipsis", no_wrap=True, max_width=max(20, width - fixed)))]
        columns += [(name, dict(justify="right", no_wrap=True, width=w)) for name, w in NUMBER_COLUMNS]
        columns += [("worst for", dict(style="bold red", no_wrap=True, width=reasons_width))]
        t = table(f"{self.title + ': ' if self.title else ''}{path}", columns)
        if source is None:
            numbers = sorted(stats)
        else:
            known = [n for n in stats if n]
            first = max(1, min(known) - self.context) if known else 1
            last = min(len(source), max(known, default=0) + self.context)
            numbers = list(range(first, last + 1))
        for n in numbers:
            r = stats.get(n)
            src = source[n - 1] if source is not None and 0 < n <= len(source) else ""
            if r is None:
                t.add_row(str(n), (src, "dim"), *[""] * (len(NUMBER_COLUMNS) + 1))
                continue
            reasons = flagged.get((r.file, r.line), [])
            eff = r.simt_efficiency_pct
            eff_style = "red" if r.inst and eff < 50 else ("yellow" if r.inst and eff < 90 else "")
            t.add_row(str(n) if n else "-", (src, "bold" if reasons else ""), _fmt_int(r.inst),
                      f"{r.threads_per_inst:.1f}" if r.inst else "",
                      (f"{eff:.0f}" if r.inst else "", eff_style), _fmt_int(r.divergent),
                      (f"{r.sectors_per_request:.1f}" if r.global_requests else "",
                       "red" if r.excess_sectors else ""),
                      (_fmt_int(r.bank_conflicts), "red" if r.bank_conflicts else ""),
                      ", ".join(reasons))
        return t


def source_view(lines, sources: dict | None = None, context: int = 2, title: str | None = None):
    """A rich renderable of the source lines with their numbers (see SourceView)."""
    return SourceView(lines, sources, context, title)


def hot_lines_table(lines, limit: int = 8, title: str = "Source lines (most warp instructions first)"):
    """A short rich table of the lines that issue the most, with the worst ones marked."""
    flagged = worst_lines(lines)
    t = table(title, [(name, dict(justify=justify)) for name, justify in (
        ("line", "left"), ("warp inst", "right"), ("SIMT %", "right"), ("div br", "right"),
        ("sect/req", "right"), ("bank confl", "right"), ("worst for", "left"))])
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
