"""A whole program's timeline on the predicted GPU clock: its kernels, copies and memsets in order.

`warpsim profile ./app` records it in the program (warpsim.runtime's TimelineEntry items);
this module only renders it: one row per piece of work with its start, duration and what it
was, then the totals by kind, as Nsight Systems' CUDA GPU trace summarises a run.
"""

from __future__ import annotations

from ..ptx.names import demangle
from .terminal import table

PLURALS = {"kernel": "kernels", "copy": "copies", "memset": "memsets"}

COLUMNS = (("start (us)", "right"), ("time (us)", "right"), ("kind", "left"), ("what", "left"),
           ("stream", "right"), ("size", "right"))


def _size(entry) -> str:
    if entry.kind == "kernel":
        grid = "x".join(str(v) for v in entry.grid) if entry.grid else ""
        block = "x".join(str(v) for v in entry.block) if entry.block else ""
        return f"<<<{grid}, {block}>>>"
    return f"{entry.bytes:,} B"


def totals(entries) -> dict:
    """kind -> (count, predicted ms)."""
    out: dict = {}
    for e in entries:
        count, ms = out.get(e.kind, (0, 0.0))
        out[e.kind] = (count + 1, ms + e.ms)
    return out


def timeline_table(entries, gpu: str = "", limit: int = 200):
    """The first `limit` entries as a table, and a last row per kind with its count and total time."""
    title = f"Program timeline on {gpu or 'the chosen GPU'} (predicted)"
    t = table(title, [(name, dict(justify=justify, overflow="fold")) for name, justify in COLUMNS])
    for e in entries[:limit]:
        name = demangle(e.name) if e.kind == "kernel" else e.name
        t.add_row(f"{e.start_ms * 1e3:,.2f}", f"{e.ms * 1e3:,.2f}", e.kind, name, str(e.stream),
                  _size(e))
    if len(entries) > limit:
        t.add_row("", "", "...", f"{len(entries) - limit} more", "", "")
    for kind, (count, ms) in totals(entries).items():
        t.add_row("", f"{ms * 1e3:,.2f}", f"all {PLURALS.get(kind, kind)}", f"{count} in total", "", "")
    return t
