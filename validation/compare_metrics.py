"""Compare warpsim's metrics with Nsight Compute's on the validation launches.

    python validation/compare_metrics.py                 # print the comparison (markdown)
    python validation/compare_metrics.py --update validation/metrics_comparison.md

Runs every launch of validation/cases.py on warpsim under `warpsim.profile()`
and reads the H200's figures from validation/ncu_metrics.csv (written by
validation/run_on_device.sh). Each row is one metric of one launch; `diff`
is (warpsim - ncu) / ncu. `why` names the explanation in
metrics_comparison.md for every difference over 5%: the table is
regenerated, the explanations are written by hand.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cases import CASES, run_all  # noqa: E402

# The metrics of issue 4, in the order of the table.
COMPARED = [
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__thread_inst_executed_pred_on.sum",
    "smsp__sass_branch_targets.sum",
    "smsp__sass_branch_targets_threads_divergent.sum",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__registers_per_thread",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__shared_mem_config_size",
]

# Why a metric may differ by more than 5%: the sections of metrics_comparison.md.
EXPLANATION = {
    "smsp__inst_executed.sum": "A",
    "smsp__thread_inst_executed.sum": "A",
    "smsp__thread_inst_executed_per_inst_executed.ratio": "B",
    "smsp__thread_inst_executed_pred_on.sum": "C",
    "smsp__sass_branch_targets.sum": "D",
    "smsp__sass_branch_targets_threads_divergent.sum": "D",
    "smsp__sass_average_branch_targets_threads_uniform.pct": "D",
}


def parse_number(text: str):
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def read_ncu(path: str) -> dict:
    """launch ID -> {metric: value} from an ncu --csv file."""
    out: dict = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            out.setdefault(int(row["ID"]), {})[row["Metric Name"]] = parse_number(row["Metric Value"])
    return out


def run_warpsim() -> list:
    import warpsim
    with warpsim.profile() as prof:
        run_all(warpsim)
    return prof.launches


def compare(ncu: dict, launches: list, tolerance: float = 0.05) -> list:
    """Rows (case, metric, ncu, warpsim, diff or None, why)."""
    rows = []
    for k, case in enumerate(CASES):
        hw, sim = ncu.get(k, {}), launches[k].metrics
        for name in COMPARED:
            a, b = hw.get(name), sim.get(name)
            if a is None or b is None or (a == 0 and b == 0):
                continue
            diff = (b - a) / a if a else None
            off = diff is None or abs(diff) > tolerance
            why = EXPLANATION.get(name, "E") if off else ""
            rows.append((case.label, name, a, b, diff, why))
    return rows


def fmt(v) -> str:
    if v is None:
        return "-"
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,.2f}"


def markdown(rows: list) -> str:
    lines = ["| launch | metric | H200 (ncu) | warpsim | diff | why |",
             "| --- | --- | ---: | ---: | ---: | --- |"]
    last = None
    for case, name, a, b, diff, why in rows:
        shown = case if case != last else ""
        last = case
        d = "n/a" if diff is None else ("0" if abs(b - a) <= 0.005 else f"{100 * diff:+.1f}%")
        lines.append(f"| {shown} | `{name}` | {fmt(a)} | {fmt(b)} | {d} | {why} |")
    return "\n".join(lines) + "\n"


def summary(rows: list) -> str:
    """Per metric: launches equal (to ncu's two printed decimals), within 5%, compared."""
    by_metric: dict = {}
    for _, name, a, b, diff, _ in rows:
        equal, close, total = by_metric.get(name, (0, 0, 0))
        by_metric[name] = (equal + (abs(b - a) <= 0.005), close + (diff is not None and abs(diff) <= 0.05),
                           total + 1)
    lines = ["| metric | equal | within 5% | launches compared |", "| --- | ---: | ---: | ---: |"]
    for name in COMPARED:
        if name in by_metric:
            equal, close, total = by_metric[name]
            lines.append(f"| `{name}` | {equal} | {close} | {total} |")
    return "\n".join(lines) + "\n"


def update(path: str, text: str, marker: str) -> None:
    with open(path) as handle:
        doc = handle.read()
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    head, _, rest = doc.partition(start)
    _, _, tail = rest.partition(end)
    with open(path, "w") as handle:
        handle.write(f"{head}{start}\n{text}{end}{tail}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ncu", default=os.path.join(HERE, "ncu_metrics.csv"))
    parser.add_argument("--update", help="markdown file whose <!-- table --> and <!-- summary --> "
                                         "sections are rewritten")
    args = parser.parse_args(argv)
    rows = compare(read_ncu(args.ncu), run_warpsim())
    table, totals = markdown(rows), summary(rows)
    if args.update:
        update(args.update, table, "table")
        update(args.update, totals, "summary")
    else:
        print(totals)
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
