"""The timing model's answer for one launch."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Timing:
    """Predicted duration and behaviour of one launch on one GPU.

    time_s: as Nsight Compute's gpu__time_duration measures it (cold caches, as ncu flushes them);
    cycles: SM cycles of the busiest SM; achieved_occupancy: percent of peak warps per active cycle
    (sm__warps_active.avg.pct_of_peak_sustained_active); issue_active: percent of cycles a
    sub-partition issued (smsp__issue_active.avg.pct_of_peak_sustained_active); stalls: Nsight
    Compute reason -> warps stalled per issue cycle (smsp__average_warps_issue_stalled_<r>_per_issue_active);
    bottleneck: the resource that set the time; source: where the counts came from; lines: per CUDA
    (or Python) source line, its warp-cycles by stall reason and its share of them all (`line_table()`).
    """

    time_s: float
    cycles: float
    achieved_occupancy: float
    issue_active: float
    stalls: dict
    bottleneck: str
    source: str
    gpu: str = "h200"
    notes: list = field(default_factory=list)
    details: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)   # per source line, most stalled first (timing/lines.py)

    @property
    def time_us(self) -> float:
        return self.time_s * 1e6

    @property
    def top_stall(self) -> str:
        named = {k: v for k, v in self.stalls.items() if k != "selected"}
        return max(named, key=named.get) if named else ""

    def metrics(self) -> dict:
        """The figures under Nsight Compute's metric names."""
        out = {"gpu__time_duration.sum": self.time_s * 1e9,
               "sm__cycles_elapsed.avg": self.cycles,
               "sm__warps_active.avg.pct_of_peak_sustained_active": self.achieved_occupancy,
               "smsp__issue_active.avg.pct_of_peak_sustained_active": self.issue_active}
        for reason, value in self.stalls.items():
            out[f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"] = value
        return out

    def line_table(self, top: int = 10) -> str:
        """The most stalled source lines as text: share of warp-cycles, top reasons, PTX lines."""
        rows = ["  share  line                        top stall reasons (warp-cycles per issued instruction)"]
        issued = max(1.0, sum(r["stalls"].get("selected", 0.0) for r in self.lines))
        for r in self.lines[:top]:
            where = f"{r['file'].rsplit('/', 1)[-1]}:{r['line']}" if r["line"] is not None else "(no source line)"
            reasons = sorted(((v, k) for k, v in r["stalls"].items() if k != "selected"), reverse=True)[:3]
            text = ", ".join(f"{k} {v / issued:.2f}" for v, k in reasons)
            ptx = f"  [PTX {','.join(map(str, r['ptx_lines'][:4]))}]" if r["ptx_lines"] else ""
            rows.append(f"  {r['samples_pct']:5.1f}%  {where:<26}  {text}{ptx}")
        return "\n".join(rows)

    def __str__(self) -> str:
        top = sorted(((v, k) for k, v in self.stalls.items() if k != "selected"), reverse=True)[:3]
        stalls = ", ".join(f"{k} {v:.2f}" for v, k in top)
        return (f"predicted on {self.gpu}: {self.time_s * 1e6:.2f} us ({self.cycles:,.0f} cycles), "
                f"achieved occupancy {self.achieved_occupancy:.1f}%, issue active {self.issue_active:.1f}%, "
                f"bottleneck {self.bottleneck}; top stalls {stalls} [{self.source}]")
