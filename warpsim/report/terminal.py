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
from rich.cells import cell_len
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

__all__ = ["text", "table", "rule", "panel", "indent", "Text", "PlainTable", "box", "print_report"]

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


# ---------------------------------------------------------------- uncoloured output, fast

_JUSTIFY = {"left": str.ljust, "right": str.rjust}


def _plain(cell) -> str | None:
    """A cell's text when it is one plain line (no renderable of its own to lay out), else None."""
    plain = cell.plain if isinstance(cell, Text) and cell.justify in (None, "default") else \
        cell if isinstance(cell, str) else None
    return None if plain is None or "\n" in plain or "\t" in plain else plain


def plain_table_lines(t, width: int) -> list[str] | None:
    """The lines rich prints for table t on an uncoloured console `width` columns wide, laid out
    here without rich's general layout (which takes about 10 ms for a launch's metrics table); None
    for a table of another kind than the ones warpsim makes (left title, the default box and
    padding, one-line cells), or one that does not fit in `width`: rich lays those out."""
    if not isinstance(t, Table) or t.box is not _box.HEAVY_HEAD or not (t.show_header and t.show_edge) \
            or t.show_footer or t.show_lines or t.expand or t.width is not None or t.min_width is not None \
            or t.leading or t.padding != (0, 1, 0, 1) or not t.pad_edge or t.collapse_padding \
            or t.caption is not None or t.title is not None and t.title_justify != "left" or not t.row_count:
        return None
    columns = t.columns
    if any(c.justify not in _JUSTIFY or c.width is not None or c.min_width is not None or c.max_width is not None
           or c.ratio is not None for c in columns):
        return None
    headers = [_plain(c.header) for c in columns]
    cells = [[_plain(cell) for cell in c.cells] for c in columns]
    title = _plain(t.title) if t.title is not None else ""
    if None in headers or title is None or any(None in column for column in cells):
        return None
    widths = [max([cell_len(h)] + [cell_len(v) for v in column]) for h, column in zip(headers, cells)]
    total = sum(widths) + 3 * len(widths) + 1
    if total > width or cell_len(title) > total:
        return None

    def row(values, edge: str, inner: str) -> str:
        return edge + inner.join(" " + _JUSTIFY[c.justify](v, w + len(v) - cell_len(v)) + " "
                                 for c, v, w in zip(columns, values, widths)) + edge

    def border(left: str, line: str, joint: str, right: str) -> str:
        return left + joint.join(line * (w + 2) for w in widths) + right

    lines = [title + " " * (total - cell_len(title))] if t.title is not None else []
    lines += [border("┏", "━", "┳", "┓"), row(headers, "┃", "┃"), border("┡", "━", "╇", "┩")]
    lines += [row(values, "│", "│") for values in zip(*cells)]
    lines.append(border("└", "─", "┴", "┘"))
    return lines


def print_report(console, renderable) -> None:
    """console.print(renderable), with the tables among its parts (warpsim's own renderables are
    opened into theirs) written straight to the console's file where plain_table_lines lays them
    out: the same characters, when the console prints no colour (a file, a pipe, CI)."""
    if console.color_system is not None or console.record:
        console.print(renderable)
        return
    parts = [renderable]
    while parts:
        part = parts.pop(0)
        lines = plain_table_lines(part, console.width)
        if lines is not None:
            console.file.write("\n".join(lines) + "\n")
        elif not isinstance(part, Table) and hasattr(part, "__rich_console__") \
                and type(part).__module__.startswith("warpsim."):
            parts[:0] = list(part.__rich_console__(console, console.options))
        else:
            console.print(part)
