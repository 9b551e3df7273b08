"""warpsim's SASS-level counters against Nsight Compute's on the H200 (expected.json, device/).

    python validation/sass_counters/compare.py [--only REGEX] [--no-write]

Runs every case of cases.py on warpsim under `warpsim.profile(level="sass")`,
with the SASS of ptxas 13.0 (WARPSIM_PTXAS_VERSION=13.0, the ptxas that made
kernels.cubin; the SASS is checked instruction for instruction against that
cubin first), and compares

* every counter of expected.json that warpsim reports (`LaunchProfile.metrics`);
* the `smsp__sass_*` instruction counters, from warpsim's per-SASS-instruction
  counts (Σ over the kernel's instructions, and by opcode class);
* per SASS instruction, Instructions Executed / Thread Instructions Executed /
  Predicated-On Thread Instructions Executed of the device's source page
  (device/source_sass_all.csv.gz) against `LaunchProfile.sass_counts` and the
  SASS counters' per-instruction thread counts.

Prints the tables and writes comparison.md beside this file. Needs ptxas 13.0
in warpsim's tool cache (`warpsim sass --install-ptxas 13.0`).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import re
import sys
import time
from collections import defaultdict

os.environ.setdefault("WARPSIM_PTXAS_VERSION", "13.0")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import warpsim  # noqa: E402
from cases import CASES, check  # noqa: E402
from warpsim.metrics.counters import SassLaunchCounters  # noqa: E402
from warpsim.sass import sass_for_cubin, sass_of  # noqa: E402
from warpsim.sass.replay import ReplayRequest  # noqa: E402

TOLERANCE = 0.01

# Counters warpsim computes from its per-SASS-instruction counts (not LaunchProfile.metrics).
# smsp__sass_inst_executed_op_*: warp-level executions with a guard-true lane, i.e. the requests
# warpsim's SASS counters record per memory instruction (space, operation).
OPCODE_CLASSES = {
    "smsp__sass_inst_executed_op_global_ld.sum": ("global", "ld"),
    "smsp__sass_inst_executed_op_global_st.sum": ("global", "st"),
    "smsp__sass_inst_executed_op_global_atom.sum": ("global", "atom"),
    "smsp__sass_inst_executed_op_global_red.sum": ("global", "red"),
    "smsp__sass_inst_executed_op_shared_ld.sum": ("shared", "ld"),
    "smsp__sass_inst_executed_op_shared_st.sum": ("shared", "st"),
}
PER_PC = {"smsp__sass_inst_executed.sum": 0, "smsp__sass_thread_inst_executed.sum": 1,
          "smsp__sass_thread_inst_executed_pred_on.sum": 2}

FAMILIES = [
    ("instructions", ("smsp__inst_executed.sum", "smsp__sass_inst_executed.sum")),
    ("thread instructions", ("smsp__thread_inst_executed.sum", "smsp__sass_thread_inst_executed.sum")),
    ("predicated-on threads", ("smsp__thread_inst_executed_pred_on.sum",
                               "smsp__sass_thread_inst_executed_pred_on.sum")),
    ("branches", ("smsp__sass_branch_targets", "smsp__sass_inst_executed_op_branch.sum")),
    ("instruction classes", ("smsp__inst_executed_op_", "smsp__sass_inst_executed_op_global",
                             "smsp__sass_inst_executed_op_shared")),
    ("global requests, sectors", ("l1tex__t_",)),
    ("shared wavefronts, conflicts", ("l1tex__data_",)),
    ("launch", ("launch__", "smsp__warps_launched", "sm__ctas_launched")),
]


def family_of(name: str) -> str:
    for family, prefixes in FAMILIES:
        if any(name.startswith(p) for p in prefixes):
            return family
    return "other"


def relative(gpu, sim) -> float:
    if gpu == sim:
        return 0.0
    return abs(sim - gpu) / abs(gpu) if gpu else float("inf")


# ---------------------------------------------------------------- the device's source page

def device_source_pages(path: str) -> list:
    """Per launch, in cases order: {offset: (insts, thread insts, pred-on thread insts)}.

    The page prints each launch twice in a row (identically); the second copy is checked and dropped."""
    pages, current, header = [], None, None
    with gzip.open(path, "rt") as handle:
        for row in csv.reader(handle):
            if not row:
                continue
            if row[0] == "Kernel Name":
                current = {"kernel": row[1], "rows": []}
                pages.append(current)
                header = None
                continue
            if row[0] == "Address":
                header = {name: k for k, name in enumerate(row)}
                continue
            if header is None or not row[0].startswith("0x"):
                continue
            current["rows"].append((int(row[0], 16), row[header["Source"]].strip(),
                                    int(row[header["Instructions Executed"]]),
                                    int(row[header["Thread Instructions Executed"]]),
                                    int(row[header["Predicated-On Thread Instructions Executed"]])))
    out = []
    for first, second in zip(pages[0::2], pages[1::2]):
        assert first["kernel"] == second["kernel"]
        assert [r[2:] for r in first["rows"]] == [r[2:] for r in second["rows"]], first["kernel"]
        base = first["rows"][0][0]
        out.append((first["kernel"], {addr - base: (a, b, c) for addr, _, a, b, c in first["rows"]}))
    return out


# ---------------------------------------------------------------- running the cases here

def check_sass_is_the_gpus(module) -> str:
    """The SASS warpsim runs (ptxas 13.0 on warpsim's PTX) must be kernels.cubin's, instruction for instruction."""
    with open(os.path.join(HERE, "kernels.cubin"), "rb") as handle:
        gpu = sass_for_cubin(handle.read())
    kernels = sorted({case.kernel for case in CASES})
    ours = sass_of(module.get_function(kernels[0]).loaded_module)
    for name in kernels:
        a = [(i.offset, i.text) for i in gpu.kernel(name).instructions]
        b = [(i.offset, i.text) for i in ours.kernel(name).instructions]
        if a != b:
            raise SystemExit(f"the SASS of {name} differs from kernels.cubin's (ptxas {ours.ptxas_version}); "
                             "install ptxas 13.0: warpsim sass --install-ptxas 13.0")
    return f"ptxas {ours.ptxas_version}: the SASS of all {len(kernels)} kernels equals kernels.cubin's"


def run_case(module, case):
    """(LaunchProfile, {offset: (insts, threads, pred_on)}, ok, message)."""
    args, expected, rtol, atol = case.make()
    device_args = [warpsim.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    seen = []

    def observers(launch):
        counters = SassLaunchCounters(launch.loaded_module, launch.kernel, launch.grid, launch.block,
                                      launch.dynamic_shared)
        seen.append(counters)
        return [counters]

    with warpsim.profile(level="sass") as prof, ReplayRequest(observers):
        module.get_function(case.kernel)(case.grid, case.block, tuple(device_args))
    outputs = {i: warpsim.asnumpy(device_args[i]) for i in expected}
    ok, message = check(case, outputs, expected, rtol, atol)
    (launch,) = prof.launches
    per_pc, requests = {}, defaultdict(int)
    if seen:
        per_pc = seen[0].per_instruction()
        for site in seen[0].sites.values():
            requests[(site.space, site.op)] += site.requests
    return launch, per_pc, requests, ok, message


def warpsim_values(launch, per_pc, requests, names) -> dict:
    out = {}
    for name in names:
        if name in launch.metrics:
            out[name] = launch.metrics[name]
        elif name in PER_PC and launch.level == "sass":
            out[name] = sum(v[PER_PC[name]] for v in per_pc.values())
        elif name in OPCODE_CLASSES and launch.level == "sass":
            out[name] = requests.get(OPCODE_CLASSES[name], 0)
    return out


# ---------------------------------------------------------------- the report

def fmt(v) -> str:
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.4g}"
    return f"{int(v):,}"


def pct(r: float) -> str:
    if r == 0:
        return "0"
    if r == float("inf"):
        return "inf"
    return f"{100 * r:.1f}%"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="regex on case labels")
    parser.add_argument("--no-write", action="store_true", help="print only; leave comparison.md alone")
    args = parser.parse_args(argv)

    with open(os.path.join(HERE, "expected.json")) as handle:
        expected = json.load(handle)
    pages = device_source_pages(os.path.join(HERE, "device", "source_sass_all.csv.gz"))
    assert len(pages) == len(CASES) == len(expected["cases"])
    # kernels.ptx is the PTX kernels.cubin was made from (RawModule(code=kernels.cu) would add
    # CuPy's -ftz=true, which the cubin loaded with RawModule(path=kernels.cubin) did not have)
    module = warpsim.RawModule(path=os.path.join(HERE, "kernels.ptx"))
    sass_note = check_sass_is_the_gpus(module)
    print(sass_note)
    sass_module = sass_of(module.get_function(CASES[0].kernel).loaded_module)

    pattern = re.compile(args.only) if args.only else None
    pairs = []              # (case label, counter, gpu, warpsim)
    pc_rows = []            # (case label, pcs, pcs equal in all 3, launch equal, first difference)
    levels, failures = {}, []
    start = time.perf_counter()
    for case, want, (kernel, page) in zip(CASES, expected["cases"], pages):
        assert case.label == want["label"] and case.kernel == kernel == want["kernel"]
        if pattern and not pattern.search(case.label):
            continue
        launch, per_pc, requests, ok, message = run_case(module, case)
        levels[case.label] = (launch.level, launch.level_note)
        if not ok:
            failures.append(f"{case.label}: {message}")
        opcodes = {ins.offset: ins.opcode for ins in sass_module.kernel(case.kernel).instructions}
        got = warpsim_values(launch, per_pc, requests, want["counters"])
        for name, gpu in want["counters"].items():
            if name in got:
                pairs.append((case.label, name, gpu, got[name]))
        # per SASS instruction
        differences = []
        for offset in sorted(set(page) | set(per_pc)):
            g = page.get(offset, (0, 0, 0))
            w = per_pc.get(offset, (0, 0, 0))
            if tuple(g) != tuple(w):
                differences.append((offset, g, w))
        first = ""
        if differences:
            offset, g, w = differences[0]
            first = (f"/*{offset:04x}*/ {opcodes.get(offset, '?')}: GPU {g[0]}/{g[1]}/{g[2]}, "
                     f"warpsim {w[0]}/{w[1]}/{w[2]}")
        executed = sum(1 for v in page.values() if v[0])
        pc_rows.append((case.label, executed, len(differences), first))
        mark = "ok" if not differences else f"{len(differences)} PCs differ"
        print(f"{case.label:36s} {launch.level:4s} per-PC {mark}", flush=True)
    seconds = time.perf_counter() - start

    report = render(pairs, pc_rows, levels, failures, sass_note, seconds)
    print(report)
    if not args.no_write and not pattern:
        with open(os.path.join(HERE, "comparison.md"), "w") as handle:
            handle.write(report)
        print("wrote", os.path.join(HERE, "comparison.md"))
    return 0


def summary_rows(pairs) -> list:
    by_family = defaultdict(lambda: [0, 0, 0])
    for _, name, gpu, sim in pairs:
        r = relative(gpu, sim)
        for key in (family_of(name), "all"):
            by_family[key][0] += 1
            by_family[key][1] += r <= TOLERANCE
            by_family[key][2] += r == 0
    order = [f for f, _ in FAMILIES] + ["other", "all"]
    return [(f, *by_family[f]) for f in order if f in by_family]


def render(pairs, pc_rows, levels, failures, sass_note, seconds) -> str:
    out = io.StringIO()
    w = out.write
    w("# SASS-level counters: warpsim against Nsight Compute on the H200\n\n")
    w("Generated by `python validation/sass_counters/compare.py` (do not edit by hand). GPU: "
      "`expected.json` and `device/source_sass_all.csv.gz` (H200, ncu 2025.3.1, kernels.cubin). "
      f"warpsim: `warpsim.profile(level=\"sass\")` on the same case table; {sass_note}. "
      f"{len(levels)} launches in {seconds:.0f} s.\n\n")
    covered = sum(1 for level, _ in levels.values() if level == "sass")
    w(f"Launches whose SASS run covered them: **{covered} of {len(levels)}**")
    fallbacks = [f"{label} ({note})" for label, (level, note) in levels.items() if level != "sass"]
    w(": fell back: " + "; ".join(fallbacks) + "\n\n" if fallbacks else ".\n\n")
    if failures:
        w("Results that do not match the NumPy reference: " + "; ".join(failures) + "\n\n")
    else:
        w(f"Every launch's outputs match the NumPy reference of cases.py.\n\n")
    w("Counters: those of expected.json that warpsim reports in `LaunchProfile.metrics`, and the "
      "`smsp__sass_*` instruction counters, summed from warpsim's per-SASS-instruction counts "
      "(`SassLaunchCounters.per_instruction()`, whose warp counts are `sass_counts`), and for the "
      "`smsp__sass_inst_executed_op_*` classes from its memory requests (warp executions with a "
      "guard-true lane).\n\n")

    w("## Summary\n\n")
    rows = summary_rows(pairs)
    w("| counter family | (kernel, counter) pairs | within ±1% | exact |\n|---|---:|---:|---:|\n")
    for family, n, close, exact in rows:
        bold = "**" if family == "all" else ""
        w(f"| {bold}{family}{bold} | {n} | {close} ({100 * close / n:.1f}%) | {exact} |\n")
    total = rows[-1]
    w(f"\n**SASS counters equal Nsight Compute's on {total[2]} of {total[1]} (kernel, counter) pairs "
      f"within ±1% ({total[3]} exactly) on the H200.**\n\n")
    pcs = sum(r[1] for r in pc_rows)
    pcs_bad = sum(r[2] for r in pc_rows)
    launches_exact = sum(1 for r in pc_rows if r[2] == 0)
    w(f"Per SASS instruction (Instructions Executed, Thread Instructions Executed, Predicated-On Thread "
      f"Instructions Executed all three equal): **{launches_exact} of {len(pc_rows)} launches exact**; "
      f"{pcs - pcs_bad} of {pcs} executed instructions equal.\n\n")

    w("## Differences\n\n")
    diffs = [(label, name, gpu, sim) for label, name, gpu, sim in pairs if gpu != sim]
    if not diffs:
        w("None.\n\n")
    else:
        w("| case | counter | GPU | warpsim | difference |\n|---|---|---:|---:|---:|\n")
        for label, name, gpu, sim in diffs:
            w(f"| {label} | `{name}` | {fmt(gpu)} | {fmt(sim)} | {pct(relative(gpu, sim))} |\n")
        w("\n")
    bad_pc = [r for r in pc_rows if r[2]]
    if bad_pc:
        w("Per-instruction differences (insts/threads/pred-on):\n\n| case | executed PCs | PCs differing | first |\n"
          "|---|---:|---:|---|\n")
        for label, executed, n, first in bad_pc:
            w(f"| {label} | {executed} | {n} | {first} |\n")
        w("\n")

    w("## Every pair\n\n")
    by_case = defaultdict(list)
    for label, name, gpu, sim in pairs:
        by_case[label].append((name, gpu, sim))
    for label, items in by_case.items():
        level, note = levels[label]
        w(f"### {label}\n\n")
        if level != "sass":
            w(f"PTX-level counts: {note}\n\n")
        w("| counter | GPU | warpsim | difference |\n|---|---:|---:|---:|\n")
        for name, gpu, sim in items:
            w(f"| `{name}` | {fmt(gpu)} | {fmt(sim)} | {pct(relative(gpu, sim))} |\n")
        w("\n")
    return out.getvalue()


if __name__ == "__main__":
    sys.exit(main())
