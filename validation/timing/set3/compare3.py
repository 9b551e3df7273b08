"""Set 3: warpsim's predictions against the H200's ncu measurements, by half and by sweep.

    python validation/timing/set3/compare3.py [--half dev|held-out|all] [--write]

Reads h200/ (run3_device.sh's outputs, unpacked: check.json, ncu_raw.csv, once.json) and the
predictions of SOURCES: predicted_triton39.json (Triton 3.9's compile here) and the newest of the
predicted_h200_cubins*.json (the cubins the H200 ran), all from predict3.py; --predictions FILE
compares others. Model work looks at `--half dev` (the default);
--write prints and writes comparison3.md with both halves apart.

Per launch: predicted / ncu gpu__time_duration (cold caches, as the model predicts), achieved
occupancy (points), issue active (relative), top stall reason (the largest per-issue-active stall
other than `selected`). Per sweep: Spearman rank correlation of predicted and measured times and the
best-pick gap (the measured time of the configuration warpsim would pick over the measured best).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cases3 import LAUNCHES, half_of  # noqa: E402

MEASURED = os.path.join(HERE, "h200")
SOURCES = {"h200 cubins": "predicted_h200_cubins_tensor_turns.json", "triton 3.9": "predicted_triton39.json"}
TENSOR_CORE = ("mm_", "mmp_", "mmtma_", "attn_")
STALL = "smsp__average_warps_issue_stalled_"


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _ncu_rows(csv_name: str, once_name: str) -> list:
    """(label, row) of one ncu pass: one row per launch, in that run3.py --mode once's order."""
    with open(os.path.join(MEASURED, once_name)) as fh:
        order = [label for label, rec in json.load(fh)["launches"].items() if rec.get("check") != "ERROR"]
    with open(os.path.join(MEASURED, csv_name)) as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    head, data = rows[0], [r for r in rows[2:] if r]
    if len(data) != len(order):
        raise SystemExit(f"{MEASURED}/{csv_name}: {len(data)} kernel rows for {len(order)} launches in {once_name}")
    return [(label, dict(zip(head, row))) for label, row in zip(order, data)]


def measured_extra() -> dict:
    """label -> the second ncu call's figures (run3_device_extra.sh): the repeat's time, and where the
    time goes (tensor pipe, L2 and DRAM throughput in percent of peak, MUFU instructions)."""
    out = {}
    if not os.path.exists(os.path.join(MEASURED, "ncu_where.csv")):
        return out
    for label, d in _ncu_rows("ncu_raw_repeat.csv", "once_repeat.json"):
        out.setdefault(label, {})["repeat_us"] = _num(d["gpu__time_duration.sum"]) / 1e3
    for label, d in _ncu_rows("ncu_where.csv", "once_where.json"):
        out.setdefault(label, {}).update({
            "tensor_pct": _num(d["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"]),
            "l2_pct": _num(d["lts__throughput.avg.pct_of_peak_sustained_elapsed"]),
            "dram_pct": _num(d["dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
            "xu_inst": _num(d["sm__inst_executed_pipe_xu.sum"])})
    return out


def measured() -> dict:
    """label -> ncu's metrics (one row per launch, in run3.py --mode once's order) and the check run's."""
    with open(os.path.join(MEASURED, "check.json")) as fh:
        check = json.load(fh)["launches"]
    launches = {launch.label: launch for launch in LAUNCHES}
    extra = measured_extra()
    out = {}
    for label, d in _ncu_rows("ncu_raw.csv", "once.json"):
        if not d["Kernel Name"].startswith(launches[label].kernel):
            raise SystemExit(f"ncu row of {label} is kernel {d['Kernel Name']}, not {launches[label].kernel}")
        stalls = {k[len(STALL):-len("_per_issue_active.ratio")]: _num(v) for k, v in d.items()
                  if k.startswith(STALL) and v}
        named = {k: v for k, v in stalls.items() if k != "selected"}
        out[label] = {**extra.get(label, {}), "ncu_us": _num(d["gpu__time_duration.sum"]) / 1e3,
                      "occupancy": _num(d["sm__warps_active.avg.pct_of_peak_sustained_active"]),
                      "issue_active": _num(d["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
                      "top_stall": max(named, key=named.get) if named else "",
                      "stalls": stalls, "registers": int(_num(d["launch__registers_per_thread"])),
                      "instructions": _num(d["smsp__inst_executed.sum"]),
                      "dram_bytes": _num(d["dram__bytes_read.sum"]) + _num(d["dram__bytes_write.sum"]),
                      "l2_bytes": _num(d["lts__t_sectors.sum"]) * 32,
                      "clock_ghz": _num(d["sm__cycles_elapsed.avg.per_second"]) / 1e9,
                      "check": check.get(label, {}).get("check"), "rel_err": check.get(label, {}).get("rel_err"),
                      "event_us": check.get(label, {}).get("event_us_median")}
    return out


def spearman(a, b) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    if len(a) < 2 or ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def rows_of(pred: dict, meas: dict, half: str) -> list:
    rows = []
    for launch in LAUNCHES:
        if half != "all" and half_of(launch.label) != half:
            continue
        p, m = pred.get(launch.label, {}), meas.get(launch.label)
        if m is None:
            continue
        row = {"label": launch.label, "sweep": launch.sweep, "half": half_of(launch.label), "m": m, "p": p,
               "ok": "time_us" in p}
        if row["ok"]:
            row["err"] = p["time_us"] / m["ncu_us"] - 1
        rows.append(row)
    return rows


def figures(rows: list) -> dict:
    ok = [r for r in rows if r["ok"]]
    errs = np.array([abs(r["err"]) for r in ok])
    tc = np.array([abs(r["err"]) for r in ok if r["label"].startswith(TENSOR_CORE)])
    sweeps = {}
    for r in ok:
        sweeps.setdefault(r["sweep"], []).append(r)
    per_sweep = {}
    for name, rs in sweeps.items():
        pt = [r["p"]["time_us"] for r in rs]
        mt = [r["m"]["ncu_us"] for r in rs]
        pick = rs[int(np.argmin(pt))]
        best = rs[int(np.argmin(mt))]
        per_sweep[name] = {"n": len(rs), "rho": spearman(pt, mt), "pick": pick["label"], "best": best["label"],
                           "gap": pick["m"]["ncu_us"] / best["m"]["ncu_us"] - 1}
    return {"n": len(rows), "predicted": len(ok),
            "mape": float(errs.mean() * 100) if len(errs) else float("nan"),
            "within25": float((errs <= 0.25).mean() * 100) if len(errs) else float("nan"),
            "within10": float((errs <= 0.10).mean() * 100) if len(errs) else float("nan"),
            "tc_mape": float(tc.mean() * 100) if len(tc) else float("nan"), "tc_n": len(tc),
            "occ5": float(np.mean([abs(r["p"]["occupancy"] - r["m"]["occupancy"]) <= 5 for r in ok]) * 100),
            "iss10": float(np.mean([abs(r["p"]["issue_active"] / max(r["m"]["issue_active"], 1e-9) - 1) <= 0.10
                                    for r in ok]) * 100),
            "stall": float(np.mean([r["p"]["top_stall"] == r["m"]["top_stall"] for r in ok]) * 100),
            "sweeps": per_sweep}


def summary_lines(f: dict) -> list:
    sw = f["sweeps"]
    rhos = [v["rho"] for v in sw.values() if not np.isnan(v["rho"])]
    return [f"launches {f['n']}, predicted {f['predicted']}",
            f"time MAPE vs ncu: {f['mape']:.1f}% (target <= 10%); tensor-core launches ({f['tc_n']}): "
            f"{f['tc_mape']:.1f}% (target <= 12%)",
            f"within 25%: {f['within25']:.0f}% (target >= 90%); within 10%: {f['within10']:.0f}%",
            f"rank correlation per sweep: median {np.median(rhos) if rhos else float('nan'):+.2f}, "
            f">= 0.9 in {sum(r >= 0.9 for r in rhos)} of {len(rhos)} sweeps (target: all)",
            f"predicted best within 5% of measured best: {sum(v['gap'] <= 0.05 for v in sw.values())} of "
            f"{len(sw)} sweeps (target: all)",
            f"occupancy within 5 points: {f['occ5']:.0f}%; issue active within 10%: {f['iss10']:.0f}%; "
            f"top stall equal: {f['stall']:.0f}% (targets 80%)"]


def load_predictions(files=None) -> tuple:
    """({source: {label: prediction}}, {source: the model's commit it was predicted with}); `files`
    (paths) in place of SOURCES."""
    out, commits = {}, {}
    for name, path in ({os.path.basename(f): f for f in files} if files else SOURCES).items():
        full = os.path.join(HERE, path)
        if os.path.exists(full):
            with open(full) as fh:
                data = json.load(fh)
            out[name] = data["launches"]
            commits[name] = data.get("model_commit") or "the working tree"
    return out, commits


_L2_TILES = ("the model is L2-bound: it sends every CTA's cp.async.cg tile loads ({model} MB) through L2 at "
             "{rate_p} TB/s; ncu counts {ncu} MB of L2 sectors ({share} of those bytes) at {rate} TB/s, L2 "
             "throughput {l2_pct} of peak, tensor pipe {tensor_pct} busy, issue active {iss_m} (model {iss}), "
             "SM clock {clk} GHz: the model's L2 bytes or its L2 rate for cp.async tile loads is off")
_TMA = ("in-kernel descriptors, now at SASS level (the GPU's tensor-map layout): the model is L2-bound on the "
        "TMA boxes ({model} MB at {rate_p} TB/s); ncu counts {ncu} MB of L2 ({share} of those bytes) at {rate} "
        "TB/s, tensor pipe {tensor_pct} busy, issue active {iss_m} (model {iss}): the model's TMA bytes, or the "
        "L2 rate it takes for them (microbench8's 27 B/clk/SM for one CTA's 32 KB boxes), is high")
_ATTN = ("the model's bound is {bound} ({model} MB through L2: K and V re-read per query block) at issue active "
         "{iss}; ncu counts {ncu} MB of L2 (L2 throughput {l2_pct} of peak), tensor pipe {tensor_pct} busy, issue "
         "active {iss_m}, more barrier and long-scoreboard stalls than the model, SM clock {clk} GHz: "
         "with 8 warps the two warpgroups take turns between the loop's barriers (model._between_barriers); "
         "with 4, one warpgroup's serial QK^T, softmax, PV chain per k-step is longer on the H200 than the "
         "walk's (ncu spreads its stall samples over the whole loop; not measured further)")
_LN = ("weight and bias (8 KB) re-read by every row: the model sends them through L2 ({model} MB, L2-bound at "
       "{rate_p} TB/s); ncu counts {ncu} MB of L2 at {rate} TB/s: plain ld.global lets L1 serve about half of "
       "the re-reads to the {ctas} CTAs resident per SM")
_FP8_W8 = ("8 warps, 128x256 tiles: ncu's top stall is barrier (5.4 warps per issue, the model 2.2) and issue "
           "active {iss_m} against the model's {iss}, tensor pipe {tensor_pct} busy, SM clock {clk} GHz: the "
           "time goes to the barrier that closes each k-step (the two warpgroups waiting on each other and on "
           "the next stage's loads, a reading of the stalls, not measured), which the model costs lower")
WHY = {   # label -> (template, what it names); filled from the figures by why_line()
    **{k: _L2_TILES for k in ("mm_f16_128x64x64_w4_s4", "mm_f16_64x128x64_w4_s4", "mm_f16_128x128x32_w4_s4",
                              "mm_f16_64x64x64_w4_s4", "mm_bf16_64x256x64_w4_s4", "mm_f8e4m3_128x128x128_w4_s3",
                              "mm_f8e4m3_64x128x128_w4_s4", "mm_f8e4m3_128x64x128_w4_s4",
                              "mmp_f16_128x64x64_w4_s4")},
    **{k: _TMA for k in ("mmtma_f16_128x128x64_w4_s3", "mmtma_f16_128x256x64_w8_s3", "mmtma_f16_128x128x64_w8_s4",
                         "mmtma_f16_64x128x64_w4_s4", "mmtma_f16_128x64x64_w4_s4")},
    **{k: _ATTN for k in ("attn_d64_128x64_w4_s3", "attn_d64_128x128_w8_s3", "attn_d64_128x32_w4_s2",
                          "attn_d64_64x64_w4_s3", "attn_d128_128x64_w8_s3", "attn_d128_128x128_w8_s2",
                          "attn_d128_64x64_w4_s3", "attn_d128_64x32_w4_s2")},
    **{k: _LN for k in ("layernorm_f16_w1", "layernorm_f16_w2", "layernorm_f16_w4", "layernorm_f16_w8")},
    **{k: _FP8_W8 for k in ("mm_f8e4m3_128x256x64_w8_s4", "mm_f8e4m3_128x256x128_w8_s3")},
}


def why_line(label: str, p: dict, m: dict) -> str:
    """One line: what the launch spends its time on per ncu against what the model says."""
    template = WHY.get(label)
    if template is None:
        return "not explained yet"
    d = p.get("details", {})
    inst = p.get("instructions") or 0
    model_l2 = d.get("l2_bytes", 0)
    return template.format(model=f"{d.get('l2_bytes', 0) / 1e6:.0f}", ncu=f"{m['l2_bytes'] / 1e6:.0f}",
                           rate=f"{m['l2_bytes'] / m['ncu_us'] / 1e6:.1f}",
                           rate_p=f"{d.get('l2_bytes', 0) / p['time_us'] / 1e6:.1f}",
                           iss=f"{p['issue_active']:.0f}%", iss_m=f"{m['issue_active']:.0f}%",
                           clk=f"{m['clock_ghz']:.2f}", inst=f"{inst / m['instructions']:.0%}",
                           bound=p.get("bottleneck"), ctas=d.get("ctas_per_sm"),
                           share=f"{m['l2_bytes'] / model_l2:.0%}" if model_l2 else "-",
                           l2_pct=f"{m.get('l2_pct', float('nan')):.0f}%",
                           tensor_pct=f"{m.get('tensor_pct', float('nan')):.0f}%")


def write_markdown(meas: dict, preds: dict, commits: dict, path: str) -> None:
    lines = ["# The timing model against the H200: set 3 (Triton kernels of issue 24)", "",
             "Written by `python validation/timing/set3/compare3.py --write`. Measured: `h200/` (run3_device.sh on "
             "the H200, Triton 3.6: `ncu_raw.csv` gpu__time_duration with ncu's cold caches, `check.json` checks "
             "against torch and CUDA-event medians). Predicted: predict3.py, 6 CTAs of each grid run here "
             "and the model scaling to the whole grid, cold L2, `gpu=\"h200\"`, from the H200's own cubins "
             f"(`{SOURCES['h200 cubins']}`) and from Triton 3.9's compile here (`{SOURCES['triton 3.9']}`).", "",
             "The split into halves (split3.json, seed 20261202: alternate configurations within each sweep) "
             "was made and committed before any prediction or measurement existed. No figure of the model "
             "comes from this set. The model: warpsim at commit "
             + ", ".join(f"{c} ({s})" for s, c in commits.items()) + "; README.md says which rules came "
             "after the set was measured, and which half was looked at when.", "",
             "Command: `python validation/timing/set3/compare3.py --write` (the figures of each half: "
             "`--half dev`, `--half held-out`).", ""]
    spread = [abs(m["repeat_us"] / m["ncu_us"] - 1) for m in meas.values() if "repeat_us" in m]
    if spread:
        lines += [f"The H200's own spread: a second ncu pass (run3_device_extra.sh, another machine start) gives "
                  f"times within {np.median(spread) * 100:.1f}% of the first (median; largest "
                  f"{max(spread) * 100:.1f}%), so configurations closer than about 3% (softmax at 1-8 warps, "
                  "for one) are ordered by noise, on the H200 as in any figure here.", ""]
    for source, pred in preds.items():
        lines += [f"## Figures, predicted from {source}", ""]
        for half in ("dev", "held-out", "all"):
            lines += [f"{half}:", ""] + [f"- {x}" for x in summary_lines(figures(rows_of(pred, meas, half)))] + [""]
        f = figures(rows_of(pred, meas, "all"))
        lines += ["Per sweep, over all its configurations (a half holds 2-4 of a sweep's configurations, so the "
                  "halves' rank figures above are coarse; this table is the autotuning answer):", "",
                  "| sweep | n | rho | warpsim picks | H200 best | gap |", "|---|---|---|---|---|---|"]
        for name, v in f["sweeps"].items():
            lines.append(f"| {name} | {v['n']} | {v['rho']:+.2f} | {v['pick']} | {v['best']} | {v['gap'] * 100:.1f}% |")
        lines.append("")
    lines += ["## Every launch", "",
              "| launch | half | check | ncu us | repeat us | tensor % / L2 % | SM GHz | h200 cubin us | err | "
              "triton 3.9 us | err | "
              "occ pred/ncu | issue pred/ncu | top stall pred / ncu | L2 MB pred/ncu | bottleneck | source |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    cub, t39 = preds.get("h200 cubins", {}), preds.get("triton 3.9", {})
    for launch in LAUNCHES:
        m = meas.get(launch.label)
        if m is None:
            lines.append(f"| {launch.label} | {half_of(launch.label)} | not measured |" + " |" * 14)
            continue
        p, q = cub.get(launch.label, {}), t39.get(launch.label, {})

        def t(x):
            return (f"{x['time_us']:.2f}", f"{(x['time_us'] / m['ncu_us'] - 1) * 100:+.0f}%") if "time_us" in x \
                else ("-", x.get("error", "-")[:60])
        lines.append(f"| {launch.label} | {half_of(launch.label)} | {m['check']} | {m['ncu_us']:.2f} | "
                     f"{m.get('repeat_us', float('nan')):.2f} | "
                     f"{m.get('tensor_pct', float('nan')):.0f} / {m.get('l2_pct', float('nan')):.0f} | "
                     f"{m['clock_ghz']:.2f} | {' | '.join(t(p))} | {' | '.join(t(q))} | "
                     f"{p.get('occupancy', float('nan')):.1f} / {m['occupancy']:.1f} | "
                     f"{p.get('issue_active', float('nan')):.1f} / {m['issue_active']:.1f} | "
                     f"{p.get('top_stall', '-')} / {m['top_stall']} | "
                     f"{p.get('details', {}).get('l2_bytes', float('nan')) / 1e6:.0f} / {m['l2_bytes'] / 1e6:.0f} | "
                     f"{p.get('bottleneck', '-')} | {p.get('source', '-')} |")
    lines += ["", "## Misses over 25% (h200 cubins)", ""]
    misses = [r for r in rows_of(cub, meas, "all") if r["ok"] and abs(r["err"]) > 0.25]
    for r in misses:
        lines.append(f"- `{r['label']}` ({r['err'] * 100:+.0f}%, {r['half']}): {why_line(r['label'], r['p'], r['m'])}")
    if not misses:
        lines.append("none")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", choices=("dev", "held-out", "all"), default="dev")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--predictions", nargs="+", metavar="FILE", help="predict3.py outputs in place of the stored two")
    a = ap.parse_args()
    meas = measured()
    preds, commits = load_predictions(a.predictions)
    halves = ("dev", "held-out", "all") if a.write else (a.half,)
    for source, pred in preds.items():
        for half in halves:
            rows = rows_of(pred, meas, half)
            print(f"== predicted from {source}, {half} half")
            for r in rows:
                p, m = r["p"], r["m"]
                if not r["ok"]:
                    print(f"  {r['label']:32s} ncu {m['ncu_us']:8.2f}  no prediction: {p.get('error', 'missing')[:80]}")
                    continue
                print(f"  {r['label']:32s} pred {p['time_us']:8.2f} ncu {m['ncu_us']:8.2f} "
                      f"err {r['err'] * 100:+6.1f}%  occ {p['occupancy']:5.1f}/{m['occupancy']:5.1f} "
                      f"iss {p['issue_active']:5.1f}/{m['issue_active']:5.1f} "
                      f"stall {p['top_stall']}/{m['top_stall']} [{p['bottleneck']}, {p['source']}]")
            f = figures(rows)
            for name, v in f["sweeps"].items():
                print(f"  sweep {name:28s} n {v['n']} rho {v['rho']:+.2f} pick {v['pick']} best {v['best']} "
                      f"gap {v['gap'] * 100:.1f}%")
            for line in summary_lines(f):
                print("  " + line)
    if a.write:
        write_markdown(meas, preds, commits, os.path.join(HERE, "comparison3.md"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
