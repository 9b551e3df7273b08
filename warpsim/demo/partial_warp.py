"""A block of 100 threads: four warps, the last with four live lanes."""

from __future__ import annotations

import numpy as np

from ..report.activity import terminal_strips
from . import common

NAME = "partial_warp"
TITLE = "A block of 100 threads"
CLAIM = """
Warps are formed from 32 consecutive threads of a block. A block of 100 threads
occupies four warps, the last with only four live lanes: that warp issues every
instruction for 4 lanes, wasting most of its issue slots. Block sizes that are
multiples of 32 waste nothing.
"""
KERNELS = "partial_warp.cu"
N = 3200                          # a multiple of both 100 and 128
BIG_N, STEPS = 1 << 22, 256       # the launch whose time is predicted (a sample of its blocks runs here)


def run(console=None) -> common.DemoResult:
    from .. import api
    result = common.DemoResult(NAME, TITLE)
    x = np.arange(N, dtype=np.float32)
    runs = {}
    for threads in (100, 128):
        data = api.asarray(x)
        blocks = (N + threads - 1) // threads
        runs[threads] = common.launch(KERNELS, "scale", blocks, threads, (data, np.float32(2), np.int32(N)),
                                      label=f"scale, blocks of {threads}")
        assert np.array_equal(data.get(), 2 * x)
        result.runs.append(runs[threads])
    r100 = runs[100]
    t = r100.trace
    warps_per_block = t.warps_per_cta
    live = [int(v) for v in t.live_lanes[:warps_per_block]]
    slots = warps_per_block * 32
    wasted = slots - 100
    last = t.recorded(warps_per_block - 1)
    last_lanes = float(last.mean())
    issued_per_warp = [int(v) for v in t.issued[:warps_per_block]]
    total_warps = {k: r.trace.total_warps for k, r in runs.items()}
    efficiency = {k: r.lanes_per_instruction / 32 for k, r in runs.items()}
    result.figures.update(warps_per_block=warps_per_block, live_lanes=live, lane_slots=slots,
                          wasted_slots=wasted, last_warp_lanes=last_lanes, issued_per_warp=issued_per_warp,
                          warps_100=total_warps[100], warps_128=total_warps[128],
                          efficiency_100=efficiency[100], efficiency_128=efficiency[128])
    result.add("warps per block of 100 threads", str(warps_per_block), "4", warps_per_block == 4)
    result.add("live lanes per warp", " ".join(map(str, live)), "32 32 32 4", live == [32, 32, 32, 4])
    result.add("lane slots per block: wasted", f"{wasted} of {slots} ({common.pct(wasted / slots)})",
               "28 of 128", wasted == 28)
    result.add("last warp: active lanes per issued instruction",
               f"{last_lanes:.1f} of 32 ({common.pct(1 - last_lanes / 32)} of its slots wasted)",
               "4 (most slots wasted)", last_lanes == 4)
    result.add("SIMT efficiency, blocks of 100 vs 128", f"{common.pct(efficiency[100])} vs "
               f"{common.pct(efficiency[128])}", "(100/128 vs 100%)",
               abs(efficiency[100] - 100 / 128) < 0.01 and efficiency[128] == 1.0)
    result.add(f"warps launched for {N} elements, blocks of 100 vs 128",
               f"{total_warps[100]} vs {total_warps[128]}", "(fewer with full warps)",
               total_warps[128] < total_warps[100])
    add_predicted_rows(result)
    if console is not None:
        common.header(console, result, CLAIM)
        common.say(console, f"  scale(x, 2, {N}) with blocks of 100 threads: the first block's warps "
                            f"(each issued {issued_per_warp[0]} instructions; bar height = active lanes):")
        console.print(terminal_strips(t, warps=warps_per_block, width=common.strip_width(console)), end="")
        console.print(common.figures_table(result))
    return result


def add_predicted_rows(result):
    """Blocks of 100 vs 128 on a launch large enough to fill the GPU: memory-bound and arithmetic."""
    from .. import api
    x = api.asarray(np.ones(BIG_N, dtype=np.float32))
    times = {}
    for threads in (100, 128):
        blocks = -(-BIG_N // threads)
        times["scale", threads] = common.predict(KERNELS, "scale", blocks, threads, (x, np.float32(2), np.int32(BIG_N)))
        times["polish", threads] = common.predict(KERNELS, "polish", blocks, threads,
                                                  (x, np.int32(BIG_N), np.int32(STEPS)))
    slots = 128 / 100
    common.add_predicted(result, f"polish ({STEPS} multiply-adds each, {BIG_N:,} elements), blocks of 100 vs 128",
                         times["polish", 100], times["polish", 128],
                         f"issue slots wasted: up to {slots:.2f}x", lambda r: 1 < r <= slots + 0.05,
                         figure="predicted_polish_ratio")
    common.add_predicted(result, f"scale ({BIG_N:,} elements), blocks of 100 vs 128", times["scale", 100],
                         times["scale", 128], "(more blocks to start)", figure="predicted_scale_ratio")
