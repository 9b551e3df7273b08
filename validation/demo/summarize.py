"""Predicted (warpsim's timing model, here) beside measured (h200/: ncu's gpu__time_duration with
cold caches, and CUDA-event medians) for the cooperative and profile demos' launches.

    python validation/demo/summarize.py            # prints the table docs/demo.md quotes
"""

from __future__ import annotations

import csv
import json
import pathlib

HERE = pathlib.Path(__file__).parent / "h200"
PROFILE_LABELS = {"slow": "slow", "bucketed": "fix 1 alone: bucketed", "soa": "fix 2 alone: structure of arrays",
                  "threads": "fix 3 alone: a thread per item", "fixed": "fixed: all three"}
NCU_NAMES = {"softmax_kernel": ("softmax", "triton"), "layer_norm_fwd_fused": ("layernorm", "triton")}


def ncu_times() -> list:
    """(kernel, grid, block, us) of every launch ncu timed, in launch order."""
    lines = (HERE / "ncu.csv").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(lines[start:]))
    header, body = rows[0], rows[2:]
    col = {n: header.index(n) for n in ("Kernel Name", "gpu__time_duration.sum", "launch__grid_size",
                                        "launch__block_size")}
    return [(r[col["Kernel Name"]], int(r[col["launch__grid_size"]].replace(",", "")),
             int(r[col["launch__block_size"]].replace(",", "")),
             float(r[col["gpu__time_duration.sum"]].replace(",", "")) / 1e3) for r in body]   # ns


def measured() -> dict:
    """key ('softmax|1024|warp', 'profile|slow') -> (ncu us, event median us, correct)."""
    events = json.loads((HERE / "times.json").read_text())["results"]
    order = list(events)                     # run_on_device.py launches in this order under ncu too
    out = {}
    launches = ncu_times()
    assert len(launches) == len(order), (len(launches), len(order))
    for key, (kernel, _, _, us) in zip(order, launches):
        op, _, way = key.partition("|")[0], None, key.rsplit("|", 1)[-1]
        expected = {"triton": ("softmax_kernel", "layer_norm_fwd_fused")}.get(way, (f"{op}_{way}_per_row",))
        assert op == "profile" and kernel.startswith("score_") or kernel in expected, (key, kernel)
        out[key] = (us, events[key]["median_us"], events[key]["correct"], kernel)
    return out


def predicted() -> dict:
    from warpsim.demo import cooperative, profile
    table = {}
    coop = cooperative.run()
    for (op, cols, way), m in coop.figures["table"].items():
        table[f"{op}|{cols}|{way}"] = m["time_us"]
    prof = profile.run()
    by_label = {v["label"]: v for v in prof.figures["versions"]}
    for short, label in PROFILE_LABELS.items():
        table[f"profile|{short}"] = by_label[label]["time_us"]
    return table


def main():
    got, want = measured(), predicted()
    print("| launch | predicted | ncu (cold) | predicted / ncu | CUDA events (median) | checked |")
    print("|---|---|---|---|---|---|")
    for key, (ncu, event, correct, kernel) in got.items():
        p = want.get(key)
        ratio = f"{p / ncu:.2f}" if p else "-"
        print(f"| {key.replace('|', ' ')} | {p:.2f} us | {ncu:.2f} us | {ratio} | {event:.2f} us | "
              f"{'right' if correct else 'WRONG'} |" if p else
              f"| {key.replace('|', ' ')} | - | {ncu:.2f} us | - | {event:.2f} us | {'right' if correct else 'WRONG'} |")


if __name__ == "__main__":
    main()
