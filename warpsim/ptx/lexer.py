"""Tokens of PTX text, each with its line and column.

PTX mnemonics and special registers carry dots (`ld.global.v4.f32`,
`%tid.x`), so a word token keeps its dots and the parser splits them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import PtxParseError


@dataclass(frozen=True)
class Token:
    kind: str     # 'word', 'int', 'float', 'fbits', 'string', 'punct'
    text: str
    line: int
    col: int


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<fbits>0[fF][0-9a-fA-F]{8}(?![\w$])|0[dD][0-9a-fA-F]{16}(?![\w$]))
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<int>0[xX][0-9a-fA-F]+[uU]?|0[bB][01]+[uU]?|\d+[uU]?)
  | (?P<word>[A-Za-z_$%.](?:[\w$.]|::(?=[A-Za-z0-9]))*)
  | (?P<punct>[;,{}()\[\]@!|+\-:<>=*])
""", re.VERBOSE | re.DOTALL)


def tokenize(text: str, source: str = "<ptx>") -> list[Token]:
    tokens: list[Token] = []
    line, line_start, pos = 1, 0, 0
    match = _TOKEN.match
    n = len(text)
    while pos < n:
        m = match(text, pos)
        if m is None:
            line_text = text[line_start:text.find("\n", line_start) if "\n" in text[line_start:] else n]
            raise PtxParseError(f"unexpected character {text[pos]!r}", source, line,
                                pos - line_start + 1, line_text)
        kind = m.lastgroup
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind == "block":
            newlines = m.group().count("\n")
            if newlines:
                line += newlines
                line_start = m.start() + m.group().rfind("\n") + 1
        elif kind not in ("ws", "comment"):
            tokens.append(Token(kind, m.group(), line, pos - line_start + 1))
        pos = m.end()
    return tokens


def parse_int(text: str) -> int:
    """A PTX integer literal (decimal, 0x hex, 0b binary; trailing U allowed)."""
    t = text.rstrip("uU")
    if t[:2] in ("0x", "0X"):
        return int(t[2:], 16)
    if t[:2] in ("0b", "0B"):
        return int(t[2:], 2)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)
