"""Source files as reports and errors read them: from code given as a string, else disk."""

from __future__ import annotations

import os


def read_source(path: str, sources: dict | None = None) -> list | None:
    """The lines of a source file: from `sources` (name -> text, for code given as a string), else disk."""
    sources = sources or {}
    text = sources.get(path)
    if text is None:
        base = os.path.basename(path)
        for name, candidate in sources.items():
            if candidate is not None and os.path.basename(str(name)) == base:
                text = candidate
                break
    if text is None and os.path.isfile(path):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            text = None
    return None if text is None else text.splitlines()


def source_text(path: str, line: int, sources: dict | None = None) -> str:
    """The text of one source line (1-based), or '' when the file cannot be read."""
    lines = read_source(path, sources)
    if not lines or not 0 < line <= len(lines):
        return ""
    return lines[line - 1].strip()
