"""Two versions of a kernel (or of a program) side by side: which is faster, by how much, and why.

    from warpsim.timing import compare_timings
    c = compare_timings(timing_a, timing_b, labels=("naive", "tiled"))
    c.ratio            # time of b / time of a (below 1: b is faster)
    print(c.render())  # both columns, the speed-up, and the reasons

The reasons come from the model's own terms, largest first: what sets each
version's time (the bottleneck), how many instructions each issues, and the
stall reasons whose warp-cycles (ratio per issue x instructions issued) grew
the most from the faster version to the slower one; then occupancy and issue
activity where they differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .result import Timing

# Differences below these are not worth a line of explanation.
OCCUPANCY_POINTS = 5.0
SHARE_OF_GROWTH = 0.05


def combine(timings: list, label: str = "") -> Timing:
    """One Timing for a program's launches run one after another: times and cycles add, stall
    ratios are weighted by each launch's instructions, occupancy and issue activity by its time;
    the bottleneck is the longest launch's."""
    timings = [t for t in timings if t is not None]
    if not timings:
        raise ValueError(f"no predicted launches to combine{' for ' + label if label else ''}")
    if len(timings) == 1:
        return timings[0]
    time_s = sum(t.time_s for t in timings)
    inst = [max(1.0, t.details.get("instructions", 1.0)) for t in timings]
    total_inst = sum(inst)
    stalls = {}
    for t, n in zip(timings, inst):
        for reason, v in t.stalls.items():
            stalls[reason] = stalls.get(reason, 0.0) + v * n / total_inst
    longest = max(timings, key=lambda t: t.time_s)
    weigh = lambda attr: sum(getattr(t, attr) * t.time_s for t in timings) / time_s  # noqa: E731
    return Timing(time_s=time_s, cycles=sum(t.cycles for t in timings), achieved_occupancy=weigh("achieved_occupancy"),
                  issue_active=weigh("issue_active"), stalls=stalls, bottleneck=longest.bottleneck,
                  source=",".join(sorted({t.source for t in timings})), gpu=longest.gpu,
                  notes=[f"{len(timings)} launches"], details={"instructions": total_inst, "launches": len(timings)},
                  lines=longest.lines)


@dataclass
class Comparison:
    """Two predicted timings and what tells them apart."""

    a: Timing
    b: Timing
    labels: tuple = ("A", "B")
    reasons: list = field(default_factory=list)

    @property
    def ratio(self) -> float:
        """Time of b over time of a."""
        return self.b.time_s / self.a.time_s if self.a.time_s > 0 else float("inf")

    @property
    def faster(self) -> str:
        return self.labels[1] if self.ratio < 1 else self.labels[0]

    @property
    def speedup(self) -> float:
        """How many times faster the faster one is (>= 1)."""
        r = self.ratio
        return 1.0 / r if r < 1 else r

    def summary(self) -> str:
        a, b = self.labels
        if abs(self.ratio - 1) < 0.005:
            return f"{a} and {b} take the same time on {self.a.gpu} ({self.a.time_us:.2f} us)"
        slow, fast = (a, b) if self.ratio < 1 else (b, a)
        return (f"{fast} is {self.speedup:.2f}x faster than {slow} on {self.a.gpu} "
                f"({self.b.time_us:.2f} us / {self.a.time_us:.2f} us = {self.ratio:.3f})")

    def render(self) -> str:
        """Both versions in two columns, then the summary and the reasons."""
        a, b = self.a, self.b
        la, lb = self.labels
        width = max(14, len(la), len(lb))
        rows = [("predicted time", f"{a.time_us:.2f} us", f"{b.time_us:.2f} us"),
                ("cycles", f"{a.cycles:,.0f}", f"{b.cycles:,.0f}"),
                ("instructions", f"{a.details.get('instructions', 0):,.0f}", f"{b.details.get('instructions', 0):,.0f}"),
                ("achieved occupancy", f"{a.achieved_occupancy:.1f}%", f"{b.achieved_occupancy:.1f}%"),
                ("issue active", f"{a.issue_active:.1f}%", f"{b.issue_active:.1f}%"),
                ("bottleneck", a.bottleneck, b.bottleneck),
                ("top stall", _top(a), _top(b)),
                ("counts from", a.source, b.source)]
        out = [f"{'':20} {la:>{width}} {lb:>{width}}"]
        out += [f"{name:20} {x:>{width}} {y:>{width}}" for name, x, y in rows]
        out += ["", self.summary()]
        out += [f"  - {r}" for r in self.reasons]
        return "\n".join(out)


def _top(t: Timing) -> str:
    top = t.top_stall
    return f"{top} {t.stalls.get(top, 0.0):.2f}" if top else "-"


def _warp_cycles(t: Timing) -> dict:
    n = t.details.get("instructions", 0.0)
    return {r: v * n for r, v in t.stalls.items() if r != "selected"}


def explain(a: Timing, b: Timing, labels=("A", "B")) -> list:
    """Why the two differ, in the model's terms, the largest reasons first."""
    la, lb = labels
    slow, fast, ls, lf = (a, b, la, lb) if a.time_s >= b.time_s else (b, a, lb, la)
    out = []
    if slow.bottleneck != fast.bottleneck:
        out.append(f"{ls} is limited by {slow.bottleneck}, {lf} by {fast.bottleneck}")
    else:
        out.append(f"both are limited by {slow.bottleneck}")
    ni, nf = slow.details.get("instructions", 0.0), fast.details.get("instructions", 0.0)
    if ni and nf and abs(ni / nf - 1) > 0.02:
        out.append(f"{ls} issues {ni / nf:.2f}x the warp instructions of {lf} ({ni:,.0f} vs {nf:,.0f})")
    ws, wf = _warp_cycles(slow), _warp_cycles(fast)
    growth = {r: ws.get(r, 0.0) - wf.get(r, 0.0) for r in set(ws) | set(wf)}
    total = sum(v for v in growth.values() if v > 0)
    for r, v in sorted(growth.items(), key=lambda kv: -kv[1]):
        if v <= 0 or v < SHARE_OF_GROWTH * total:
            break
        out.append(f"{r}: {v / total * 100:.0f}% of the extra stalled warp-cycles of {ls} "
                   f"({fast.stalls.get(r, 0.0):.2f} -> {slow.stalls.get(r, 0.0):.2f} warps per issue)")
    if abs(slow.achieved_occupancy - fast.achieved_occupancy) >= OCCUPANCY_POINTS:
        out.append(f"achieved occupancy {ls} {slow.achieved_occupancy:.1f}% vs {lf} {fast.achieved_occupancy:.1f}%")
    if abs(slow.issue_active - fast.issue_active) >= 0.1 * max(slow.issue_active, fast.issue_active):
        out.append(f"issue active {ls} {slow.issue_active:.1f}% vs {lf} {fast.issue_active:.1f}%")
    return out


def compare_timings(a: Timing, b: Timing, labels=("A", "B")) -> Comparison:
    """The Comparison of two predicted timings (each a Timing, or a list of a program's Timings)."""
    a = combine(a, labels[0]) if isinstance(a, (list, tuple)) else a
    b = combine(b, labels[1]) if isinstance(b, (list, tuple)) else b
    if a.gpu != b.gpu:
        raise ValueError(f"the two timings are for different GPUs ({a.gpu}, {b.gpu}): predict both on one")
    return Comparison(a, b, tuple(labels), explain(a, b, labels))
