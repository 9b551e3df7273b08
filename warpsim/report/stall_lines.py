"""The predicted stall breakdown per source line as a rich table (Nsight Compute's source view,
warp-state samples, from warpsim.timing's Timing.lines)."""

from __future__ import annotations

import os

# How many reasons a row names, and the reasons shown as their own columns.
TOP_REASONS = 3


def stall_lines_table(timing, limit: int = 8, sources: dict | None = None):
    """Rows: source line, its share of the kernel's warp-cycles, its top stall reasons as warps per
    issued instruction of the kernel (ncu's per-issue ratios, so a row's figures add up, over the
    lines, to the launch's), the PTX lines it came from and the source text when known."""
    from rich.table import Table
    rows = list(getattr(timing, "lines", None) or [])
    t = Table(title=f"Predicted stalls by source line on {timing.gpu} (warps per issue; share of all warp-cycles)",
              title_justify="left")
    for name, justify in (("line", "left"), ("share %", "right"), ("stalls", "left"), ("PTX", "left"),
                          ("source", "left")):
        t.add_column(name, justify=justify, overflow="fold")
    issued = max(1.0, sum(r["stalls"].get("selected", 0.0) for r in rows))
    for r in rows[:limit]:
        where = f"{os.path.basename(r['file'])}:{r['line']}" if r["line"] is not None else "(none)"
        reasons = sorted(((v, k) for k, v in r["stalls"].items() if k != "selected"), reverse=True)
        text = ", ".join(f"{k} {v / issued:.2f}" for v, k in reasons[:TOP_REASONS] if v / issued >= 0.005)
        ptx = ",".join(str(p) for p in r["ptx_lines"][:4]) + ("..." if len(r["ptx_lines"]) > 4 else "")
        t.add_row(where, f"{r['samples_pct']:.1f}", text, ptx, _source_text(r, sources))
    return t


def _source_text(row, sources) -> str:
    if not sources or row["line"] is None:
        return ""
    text = sources.get(row["file"]) or sources.get(os.path.basename(row["file"]))
    if not text:
        return ""
    lines = text.splitlines()
    return lines[row["line"] - 1].strip()[:60] if 0 < row["line"] <= len(lines) else ""
