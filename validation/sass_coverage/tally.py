"""Why a launch fell back to PTX-level counts, in a few kinds, and a table of how often."""

from __future__ import annotations

import re
from collections import Counter

UNSUPPORTED = re.compile(r"the SASS executor does not support (.*?)(?: and \d+ more)? in kernel")


def classify(level: str, note: str) -> str:
    """'sass', or the fallback's kind: 'missing opcode', 'mismatch', 'round budget', 'deadlock',
    'fault', 'scheduling model', 'no SASS', 'other'."""
    if level == "sass":
        return "sass"
    if "does not support" in note:
        return "missing opcode"
    if "memory differs" in note:
        return "mismatch"
    if "ran past" in note:
        return "round budget"
    if "deadlock" in note.lower() or "no lane can issue" in note.lower():
        return "deadlock"
    if "fault" in note.lower() or "out of bounds" in note.lower():
        return "fault"
    if "scheduling" in note:
        return "scheduling model"
    if "no SASS" in note:
        return "no SASS"
    return "other"


def missing_opcodes(note: str) -> list:
    """The opcodes (with modifiers) a 'does not support' note names."""
    found = UNSUPPORTED.search(note)
    if not found:
        return []
    names = []
    for part in found.group(1).split("; "):
        text = part.split(" (", 1)[0].strip()
        names.append(text.split()[0] if text else "?")
    return names


def summary(records: list) -> str:
    """Launch counts per kind, and per missing opcode (launches whose SASS has it)."""
    kinds = Counter(r["reason"] for r in records)
    opcodes = Counter(op for r in records if r["reason"] == "missing opcode"
                      for op in dict.fromkeys(r.get("unsupported") or missing_opcodes(r["note"])))
    others = Counter(r["note"][:160] for r in records if r["reason"] not in ("sass", "missing opcode"))
    lines = [f"launches: {len(records)}"]
    lines += [f"  {kind}: {count}" for kind, count in kinds.most_common()]
    if opcodes:
        lines.append("missing opcodes (launches):")
        lines += [f"  {op}: {count}" for op, count in opcodes.most_common()]
    if others:
        lines.append("other fallbacks:")
        lines += [f"  {count} x {note}" for note, count in others.most_common(20)]
    return "\n".join(lines)
