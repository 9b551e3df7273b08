"""Set 3's attention launches at 4, 8 and 16 heads on an H100 (h100/heads/, run3_heads_device.sh) beside
the model's predictions for the H100 made before they ran (predict3.py --source h200 --gpu h100 --heads H:
the H200's cubins, whose SASS the H100's Triton 3.6 made alike). Fewer heads, fewer CTAs: at 4 heads every
SM holds at most one CTA, so its warps each have a sub-partition to themselves, and what the model misses
there is the one warp's own walk, not warps sharing an SM.

    python validation/timing/set3/compare_heads.py [--stalls] [--model b68|tturns]

--model b68 | tturns: the predictions a later model made (predicted_attn_heads{H}_<model>.json), beside the same runs.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h100", "heads")


def ncu_rows(path: str) -> list:
    with open(path) as fh:
        text = fh.read()
    return [r for r in csv.DictReader(io.StringIO(text[text.index('"ID"'):])) if r["ID"].isdigit()]


def number(value: str) -> float:
    return float(value.replace(",", ""))


def main() -> None:
    stalls = "--stalls" in sys.argv[1:]
    suffix = "_" + sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else ""
    for heads in (4, 8, 16):
        with open(os.path.join(HERE, f"predicted_attn_heads{heads}{suffix}.json")) as fh:
            predicted = json.load(fh)["launches"]
        with open(os.path.join(HERE, f"once_heads{heads}.json")) as fh:
            labels = list(json.load(fh)["launches"])
        rows = ncu_rows(os.path.join(HERE, f"ncu_heads{heads}.csv"))
        reasons = sorted({k.split("stalled_")[1].split("_per_")[0] for k in rows[0] if "_stalled_" in k})
        if stalls:
            print(f"{heads} heads, stall reasons a warp issue (ncu / model): " +
                  ", ".join(r for r in reasons))
        errors = []
        for label, r in zip(labels, rows):
            p = predicted[label]
            us, cycles = number(r["gpu__time_duration.sum"]) / 1e3, number(r["sm__cycles_elapsed.avg"])
            errors.append(p["cycles"] / cycles - 1)
            print(f"{heads:2d} heads {label:26s} {us:7.2f} us, {cycles:7.0f} cycles at "
                  f"{number(r['sm__cycles_elapsed.avg.per_second']) / 1e6:4.0f} MHz; model {p['time_us']:7.2f} us "
                  f"({100 * (p['time_us'] / us - 1):+5.1f}%), {p['cycles']:7.0f} cycles ({100 * errors[-1]:+5.1f}%); "
                  f"occupancy {number(r['sm__warps_active.avg.pct_of_peak_sustained_active']):4.1f} / "
                  f"{p['occupancy']:4.1f}, issue active "
                  f"{number(r['smsp__issue_active.avg.pct_of_peak_sustained_active']):4.1f} / {p['issue_active']:4.1f}")
            if stalls:
                print("    " + ", ".join(
                    f"{x} {number(r[f'smsp__average_warps_issue_stalled_{x}_per_issue_active.ratio']):.2f}"
                    f"/{p['stalls'].get(x, 0.0):.2f}" for x in reasons
                    if max(number(r[f"smsp__average_warps_issue_stalled_{x}_per_issue_active.ratio"]),
                           p["stalls"].get(x, 0.0)) >= 0.05))
        print(f"{heads} heads: mean cycles error {100 * sum(errors) / len(errors):+.1f}%\n")


if __name__ == "__main__":
    main()
