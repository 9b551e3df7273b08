"""Mutations of real PTX for fuzzing the parser, verifier and loader.

Each mutation is a small, plausible edit at the token level (what a careless
hand or a buggy generator produces): drop, duplicate or swap tokens, replace
one with another token of the same module, change a number or a type suffix,
drop or repeat a line, truncate. A mutation is a list of integers (choices),
so hypothesis can draw and shrink it.
"""

from __future__ import annotations

import re
from pathlib import Path

SEEDS = Path(__file__).resolve().parent / "fuzz_seeds"
TOKEN = re.compile(r"%?[A-Za-z_$][\w$.]*|0[xX][0-9a-fA-F]+|\d+|\S")
TYPE_SUFFIXES = (".u8", ".s16", ".u32", ".s32", ".b32", ".u64", ".s64", ".b64", ".f16", ".f32",
                 ".f64", ".pred", ".v2", ".v4", ".v8", ".global", ".shared", ".local", ".param")
NUMBERS = ("0", "1", "-1", "3", "7", "31", "32", "64", "255", "4096", "65536", "2147483647",
           "4294967296", "99999999999999999999", "0x", "0f7FC00000", "1e400")
PUNCT = ("{", "}", "(", ")", "[", "]", "<", ">", ",", ";", ":", "@", "!", "|", "+", "-", ".", "%")


def seeds() -> dict:
    return {path.name: path.read_text() for path in sorted(SEEDS.glob("*.ptx"))}


def mutate(text: str, choices: list) -> str:
    """Apply one edit per pair of choices (kind, where) to text."""
    for k in range(0, len(choices) - 1, 2):
        text = _edit(text, choices[k], choices[k + 1])
    return text


def _edit(text: str, kind: int, where: int) -> str:
    spans = [m.span() for m in TOKEN.finditer(text)]
    if not spans:
        return text
    start, end = spans[where % len(spans)]
    token = text[start:end]
    other_start, other_end = spans[(where * 7919 + kind) % len(spans)]
    other = text[other_start:other_end]
    kind %= 10
    if kind == 0:                                   # drop a token
        return text[:start] + text[end:]
    if kind == 1:                                   # repeat a token
        return text[:end] + " " + token + text[end:]
    if kind == 2:                                   # replace with another token of the module
        return text[:start] + other + text[end:]
    if kind == 3:                                   # a number at an edge
        return text[:start] + NUMBERS[where % len(NUMBERS)] + text[end:]
    if kind == 4:                                   # another type or space suffix
        suffix = TYPE_SUFFIXES[where % len(TYPE_SUFFIXES)]
        changed = re.sub(r"\.\w+$", suffix, token) if "." in token else token + suffix
        return text[:start] + changed + text[end:]
    if kind == 5:                                   # punctuation inserted
        return text[:start] + PUNCT[where % len(PUNCT)] + text[start:]
    lines = text.split("\n")
    line = (where // 3) % len(lines)
    if kind == 6:                                   # drop a line
        return "\n".join(lines[:line] + lines[line + 1:])
    if kind == 7:                                   # repeat a line elsewhere
        target = (where * 31) % len(lines)
        return "\n".join(lines[:target] + [lines[line]] + lines[target:])
    if kind == 8:                                   # truncate
        return text[:start]
    # swap two tokens
    if other_start < start:
        (start, end, token), (other_start, other_end, other) = \
            (other_start, other_end, other), (start, end, token)
    if other_start < end:
        return text
    return text[:start] + other + text[end:other_start] + token + text[other_end:]
