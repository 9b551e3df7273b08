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


def named_reason(record: dict) -> str:
    """A short reason for one launch's level: '' at SASS level, else why not, in a few words."""
    note, reason = record["note"], record["reason"]
    if reason == "sass":
        return ""
    if reason == "missing opcode":
        found = UNSUPPORTED.search(note)
        parts = found.group(1).split("; ") if found else missing_opcodes(note)
        return "lacks " + ", ".join(dict.fromkeys(re.sub(r" at /\*[0-9a-f]+\*/", "", p) for p in parts))
    if reason == "scheduling model":
        return "runs under scheduling='stack' (the SASS run issues in the its model's order)"
    if "PTX run failed" in note:
        return "the PTX run faulted, so there is nothing to replay"
    if "was not made by warpsim's encode_tiled" in note:
        return "a tensor map written in the kernel (tensormap.replace) is in the GPU's layout on SASS"
    return f"{reason}: {note[:120]}"


def launch_table(records: list, each=None) -> str:
    """Markdown: one row per launch (test, kernel, at SASS level, reason); launches under 'stack' in one
    test file are one row with their count, and so are those at SASS level of a file not in `each`
    (file names; None: every file gets a row per launch)."""
    rows, grouped = [], Counter()
    for r in records:
        path, test = r["test"].split("::", 1)
        why = named_reason(r)
        name = path.rsplit("/", 1)[-1]
        if r["reason"] == "scheduling model" or not why and each is not None and name not in each:
            grouped[(path, why)] += 1
            continue
        rows.append(f"| {path.rsplit('/', 1)[-1]}::{test} | {r['kernel']} | {'yes' if not why else 'no'} | "
                    f"{why or '-'} |")
    rows += [f"| {path.rsplit('/', 1)[-1]} ({count} launches) | - | {'no' if why else 'yes'} | {why or '-'} |"
             for (path, why), count in sorted(grouped.items(), key=lambda item: (bool(item[0][1]), item[0][0]))]
    return "\n".join(["| launch | kernel | SASS level | reason |", "|---|---|---|---|"] + rows)


if __name__ == "__main__":
    # python -m validation.sass_coverage.tally RECORDS.json [...] [--each test_triton.py,...]: the table
    import json
    import sys
    args = sys.argv[1:]
    each = None
    if "--each" in args:
        at = args.index("--each")
        each, args = tuple(args[at + 1].split(",")), args[:at] + args[at + 2:]
    records = [r for path in args for r in json.load(open(path))]
    print(launch_table(records, each))
    print()
    print(summary(records))
