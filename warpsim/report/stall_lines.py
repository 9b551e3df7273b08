"""The predicted stall breakdown per source line (Nsight Compute's source view, warp-state
samples, from warpsim.timing's Timing.lines): its rows, once, for the terminal table here and
for the HTML report."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..ptx.sources import source_text
from .terminal import table

# How many reasons a row names.
TOP_REASONS = 3
COLUMNS = (("line", "left"), ("share %", "right"), ("stalls", "left"), ("PTX", "left"), ("source", "left"))


@dataclass
class StallLine:
    """One source line's predicted stalls: where, its share of the kernel's warp-cycles, its top
    reasons as (reason, warps per issued instruction of the kernel), its PTX lines and its text."""
    where: str
    share_pct: float
    reasons: list
    ptx_lines: list
    source: str

    @property
    def stalls_text(self) -> str:
        return ", ".join(f"{k} {v:.2f}" for k, v in self.reasons)

    @property
    def ptx_text(self) -> str:
        return ",".join(str(p) for p in self.ptx_lines[:4]) + ("..." if len(self.ptx_lines) > 4 else "")


def stall_lines(timing, limit: int = 8, sources: dict | None = None) -> list:
    """The `limit` most stalled lines. Reasons are warps per issued instruction of the whole kernel
    (ncu's per-issue ratios, so a reason's figures add up, over the lines, to the launch's)."""
    rows = list(getattr(timing, "lines", None) or [])
    issued = max(1.0, sum(r["stalls"].get("selected", 0.0) for r in rows))
    out = []
    for r in rows[:limit]:
        where = f"{os.path.basename(r['file'])}:{r['line']}" if r["line"] is not None else "(none)"
        reasons = sorted(((v, k) for k, v in r["stalls"].items() if k != "selected"), reverse=True)
        top = [(k, v / issued) for v, k in reasons[:TOP_REASONS] if v / issued >= 0.005]
        code = source_text(r["file"], r["line"], sources) if r["line"] is not None else ""
        out.append(StallLine(where, r["samples_pct"], top, list(r["ptx_lines"]), code))
    return out


def stall_lines_title(timing) -> str:
    return f"Predicted stalls by source line on {timing.gpu} (warps per issue; share of all warp-cycles)"


def stall_lines_table(timing, limit: int = 8, sources: dict | None = None):
    """The rows of `stall_lines` as a rich table."""
    t = table(stall_lines_title(timing), [(name, dict(justify=justify, overflow="fold"))
                                          for name, justify in COLUMNS])
    for row in stall_lines(timing, limit, sources):
        t.add_row(row.where, f"{row.share_pct:.1f}", row.stalls_text, row.ptx_text, row.source)
    return t
