"""The answer a report leads with: a launch's key figures, each with the section that shows why.

A profiled launch (warpsim.profiler.LaunchProfile, or anything with its attributes) gives
`headline(launch)`: the predicted time when a GPU was chosen, SIMT efficiency, sectors per
global load and per global store request, achieved against theoretical occupancy and the top
stall reason. Each Card names its evidence: the report section (EVIDENCE) where the figure's
cause is shown. The HTML report draws them as linked cards (report/html.py).
"""

from __future__ import annotations

from dataclasses import dataclass

# Section keys a card can point to, and what each section shows.
EVIDENCE = {
    "timing": "the timing model's figures",
    "stalls": "predicted stalls by source line",
    "lanes": "the lane-activity chart",
    "source": "per-line counts beside the source",
    "occupancy": "the occupancy calculation",
    "metrics": "every metric",
}

# A lane reads or writes at most 16 bytes (v4.b32), so a coalesced warp request needs at most
# 512 bytes = 16 sectors; more means the lanes' addresses are scattered.
MOST_SECTORS_COALESCED = 16


@dataclass
class Card:
    """One headline figure: its value, what it is, a line of context and the section behind it."""
    value: str
    title: str
    detail: str
    evidence: str                  # a key of EVIDENCE
    tone: str = ""                 # '', 'warn' or 'bad'
    metric: str = ""               # the Nsight Compute name the value comes from, when there is one


def headline(launch) -> list:
    """The Cards of one launch, in reading order (those the launch has figures for)."""
    m = dict(getattr(launch, "metrics", None) or {})
    timing = getattr(launch, "timing", None)
    cards = []
    if timing is not None:
        cards.append(Card(f"{timing.time_s * 1e6:.2f} us", f"predicted time on {timing.gpu.upper()}",
                          f"{timing.cycles:,.0f} cycles; bottleneck {timing.bottleneck}", "timing",
                          metric="gpu__time_duration.sum"))
    cards += [c for c in (_simt(m, launch), _sectors(m, "ld"), _sectors(m, "st"), _occupancy(m, launch))
              if c is not None]
    if timing is not None and timing.top_stall:
        cards.append(_top_stall(timing))
    shared = m.get("smsp__inst_executed_op_shared_ld.sum", 0) + m.get("smsp__inst_executed_op_shared_st.sum", 0)
    if shared:
        ld = int(m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0))
        st = int(m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0))
        cards.append(Card(f"{ld:,} / {st:,}", "shared bank conflicts, load / store",
                          "wavefronts beyond one per request", "source", "bad" if ld or st else "",
                          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"))
    return cards


def _simt(m: dict, launch):
    name = "warpsim__simt_efficiency.pct"
    if name not in m:
        return None
    pct = m[name]
    threads = m.get("smsp__thread_inst_executed_per_inst_executed.ratio", 0.0)
    divergent = int(m.get("smsp__sass_branch_targets_threads_divergent.sum", 0))
    tone = "bad" if pct < 50 else "warn" if pct < 90 else ""
    evidence = "lanes" if getattr(launch, "activity", None) is not None else "source"
    return Card(f"{pct:.1f}%", "SIMT efficiency",
                f"{threads:.1f} of 32 threads active per warp instruction; {divergent:,} divergent branches",
                evidence, tone, name)


def _sectors(m: dict, op: str):
    name = f"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{op}.ratio"
    if name not in m:
        return None
    what = "load" if op == "ld" else "store"
    requests = int(m.get(f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum", 0))
    if not requests:
        return Card("-", f"sectors per global {what} request", f"no global {what}s", "source", metric=name)
    value = m[name]
    tone = "bad" if value > MOST_SECTORS_COALESCED else ""
    return Card(f"{value:.1f}", f"sectors per global {what} request",
                f"{requests:,} requests; 4 when 32 lanes {what} 4 consecutive bytes each", "source", tone, name)


def _occupancy(m: dict, launch):
    name = "sm__maximum_warps_per_active_cycle_pct"
    if name not in m:
        return None
    theoretical = m[name]
    limiter = m.get("warpsim__occupancy_limiter") or "-"
    timing = getattr(launch, "timing", None)
    if timing is None:
        return Card(f"{theoretical:.0f}%", "theoretical occupancy",
                    f"limited by {limiter}; achieved needs a GPU chosen for the timing model", "occupancy",
                    metric=name)
    achieved = timing.achieved_occupancy
    tone = "warn" if achieved < theoretical / 2 else ""
    return Card(f"{achieved:.1f}% / {theoretical:.0f}%", "achieved / theoretical occupancy",
                f"theoretical: limited by {limiter}", "occupancy", tone,
                "sm__warps_active.avg.pct_of_peak_sustained_active")


def _top_stall(timing) -> Card:
    named = sorted(((v, k) for k, v in timing.stalls.items() if k != "selected"), reverse=True)
    reason, value = timing.top_stall, timing.stalls[timing.top_stall]
    then = ", ".join(f"{k} {v:.2f}" for v, k in named[1:3] if v >= 0.005)
    return Card(reason, "top stall reason",
                f"{value:.2f} warps stalled per issue" + (f"; then {then}" if then else ""),
                "stalls" if getattr(timing, "lines", None) else "timing",
                metric=f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio")
