"""Lane sets as people read them: '0-15', '1,3,5,7', '0,1,2,3,...,31 (32 lanes)'."""

from __future__ import annotations


def lanes_text(bits: int) -> str:
    """'0-15', '1,3,5,...,31 (16 lanes)': the lanes set in a 32-bit mask."""
    lanes = [k for k in range(32) if bits >> k & 1]
    if not lanes:
        return "none"
    runs, start = [], lanes[0]
    for prev, cur in zip(lanes, lanes[1:] + [None]):
        if cur != prev + 1:
            runs.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = cur
    if len(runs) <= 6:
        return ",".join(runs)
    return ",".join(str(k) for k in lanes[:4]) + f",...,{lanes[-1]} ({len(lanes)} lanes)"
