"""device/ncu_raw.csv (the H200 run) -> expected.json and the counter table of README.md.

    python validation/sass_counters/make_expected.py [--table]

Rows of the raw page are in launch order, which is the order of cases.CASES
(the script checks the kernel names agree). expected.json holds, per case, the
kernel, grid, block, the case's seed and note, and every counter that the run
measured (integers; ncu prints them with thousands separators).
"""

from __future__ import annotations

import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cases import CASES  # noqa: E402
from run_on_device import METRICS  # noqa: E402

# Short column names for the README table.
SHORT = {
    "smsp__inst_executed.sum": "inst",
    "smsp__thread_inst_executed.sum": "thr_inst",
    "smsp__thread_inst_executed_pred_on.sum": "thr_pred_on",
    "smsp__sass_inst_executed.sum": "sass_inst",
    "smsp__sass_thread_inst_executed.sum": "sass_thr",
    "smsp__sass_branch_targets.sum": "br_tgt",
    "smsp__sass_branch_targets_threads_divergent.sum": "br_div",
    "smsp__sass_branch_targets_threads_uniform.sum": "br_uni",
    "smsp__sass_inst_executed_op_branch.sum": "br_inst",
    "smsp__sass_inst_executed_op_global_ld.sum": "ldg",
    "smsp__sass_inst_executed_op_global_st.sum": "stg",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "ld_req",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "ld_sec",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "st_req",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "st_sec",
    "smsp__sass_inst_executed_op_global_atom.sum": "atom",
    "smsp__sass_inst_executed_op_global_red.sum": "red",
    "smsp__sass_inst_executed_op_shared_ld.sum": "lds",
    "smsp__sass_inst_executed_op_shared_st.sum": "sts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "lds_wf",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "sts_wf",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "lds_conf",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "sts_conf",
}


def number(text: str):
    text = text.replace(",", "").strip()
    if text in ("", "n/a"):
        return None
    value = float(text)
    return int(value) if value.is_integer() else value


def load(path=os.path.join(HERE, "device", "ncu_raw.csv")):
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    header, units, data = rows[0], rows[1], rows[2:]
    if len(data) != len(CASES):
        raise SystemExit(f"{len(data)} profiled launches, {len(CASES)} cases")
    result = []
    for case, row in zip(CASES, data):
        record = dict(zip(header, row))
        if record["Kernel Name"] != case.kernel:
            raise SystemExit(f"launch {record['ID']}: {record['Kernel Name']} != {case.kernel} ({case.label})")
        counters = {m: number(record[m]) for m in METRICS if m in record}
        result.append((case, counters))
    return result


def expected_json(result) -> dict:
    return {
        "source": "NVIDIA H200, driver 580.159.04 (CUDA 13.0), Nsight Compute 2025.3.1, "
                  "ncu --clock-control none --csv --page raw; cubin kernels.cubin (ptxas 13.0.88, -arch=sm_90 -lineinfo)",
        "cases": [
            {"label": case.label, "kernel": case.kernel, "grid": list(case.grid), "block": list(case.block),
             "seed": case.seed, "note": case.note, **({"params": case.extra} if case.extra else {}),
             "counters": counters}
            for case, counters in result
        ],
    }


def table(result) -> str:
    cols = list(SHORT)
    lines = ["| case | " + " | ".join(SHORT[c] for c in cols) + " |",
             "| --- | " + " | ".join("---:" for _ in cols) + " |"]
    for case, counters in result:
        cells = []
        for c in cols:
            v = counters.get(c)
            cells.append("" if v is None else str(v))
        lines.append(f"| {case.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    result = load()
    with open(os.path.join(HERE, "expected.json"), "w") as handle:
        json.dump(expected_json(result), handle, indent=1)
        handle.write("\n")
    if "--table" in sys.argv:
        print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
