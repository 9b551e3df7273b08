"""Branch on lane vs branch on warp: a divergent branch costs both paths."""

from __future__ import annotations

import numpy as np

from ..report.activity import terminal_strips
from . import common

NAME = "divergence"
TITLE = "Branch on lane vs branch on warp"
CLAIM = """
When lanes of a warp disagree on a branch, the warp runs each side with the other
lanes masked off. branch_on_lane splits every warp even/odd: each pass has 16
active lanes (SIMT efficiency 50%) and each warp runs both loop bodies.
branch_on_warp does the same arithmetic per thread, but whole warps agree:
32 lanes per instruction, one path per warp, about half the issued instructions.
"""
KERNELS = "divergence.cu"
BLOCKS, THREADS, LOOP = 2, 128, 100


def run(console=None) -> common.DemoResult:
    result = common.DemoResult(NAME, TITLE)
    loop_line = common.source_line_of(KERNELS, "for (int i = 0; i < n; ++i)")
    runs = {}
    for kernel in ("branch_on_lane", "branch_on_warp"):
        out = _zeros(BLOCKS * THREADS)
        runs[kernel] = common.launch(KERNELS, kernel, BLOCKS, THREADS, (out, np.int32(LOOP)))
        result.runs.append(runs[kernel])
    lane, warp = runs["branch_on_lane"], runs["branch_on_warp"]
    lane_lanes = common.lanes_on_lines(lane, [loop_line])
    warp_lanes = common.lanes_on_lines(warp, [loop_line])
    ratio = lane.issued / warp.issued
    result.figures.update(
        lane_active_lanes=lane_lanes, warp_active_lanes=warp_lanes,
        lane_issued=lane.issued, warp_issued=warp.issued, issued_ratio=ratio,
        lane_efficiency=lane_lanes / 32, warp_efficiency=warp_lanes / 32,
        lane_overall_lanes=lane.lanes_per_instruction, warp_overall_lanes=warp.lanes_per_instruction)
    result.add("branch_on_lane: lanes/instruction in the loop",
               f"{lane_lanes:.1f}", "16", lane_lanes == 16)
    result.add("branch_on_warp: lanes/instruction in the loop",
               f"{warp_lanes:.1f}", "32", warp_lanes == 32)
    result.add("SIMT efficiency in the loop, lane vs warp",
               f"{common.pct(lane_lanes / 32)} vs {common.pct(warp_lanes / 32)}", "50% vs 100%",
               lane_lanes == 16 and warp_lanes == 32)
    result.add("issued warp instructions, lane / warp",
               f"{lane.issued} / {warp.issued} = {ratio:.2f}x", "about 2x", 1.7 <= ratio <= 2.1)
    if lane.timing is not None and warp.timing is not None:
        cycles = lane.timing.cycles / warp.timing.cycles
        result.figures.update(lane_time_s=lane.timing.time_s, warp_time_s=warp.timing.time_s,
                              predicted_cycles_ratio=cycles)
        result.add(f"predicted on {common.GPU.upper()}: lane vs warp", f"{common.predicted(lane)} vs "
                   f"{common.predicted(warp)}: {cycles:.2f}x the cycles", "about twice as long",
                   1.6 <= cycles <= 2.3)
    ratio_metric = "smsp__thread_inst_executed_per_inst_executed.ratio"
    if lane.metric(ratio_metric) is not None:
        result.add(f"{ratio_metric} (whole launch)",
                   f"{lane.metric(ratio_metric):.1f} vs {warp.metric(ratio_metric):.1f}",
                   "(lane < warp = 32)", lane.metric(ratio_metric) < 32 and warp.metric(ratio_metric) == 32)
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  {BLOCKS} blocks of {THREADS} threads, heavy(v, {LOOP}); line {loop_line} of "
                            f"{KERNELS} is heavy()'s loop.  Lane activity (bar height = active lanes):")
        for r in (lane, warp):
            common.say(console, "  ", (r.label, "bold"))
            console.print(terminal_strips(r.trace, warps=2, width=common.strip_width(console)), end="")
        console.print(common.figures_table(result))
    return result


def _zeros(n):
    from .. import api
    return api.zeros(n, dtype=np.float32)
