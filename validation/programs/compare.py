"""Compare the H200's results (run_native.py) with warpsim's (run_warpsim.py), program by program.

    python validation/programs/compare.py NATIVE.json WARPSIM.json [--show NAME] [--json OUT.json]

A program agrees when both sides ran it, the exit codes are equal, stdout is equal line
for line after the few normalisations below, and every file it wrote is byte for byte
the same. The runs under a sanitizer (compute-sanitizer on the GPU, `warpsim check`
here) are compared on what can be equal: the exit code, the program's own lines, the
number of errors and the source lines the reports name (the two tools word and count
their reports differently: validation/sanitizer/README.md).

Normalisations, each a value the program prints that legitimately differs between two
correct runs; every one keeps the rest of its line exact, and the values it hides are
listed under "notes" so nothing is lost:
- float sums accumulated with atomicAdd from several blocks (sass_only's "total",
  grid_sync's "total"): CUDA leaves the order of atomics unspecified, so the last bits of
  a float sum differ between two runs on one GPU; compared as numbers within 1e-5
  relative, a real error (a missing block) is far larger.
- the time between two CUDA events with nothing between them (device's "empty"): a
  reading of the GPU's clock (a few microseconds or 0 there; warpsim predicts 0). Its
  sign is still compared: it must not be negative.
- the registers a kernel uses (limits' "regs"): ptxas's choice, which changes with the
  ptxas version (the H200 machine has CUDA 13.0, PyPI's nvcc here may be newer). What
  follows from it (the occupancy lines) is not normalised: a difference there shows.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CASES  # noqa: E402

FLOAT = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)"

# case -> [(regex with one group around the value, how to compare it)]
NORMALISED = {
    "sass_only": [(rf"^total ({FLOAT})$", "float sum")],
    "grid_sync": [(rf"^blocks \d+ total ({FLOAT})$", "float sum")],
    "device": [(rf"^elapsed_positive \d+ empty ({FLOAT})$", "event time")],
    "limits": [(r"^potential \w+ \w+ regs (\d+) ", "registers")],
}
RELATIVE = 1e-5
SHOWN_LINES = 8


def _same_value(kind: str, a: str, b: str) -> bool:
    if kind == "float sum":
        x, y = float(a), float(b)
        return abs(x - y) <= RELATIVE * max(1.0, abs(x), abs(y))
    if kind == "event time":
        return float(a) >= 0 and float(b) >= 0
    return True                                      # registers: listed, never a difference by itself


def normalise(case: str, native: list, warpsim: list) -> tuple:
    """Both sides' lines with the values NORMALISED names replaced where they agree as that rule says."""
    notes = []
    native, warpsim = list(native), list(warpsim)
    for pattern, kind in NORMALISED.get(case, ()):
        regex = re.compile(pattern)
        for k in range(min(len(native), len(warpsim))):
            a, b = regex.search(native[k]), regex.search(warpsim[k])
            if not (a and b):
                continue
            if a.group(1) != b.group(1):
                notes.append(f"{kind}: native {a.group(1)} warpsim {b.group(1)}")
            if _same_value(kind, a.group(1), b.group(1)):
                mark = f"<{kind}>"
                native[k] = native[k][:a.start(1)] + mark + native[k][a.end(1):]
                warpsim[k] = warpsim[k][:b.start(1)] + mark + warpsim[k][b.end(1):]
    return native, warpsim, notes


SANITIZER_PREFIX = "========="


def sanitizer_summary(result: dict) -> dict:
    """What two sanitizers' outputs can share: the program's own lines, whether errors were found,
    the source lines named, and whether the target was reported failed. compute-sanitizer runs
    the program once a tool (result["tools"]): its own lines are the first run's."""
    stdout = result["stdout"]
    first_run = next(iter(result["tools"].values()))["stdout"] if result.get("tools") else stdout
    own = [line for line in first_run.splitlines() if not line.startswith(SANITIZER_PREFIX)]
    errors = sum(int(m) for m in re.findall(r"ERROR SUMMARY: (\d+) error", stdout))
    device_lines = "\n".join(line for line in stdout.splitlines() if "Host Frame" not in line)   # kernels' lines only
    places = sorted(set(re.findall(r"([\w.-]+\.cu):(\d+)", device_lines)))
    return {"own lines": own, "errors found": errors > 0,
            "source lines": [f"{f}:{n}" for f, n in places],
            "target failed": "Target application returned an error" in stdout}


def compare_files(native: dict, warpsim: dict, dtypes: dict) -> list:
    problems = []
    for name, dtype in dtypes.items():
        a, b = (native or {}).get(name), (warpsim or {}).get(name)
        if a is None and b is None:
            continue                                 # neither side wrote it (a program that stopped early)
        if a is None or b is None:
            problems.append(f"{name}: missing on {'native' if a is None else 'warpsim'}")
            continue
        if a["sha256"] == b["sha256"]:
            continue
        x = np.frombuffer(base64.b64decode(a["base64"]), dtype=dtype)
        y = np.frombuffer(base64.b64decode(b["base64"]), dtype=dtype)
        if x.size != y.size:
            problems.append(f"{name}: {x.size} vs {y.size} elements")
            continue
        differ = np.flatnonzero(~((x == y) | (np.isnan(x) & np.isnan(y)) if x.dtype.kind == "f" else x == y))
        first = differ[0]
        problems.append(f"{name}: {differ.size} of {x.size} elements differ, first [{first}] native {x[first]} "
                        f"warpsim {y[first]}")
    return problems


def compare_case(name: str, native: dict | None, warpsim: dict | None) -> dict:
    case = next((c for c in CASES if c.name == name), None)
    row = {"program": name, "native": _state(native), "warpsim": _state(warpsim), "agree": False,
           "problems": [], "notes": []}
    if not native or not warpsim or native.get("status") != "ran" or warpsim.get("status") != "ran":
        row["problems"].append("not run on both sides")
        return row
    if native.get("inputs") != warpsim.get("inputs"):
        row["problems"].append("the inputs differ (NumPy's generators gave other numbers)")
    if native["rc"] != warpsim["rc"]:
        row["problems"].append(f"exit code native {native['rc']} warpsim {warpsim['rc']}")
    if case and case.sanitizer:
        a, b = sanitizer_summary(native), sanitizer_summary(warpsim)
        for key in a:
            if a[key] != b[key]:
                row["problems"].append(f"{key}: native {a[key]} warpsim {b[key]}")
    else:
        lines_a, lines_b, notes = normalise(name, native["stdout"].splitlines(), warpsim["stdout"].splitlines())
        row["notes"] += notes
        differing = [k for k in range(max(len(lines_a), len(lines_b)))
                     if k >= len(lines_a) or k >= len(lines_b) or lines_a[k] != lines_b[k]]
        for k in differing[:SHOWN_LINES]:          # more than the first: a cosmetic line must not hide the rest
            a = lines_a[k] if k < len(lines_a) else "<no line>"
            b = lines_b[k] if k < len(lines_b) else "<no line>"
            row["problems"].append(f"stdout line {k + 1}: native {a!r} warpsim {b!r}")
        if len(differing) > SHOWN_LINES:
            row["problems"].append(f"... {len(differing) - SHOWN_LINES} more of {len(differing)} differing lines "
                                   f"({len(lines_a)} native, {len(lines_b)} warpsim)")
        if case:
            row["problems"] += compare_files(native.get("outputs"), warpsim.get("outputs"), case.outputs)
    row["agree"] = not row["problems"]
    return row


def _state(result: dict | None) -> str:
    if not result:
        return "absent"
    return f"rc {result['rc']}" if result.get("status") == "ran" else result.get("status", "?")


def _first_error(build: dict) -> str:
    lines = (build.get("stderr") or build.get("note") or build.get("status", "?")).splitlines()
    return next((line.strip() for line in lines if "error" in line), lines[0] if lines else "?")


def _toolkit(meta: dict) -> str:
    version = meta.get("environment", {}).get("nvcc --version", "")
    return next((line.split(",")[1].strip() for line in version.splitlines() if "release" in line), "nvcc ?")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("native", help="native.json from run_native.py (inside programs_native.tar.gz too)")
    p.add_argument("warpsim", help="warpsim.json from run_warpsim.py")
    p.add_argument("--show", default="", help="print both sides' full stdout and stderr of these programs (commas)")
    p.add_argument("--json", default=None, help="write the rows as JSON here")
    args = p.parse_args(argv)
    native, warpsim = (json.loads(Path(path).read_text()) for path in (args.native, args.warpsim))
    names = [c.name for c in CASES if c.name in native["cases"] or c.name in warpsim["cases"]]
    names += sorted((set(native["cases"]) | set(warpsim["cases"])) - set(names))
    rows = [compare_case(name, native["cases"].get(name), warpsim["cases"].get(name)) for name in names]
    for row in rows:                                # why a program did not run: its build's first error
        for side, data in (("native", native), ("warpsim", warpsim)):
            result = data["cases"].get(row["program"]) or {}
            if result.get("status") == "build failed":
                row["problems"].append(f"{side} build: {_first_error(data['builds'].get(result.get('build'), {}))}")

    width = max(len(r["program"]) for r in rows)
    print(f"{'program':<{width}}  {'native':<12} {'warpsim':<12} {'stdout+files':<12} first difference")
    for row in rows:
        verdict = "equal" if row["agree"] else ("-" if "not run on both sides" in row["problems"] else "DIFFER")
        first = row["problems"][0] if row["problems"] else ""
        print(f"{row['program']:<{width}}  {row['native']:<12} {row['warpsim']:<12} {verdict:<12} {first}")
        for more in row["problems"][1:]:
            print(f"{'':<{width}}  {'':<38} {more}")
        for note in row["notes"]:
            print(f"{'':<{width}}  {'':<38} note: {note}")
    for name in filter(None, args.show.split(",")):
        for side, data in (("native", native), ("warpsim", warpsim)):
            result = data["cases"].get(name, {})
            print(f"\n----- {name} on {side}: {_state(result)}\n{result.get('stdout', '')}\n----- stderr\n"
                  f"{result.get('stderr', '')}")
    both = [r for r in rows if "not run on both sides" not in r["problems"]]
    agree = sum(r["agree"] for r in rows)
    print(f"\n{agree} of {len(rows)} programs agree; {len(both) - agree} differ; "
          f"{len(rows) - len(both)} not run on both sides "
          f"(native: {_toolkit(native['meta'])}; warpsim at {warpsim['meta'].get('commit', '?')[:10]}"
          f"{', arch ' + warpsim['meta']['arch'] if warpsim['meta'].get('arch') else ''})")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if agree == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
