"""Every rich renderable warpsim prints is built here, from plain text.

rich reads square brackets in a str as markup: `out[x * n + y] = in[y * n + x];`
prints as `out = in;` and `pip install warpsim[triton]` as `pip install warpsim`.
Kernel source, kernel names, paths, messages and hints are user text, so none of
them may reach rich as a str. The builders below turn every str they are given
into a rich Text (which rich never parses) and take styles as arguments, never as
markup; the console (console.make_console) has markup off as well. Only this
module and console.py import rich (tests/report/test_terminal_text.py keeps it so).
"""

from __future__ import annotations

from rich import box as _box
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

__all__ = ["text", "table", "rule", "panel", "indent", "Text", "PlainTable", "box"]

box = _box


def text(*parts, style: str = "", end: str = "\n") -> Text:
    """One line (or more) of styled text from parts: a str (plain), a (str, style) pair, or a Text.

        text("  spin_wait under ", ("scheduling='stack'", "bold"), ": warpsim stops it")
    """
    out = Text(style=style, end=end)
    for part in parts:
        if isinstance(part, Text):
            out.append_text(part)
        elif isinstance(part, tuple):
            value, part_style = part
            out.append(str(value), style=part_style or "")
        elif part is not None:
            out.append(str(part))
    return out


def _cell(value):
    """A table cell, title or header: a str or a (str, style) pair becomes Text; renderables stay."""
    if value is None or isinstance(value, Text):
        return value
    if isinstance(value, (str, tuple)):
        return text(value)
    return value


class PlainTable(Table):
    """A rich Table whose title, caption, headers and cells given as str are shown as they are
    (set when it is made or later)."""

    def __setattr__(self, name, value):
        super().__setattr__(name, _cell(value) if name in ("title", "caption") else value)

    def add_column(self, header="", *args, **options):
        for key in ("footer",):
            if key in options:
                options[key] = _cell(options[key])
        return super().add_column(_cell(header), *args, **options)

    def add_row(self, *cells, **options):
        return super().add_row(*(_cell(c) for c in cells), **options)


def table(title=None, columns=(), **options) -> PlainTable:
    """A table with `title` and columns: each a name or (name, {add_column options}).

    Cells added later as str (or (str, style) pairs) are plain text, whatever brackets they hold.
    """
    options.setdefault("title_justify", "left")
    t = PlainTable(title=title, **options)
    for column in columns:
        name, column_options = column if isinstance(column, tuple) else (column, {})
        t.add_column(name, **column_options)
    return t


def rule(title="", **options) -> Rule:
    """A horizontal rule with a plain-text title."""
    return Rule(_cell(title) if title else "", **options)


def panel(body, title=None, **options) -> Panel:
    """A boxed paragraph of plain text (or a renderable) with a plain-text title."""
    return Panel(_cell(body), title=_cell(title), **options)


def indent(renderable, spaces: int) -> Padding:
    """A renderable (a str is plain text) moved right by `spaces` columns."""
    return Padding(_cell(renderable), (0, 0, 0, spaces))
