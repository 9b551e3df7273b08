"""Stall reasons per source line: where in the kernel its warps wait, and why (Nsight Compute's
source view of warp-state samples, predicted).

The model gives the launch's stall reasons as warps per issue cycle; here each reason's
warp-cycles (the ratio times the instructions issued) go to the SASS instructions that
incur them, then to their CUDA (or Python) source line and PTX line:

- what a warp waits alone (the walk: fixed stall counts, scoreboards, barriers, taken
  branches) goes to the instruction that waits, in proportion to its executions;
- queueing for a unit goes to the instructions that use it: `not_selected` by issues,
  `math_pipe_throttle` by pipe time, `dispatch_stall` by register-bank reads beyond one a
  cycle, `mio_throttle` by shared-memory wavefronts and MUFU time, `lg_throttle` by L1 lines,
  `long_scoreboard` beyond the walk's by where the walk waits on memory, `barrier` by barrier
  executions, `drain` by EXITs.

What is left of a reason with nowhere to go (no instruction uses that unit) goes by issues.
"""

from __future__ import annotations

import numpy as np

from .pipes import pipe_of


def _weights(function, costs, branch_taken_cycles: float) -> dict:
    """Per reason, a weight per SASS instruction (over the sampled CTAs' executions)."""
    e = costs.total_exec
    walk = costs.walk.cost
    facts = costs.facts             # (facts.py: the function's per-instruction tables)
    taken = np.zeros(len(e))
    for i in costs.branches:
        nxt = e[i + 1] if i + 1 < len(e) else 0.0
        taken[i] = max(0.0, e[i] - nxt) if costs.guarded[i] else e[i]
    math = sum(costs.pipe_hold[p] for p in ("fma", "alu", "fp64", "tensor")) * e
    mufu = costs.pipe_hold["mufu"] * e
    return {
        "selected": e,
        "wait": e * walk["wait"] + math,
        "short_scoreboard": e * walk["short_scoreboard"],
        "long_scoreboard": e * walk["long_scoreboard"],
        "barrier": e * walk["barrier"] + e * costs.is_barrier,
        "branch_resolving": e * walk["branch_resolving"] + taken * branch_taken_cycles / 2,
        "no_instruction": taken * branch_taken_cycles / 2,
        "not_selected": e,
        "dispatch_stall": np.maximum(0.0, costs.bank_reads.max(axis=1) - 1.0) * e,
        "math_pipe_throttle": math,
        "mio_throttle": e * costs.per_exec["wavefronts"] + mufu,
        "lg_throttle": e * costs.per_exec["tags"],
        "drain": e * facts.is_exit,
        "_memory": e * (costs.per_exec["l2"] + costs.per_exec["dram"]),
        "_pipes": facts.issues_to_pipe * e,
    }


def instruction_stalls(function, costs, stalls: dict, issued: float, branch_taken_cycles: float) -> dict:
    """reason -> warp-cycles per SASS instruction (arrays), adding up to stalls[reason] x issued."""
    w = _weights(function, costs, branch_taken_cycles)
    out = {}
    for reason, ratio in stalls.items():
        total = ratio * issued
        if total <= 0:
            continue
        weight = w.get(reason)
        if reason == "long_scoreboard" and (weight is None or weight.sum() <= 0):
            weight = w["_memory"]
        if weight is None or weight.sum() <= 0:
            weight = w["selected"]
        if weight.sum() <= 0:
            continue
        out[reason] = total * weight / weight.sum()
    return out


def line_stalls(function, costs, stalls: dict, issued: float, branch_taken_cycles: float) -> list:
    """Per source line (most stalled first): {'file', 'line', 'ptx_lines', 'stalls': reason -> warp-cycles,
    'samples_pct': the line's share of all warp-cycles, 'instructions': SASS instructions}."""
    per = instruction_stalls(function, costs, stalls, issued, branch_taken_cycles)
    if not per:
        return []
    grand = sum(v.sum() for v in per.values())
    per = {r: v.tolist() for r, v in per.items()}       # (Python floats: read one at a time below)
    rows = {}
    for i, ins in enumerate(function.instructions):
        cycles = {r: v[i] for r, v in per.items() if v[i] > 0}
        if not cycles:
            continue
        key = tuple(ins.source) if ins.source else ("", None)
        row = rows.setdefault(key, {"file": key[0], "line": key[1], "ptx_lines": set(), "stalls": {},
                                    "instructions": 0})
        row["instructions"] += 1
        if ins.ptx_line is not None:
            row["ptx_lines"].add(int(ins.ptx_line))
        for r, v in cycles.items():
            row["stalls"][r] = row["stalls"].get(r, 0.0) + v
    out = []
    for row in rows.values():
        row["ptx_lines"] = sorted(row["ptx_lines"])
        row["samples_pct"] = 100.0 * sum(row["stalls"].values()) / grand if grand > 0 else 0.0
        out.append(row)
    out.sort(key=lambda r: -r["samples_pct"])
    return out


__all__ = ["instruction_stalls", "line_stalls", "pipe_of"]
