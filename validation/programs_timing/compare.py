"""Per-kernel times of whole public programs: warpsim's prediction against ncu on the H200.

    python validation/programs_timing/compare.py [--markdown] [--min-us 5]

Reads, for each program of programs.csv:
  h200/<program>/ncu.csv     `ncu --clock-control none --csv --page raw --launch-count 20
                             --print-kernel-base mangled --metrics ...` of the program (H200, nvcc 13.0)
  h200/<program>/plain.txt   the program's own output on the H200 (run once, no profiler)
  warpsim/<program>.csv      `warpsim profile --gpu h200 --csv ./main args` (the program's output,
                             then the profile in ncu's CSV layout)

Launches are matched by kernel name and order: the k-th launch of kernel K under ncu is the k-th
launch of K under warpsim (ncu saw the first 20 launches of a program; warpsim profiles all).
Per kernel it prints predicted/measured time; over the kernels whose measured time is at least
--min-us (default 5 us) the mean absolute percentage error and how many are within 25%; per
program the summed kernel time of the matched launches on both sides; and, for programs that time
their own work with CUDA events, what they print on the H200 and under warpsim.

What bounds a kernel on the H200 is read from ncu's throughputs (percent of peak over the
elapsed time): "memory" where DRAM throughput is the largest and at least 40%, "compute" where
the SM throughput is and is at least 40%, else "latency". warpsim's side is its top stall reason
(the largest smsp__average_warps_issue_stalled_*_per_issue_active ratio) and issue active.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
WITHIN = 0.25
SMS = 132                # the H200's SMs

# Programs that time their own GPU work with CUDA events, and the lines that say so:
# (program, what the events enclose, regex with one group, factor to milliseconds).
EVENT_PRINTS = [
    ("asyncAPI", "HtoD 64 MiB + kernel + DtoH 64 MiB (pinned)", r"time spent executing by the GPU: ([\d.]+)", 1.0),
    ("shfl_scan", "scan: 3 launches (first launches)", r"^Time \(ms\): ([\d.]+)", 1.0),
    ("shfl_scan", "integral image, rows pass (first launch)", r"Method: Fast\s+Time \(GPU Timer\): ([\d.]+)", 1.0),
    ("shfl_scan", "integral image, vertical pass (first launch)", r"Vertical Scan\s+Time \(GPU Timer\): ([\d.]+)", 1.0),
    # its "Time = %.5f s" has too few digits: the mean time is Size / Throughput
    ("FDTD3d", "mean of timesteps 2-3 (one launch each)",
     r"Throughput = ([\d.]+) MPoints/s, .*Size = (\d+) Points", None),
]


def ncu_rows(text: str) -> list[dict]:
    """The CSV rows of an ncu --page raw or warpsim --csv output (the program's own lines dropped)."""
    start = text.find('"ID"')
    if start < 0:
        return []
    rows = list(csv.reader(io.StringIO(text[start:])))
    header, body = rows[0], rows[1:]
    if body and body[0] and body[0][0] == "":           # ncu --page raw: a units row
        body = body[1:]
    return [dict(zip(header, row)) for row in body if len(row) == len(header)]


def number(value: str) -> float | None:
    try:
        return float(value.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def launches(rows: list[dict]) -> list[dict]:
    """One dict per launch in launch order: name and every metric, from either layout."""
    by_id: dict[int, dict] = {}
    for row in rows:
        launch = by_id.setdefault(int(row["ID"]), {"name": row["Kernel Name"]})
        if "Metric Name" in row:                    # warpsim --csv: one row per metric
            launch[row["Metric Name"]] = row["Metric Value"]
        else:                                       # ncu --page raw: one row per launch
            launch.update(row)
    return [by_id[k] for k in sorted(by_id)]


def time_us(launch: dict) -> float | None:
    value = number(launch.get("gpu__time_duration.sum", ""))
    return None if value is None else value / 1000.0


def h200_bound(launch: dict) -> str:
    dram = number(launch.get("dram__throughput.avg.pct_of_peak_sustained_elapsed", "")) or 0.0
    sm = number(launch.get("sm__throughput.avg.pct_of_peak_sustained_elapsed", "")) or 0.0
    if max(dram, sm) < 40:
        return f"latency (dram {dram:.0f}%, sm {sm:.0f}%)"
    return f"{'memory' if dram >= sm else 'compute'} (dram {dram:.0f}%, sm {sm:.0f}%)"


def warpsim_stall(launch: dict) -> str:
    stalls = {}
    for key, value in launch.items():
        m = re.fullmatch(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio", key)
        if m and m.group(1) != "selected" and number(value) is not None:
            stalls[m.group(1)] = number(value)
    top = max(stalls, key=stalls.get) if stalls else "?"
    issue = number(launch.get("smsp__issue_active.avg.pct_of_peak_sustained_active", "")) or 0.0
    return top


def ratio_of(predicted: dict, measured: dict, metric: str) -> float | None:
    a, b = number(predicted.get(metric, "")), number(measured.get(metric, ""))
    return a / b if a is not None and b else None


def issue_charged(launch: dict) -> float | None:
    """Issue slots warpsim's timing charged (issue active x elapsed cycles x the sub-partitions of
    the SMs the grid can occupy) over the warp instructions the launch executed: about 1 where the
    model saw every instruction the SASS run counted; well under 1 where it timed fewer (the timing
    samples a PTX run and maps its counts to SASS lines, so a PTX instruction that ptxas expands
    into many SASS ones, or into a called subroutine, is charged once)."""
    issue = number(launch.get("smsp__issue_active.avg.pct_of_peak_sustained_active", ""))
    cycles = number(launch.get("sm__cycles_elapsed.avg", ""))
    inst = number(launch.get("smsp__inst_executed.sum", ""))
    ctas = number(launch.get("sm__ctas_launched.sum", "")) or number(launch.get("launch__grid_size", ""))
    if None in (issue, cycles, inst, ctas) or not inst:
        return None
    return issue / 100 * cycles * 4 * min(SMS, ctas) / inst


def match(measured: list[dict], predicted: list[dict]) -> list[tuple[dict, dict]]:
    """Pair the k-th launch of each kernel name on both sides."""
    seen: dict[str, int] = defaultdict(int)
    by_name: dict[str, list[dict]] = defaultdict(list)
    for launch in predicted:
        by_name[launch["name"]].append(launch)
    pairs = []
    for launch in measured:
        k = seen[launch["name"]]
        seen[launch["name"]] += 1
        if k < len(by_name[launch["name"]]):
            pairs.append((launch, by_name[launch["name"]][k]))
    return pairs


def short(name: str) -> str:
    """A mangled name's identifier (_Z9sopKernelIfi... -> sopKernel), else the name."""
    m = re.match(r"_Z(\d+)", name)
    return name[len(m.group(0)):len(m.group(0)) + int(m.group(1))] if m else name


def label(name: str) -> str:
    """short(name), with the mangled template arguments where there are some
    (_Z28SingleRangeAtomicOnSharedMemIdEvPT_ii -> SingleRangeAtomicOnSharedMem<d>): one program
    can launch several instances of a template."""
    m = re.match(r"_Z(\d+)", name)
    base = short(name)
    if not m:
        return base
    rest = name[len(m.group(0)) + int(m.group(1)):]
    if rest.startswith("I"):
        depth, k = 0, 0
        for k, ch in enumerate(rest):
            depth += ch in "IL"                     # template arguments, literals (Li256E)
            depth -= ch == "E"
            if depth == 0:
                break
        return f"{base}<{rest[1:k]}>"
    return base


def event_times(program: str, text: str) -> dict:
    """{what the events enclose: ms} of a program's event-timed prints in `text`."""
    out = {}
    for name, what, pattern, scale in EVENT_PRINTS:
        m = re.search(pattern, text, re.M) if name == program else None
        if m and scale is None:                    # points / (MPoints/s) -> ms
            out[what] = float(m.group(2)) / float(m.group(1)) * 1e-3
        elif m:
            out[what] = float(m.group(1)) * scale
    return out


def programs() -> list[dict]:
    with open(HERE / "programs.csv") as f:
        return list(csv.DictReader(f))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min-us", type=float, default=5.0)
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    args = parser.parse_args()
    sep = " | " if args.markdown else "  "
    kernels, sums, events, missing = [], [], [], []
    for prog in programs():
        name = prog["program"]
        ncu_file, ws_file = HERE / "h200" / name / "ncu.csv", HERE / "warpsim" / f"{name}.csv"
        if not ncu_file.exists() or not ws_file.exists():
            missing.append(name)
            continue
        ws_text = ws_file.read_text(errors="replace")
        pairs = match(launches(ncu_rows(ncu_file.read_text(errors="replace"))), launches(ncu_rows(ws_text)))
        if not pairs:
            missing.append(name)
            continue
        meas_sum = pred_sum = 0.0
        for m, p in pairs:
            tm, tp = time_us(m), time_us(p)
            if tm is None or tp is None:
                continue
            meas_sum += tm
            pred_sum += tp
            kernels.append(dict(program=name, kind=prog["kind"], kernel=label(m["name"]), measured=tm,
                                predicted=tp, bound=h200_bound(m), stall=warpsim_stall(p),
                                occ_h200=number(m.get("sm__warps_active.avg.pct_of_peak_sustained_active", "")),
                                occ_ws=number(p.get("sm__warps_active.avg.pct_of_peak_sustained_active", "")),
                                issue_h200=number(m.get("smsp__issue_active.avg.pct_of_peak_sustained_active", "")),
                                issue_ws=number(p.get("smsp__issue_active.avg.pct_of_peak_sustained_active", "")),
                                inst=ratio_of(p, m, "smsp__inst_executed.sum"),
                                charged=issue_charged(p),
                                sectors=number(p.get("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", ""))))
        sums.append((name, prog["kind"], len(pairs), meas_sum, pred_sum))
        h200_text = {kind: (HERE / "h200" / name / f"{kind}.txt") for kind in ("plain", "plain_eager")}
        h200_ev = {k: event_times(name, f.read_text(errors="replace")) if f.exists() else {}
                   for k, f in h200_text.items()}
        for what, ms in event_times(name, ws_text).items():
            events.append((name, what, h200_ev["plain"].get(what), h200_ev["plain_eager"].get(what), ms))

    def row(*cells):
        print(("| " + sep.join(map(str, cells)) + " |") if args.markdown else sep.join(map(str, cells)))

    # Each distinct (program, kernel) once per row: its launches' median on both sides.
    grouped: dict[tuple, list[dict]] = defaultdict(list)
    for k in kernels:
        grouped[(k["program"], k["kernel"])].append(k)
    table = []
    for (prog, kernel), ks in grouped.items():
        med = lambda key: sorted(x[key] for x in ks)[len(ks) // 2]
        table.append(dict(ks[len(ks) // 2], measured=med("measured"), predicted=med("predicted"), launches=len(ks)))
    row("program", "kind", "kernel", "launches", "H200 us", "warpsim us", "pred/meas", "H200 bound (ncu)",
        "warpsim top stall", "occupancy % H200/warpsim", "issue active % H200/warpsim", "warp inst warpsim/H200",
        "issue charged/inst (warpsim)", "ld sectors/req (warpsim)")
    if args.markdown:
        row(*["---"] * 14)
    for k in table:
        ratio = k["predicted"] / k["measured"]
        flag = "" if abs(ratio - 1) <= WITHIN else " *"
        occ = f"{k['occ_h200'] or 0:.0f}/{k['occ_ws'] or 0:.0f}"
        issue = f"{k['issue_h200'] or 0:.0f}/{k['issue_ws'] or 0:.0f}"
        sectors = "-" if k["sectors"] is None else f"{k['sectors']:.1f}"
        row(k["program"], k["kind"], k["kernel"], k["launches"], f"{k['measured']:.1f}", f"{k['predicted']:.1f}",
            f"{ratio:.2f}{flag}", k["bound"], k["stall"], occ, issue,
            "-" if k["inst"] is None else f"{k['inst']:.2f}",
            "-" if k["charged"] is None else f"{k['charged']:.2f}", sectors)
    print()
    for title, subset in ((f"kernels >= {args.min_us:g} us on the H200", [k for k in table if k["measured"] >= args.min_us]),
                          ("all kernels", table)):
        if not subset:
            continue
        errors = [abs(k["predicted"] / k["measured"] - 1) for k in subset]
        within = sum(e <= WITHIN for e in errors)
        print(f"{title}: {len(subset)} (program, kernel) rows from {len({k['program'] for k in subset})} programs, "
              f"MAPE {100 * sum(errors) / len(errors):.1f}% (median {100 * sorted(errors)[len(errors) // 2]:.1f}%), "
              f"within 25%: {within} of {len(subset)} ({100 * within / len(subset):.0f}%)")
    launch_errors = [abs(k["predicted"] / k["measured"] - 1) for k in kernels if k["measured"] >= args.min_us]
    if launch_errors:
        print(f"per launch (>= {args.min_us:g} us): {len(launch_errors)} launches, MAPE "
              f"{100 * sum(launch_errors) / len(launch_errors):.1f}%, within 25%: "
              f"{sum(e <= WITHIN for e in launch_errors)}")
    print()
    row("program", "kind", "launches matched", "H200 sum us", "warpsim sum us", "pred/meas")
    if args.markdown:
        row(*["---"] * 6)
    for name, kind, n, meas, pred in sums:
        row(name, kind, n, f"{meas:.1f}", f"{pred:.1f}", f"{pred / meas:.2f}" if meas else "-")
    prog_errors = [abs(p / m - 1) for _, _, _, m, p in sums if m]
    if prog_errors:
        print(f"\nprogram sums: {len(prog_errors)} programs, MAPE {100 * sum(prog_errors) / len(prog_errors):.1f}%, "
              f"within 25%: {sum(e <= WITHIN for e in prog_errors)} of {len(prog_errors)}")
    if events:
        print()
        row("program", "the events enclose", "H200 ms", "H200 ms, modules loaded eagerly", "warpsim ms",
            "warpsim/H200 (eager where measured)")
        if args.markdown:
            row(*["---"] * 6)
        for name, what, h, eager, w in events:
            ref = eager if eager is not None else h
            cell = lambda v: "-" if v is None else f"{v:.4f}"
            row(name, what, cell(h), cell(eager), cell(w), f"{w / ref:.2f}" if ref else "-")
    if missing:
        print(f"\nno matched launches (not measured or not profiled): {', '.join(missing)}")


if __name__ == "__main__":
    main()
