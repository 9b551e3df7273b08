"""Merge the H200 results (h200/cases_timing.json + h200/ncu_raw_*.csv) into h200/summary.csv
and print the README's validation table (markdown).

    python validation/timing/summarize.py [DIR]      # DIR: h200 (the default) or h200/set2
"""

from __future__ import annotations

import csv
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = os.path.join(HERE, sys.argv[1] if len(sys.argv) > 1 else "h200")
STALL = "smsp__average_warps_issue_stalled_"
COLUMNS = ["gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
           "smsp__issue_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum",
           "sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second", "sm__maximum_warps_per_active_cycle_pct",
           "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "launch__registers_per_thread",
           "launch__waves_per_multiprocessor"]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return text


def ncu_rows():
    """{case index: {metric: value}} in the order ncu profiled them (chunk k starts at ncu_status' first)."""
    status = json.load(open(os.path.join(RAW, "ncu_status.json")))
    firsts = {s["chunk"]: s["first"] for s in status}
    out, units = {}, {}
    for path in sorted(glob.glob(os.path.join(RAW, "ncu_raw_*.csv"))):
        chunk = int(path.rsplit("_", 1)[1].split(".")[0])
        lines = [l for l in open(path) if l.startswith('"')]
        rows = list(csv.reader(lines))
        head, unit_row, data = rows[0], rows[1], rows[2:]
        units.update(dict(zip(head, unit_row)))
        for j, row in enumerate(data):
            rec = dict(zip(head, row))
            out[firsts[chunk] + j] = {k: number(v) for k, v in rec.items()}
    return out, units


def main():
    cases = json.load(open(os.path.join(RAW, "cases_timing.json")))
    ncu, units = ncu_rows()
    table = []
    for c in cases:
        n = ncu.get(c.get("index", -1), {})
        if n and n.get("Kernel Name", "").split("(")[0] != c["kernel"]:
            raise SystemExit(f"ncu row {c['index']} is {n.get('Kernel Name')}, expected {c['kernel']}")
        stalls = {k[len(STALL):-len("_per_issue_active.ratio")]: v for k, v in n.items()
                  if k.startswith(STALL) and isinstance(v, float)}
        ranked = sorted(((v, k) for k, v in stalls.items() if k != "selected"), reverse=True)
        row = {"label": c["label"], "sweep": c["sweep"], "kernel": c["kernel"], "grid": "x".join(map(str, c["grid"])),
               "block": "x".join(map(str, c["block"])), "shared_mem": c["shared_mem"], "num_regs": c.get("num_regs"),
               "check": c.get("check"), "event_us_median": c.get("event_us_median"),
               "event_us_p25": c.get("event_us_p25"), "event_us_p75": c.get("event_us_p75"),
               "back_to_back_us_mean": c.get("back_to_back_us_mean")}
        for m in COLUMNS:
            row[m] = n.get(m)
        row["top_stall"] = ranked[0][1] if ranked else None
        row["top_stall_ratio"] = ranked[0][0] if ranked else None
        row["second_stall"] = ranked[1][1] if len(ranked) > 1 else None
        for k in sorted(stalls):
            row["stall_" + k] = stalls[k]
        row["note"] = c.get("note", "")
        table.append(row)
    keys = list(table[0].keys())
    for r in table:
        keys += [k for k in r if k not in keys]
    with open(os.path.join(RAW, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(table)
    tu = units.get("gpu__time_duration.sum", "")
    print(f"| # | case | sweep | grid x block (smem) | regs | check | event median us | ncu time ({tu}) | "
          "achieved occ. % | issue active % | top stall (warps/issue) | 2nd |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(table):
        smem = f" ({r['shared_mem'] // 1024} KB)" if r["shared_mem"] >= 1024 else ""
        fmt = lambda v, f: (f % v) if isinstance(v, float) else str(v)
        print(f"| {i} | {r['label']} | {r['sweep']} | {r['grid']} x {r['block']}{smem} | {r['num_regs']} | {r['check']} | "
              f"{fmt(r['event_us_median'], '%.2f')} | {fmt(r['gpu__time_duration.sum'], '%.0f')} | "
              f"{fmt(r['sm__warps_active.avg.pct_of_peak_sustained_active'], '%.1f')} | "
              f"{fmt(r['smsp__issue_active.avg.pct_of_peak_sustained_active'], '%.1f')} | "
              f"{r['top_stall']} ({fmt(r['top_stall_ratio'], '%.2f')}) | {r['second_stall']} |")


if __name__ == "__main__":
    main()
