"""The rich console every report prints to.

On a terminal it takes the terminal's width; when output goes to a file or a
pipe (CI logs, `| less`) it is 120 columns wide, so metric names and values
are not cut to rich's default of 80. Markup is off: a str printed on it shows
as it is, square brackets and all (styled output is built in terminal.py).
"""

from __future__ import annotations

import sys

from rich.console import Console

PIPE_WIDTH = 120


def make_console(**options) -> Console:
    file = options.get("file", sys.stdout)
    if "width" not in options or options["width"] is None:
        options["width"] = None if getattr(file, "isatty", lambda: False)() else PIPE_WIDTH
    options.setdefault("markup", False)
    return Console(**options)
