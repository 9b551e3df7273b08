"""Why set 5's line chases at 8 and 32 warps an SM run faster on the H100 than the model says: an
event simulation of every warp of the launch, each waiting a line's HBM latency where no warp fetched
the line before, the fetch's remaining time where one is in flight, and the L2's latency after.

    python validation/timing/chase_convoys.py [--card h100]

t5_line_chase's warps all follow one permutation of 32,768 lines (4 MB, which the L2 keeps), each
from its own start: a warp that steps onto a line another fetched follows that warp's path from then
on, on L2 hits until it catches up, then behind its misses. The timing model sees the sampled warps
only, and lets every warp of a single wave wait HBM's latency for every line (model.KernelCosts: "an L2
hit needs a reader of a later wave"): right for 2 warps an SM, 1.8x the time at 32. The simulation
takes its latencies from the card's preset and nothing from the runs it is compared with.
"""

from __future__ import annotations

import argparse
import csv
import heapq
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cases import label_rng            # noqa: E402

ROWS = 32768
STEPS = 256


def simulate(label: str, warps: int, hbm: float, l2: float) -> float:
    """Cycles until the last of `warps` warps has made its STEPS steps (warp w starts at line w)."""
    nxt = label_rng(label).permutation(ROWS)
    at = np.arange(warps) & (ROWS - 1)
    landed = np.full(ROWS, np.inf)      # when each line reached the L2
    steps = np.zeros(warps, dtype=np.int64)
    queue = [(0.0, w) for w in range(warps)]
    end = 0.0
    while queue:
        now, w = heapq.heappop(queue)
        if steps[w] == STEPS:
            end = max(end, now)
            continue
        line = at[w]
        if landed[line] == np.inf:
            landed[line] = done = now + hbm
        else:
            done = max(landed[line], now + l2) if landed[line] > now else now + l2
        at[w] = nxt[line]
        steps[w] += 1
        heapq.heappush(queue, (done, w))
    return end


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--card", default="h100")
    a = ap.parse_args()
    from warpsim.timing.presets import gpu_preset
    preset = gpu_preset(a.card)
    l2 = (preset.l2_hit_latency_near + preset.l2_hit_latency_far) / 2
    with open(os.path.join(HERE, a.card, "set5", "summary.csv")) as fh:
        measured = {r["label"]: float(r["gpu__time_duration.sum"]) / 1e3 for r in csv.DictReader(fh)}
    print(f"{a.card}: HBM {preset.hbm_latency:.0f} cycles, L2 {l2:.0f}, {preset.kernel_clock_mhz:.0f} MHz")
    first = None
    for per_sm in (2, 8, 32):
        label = f"line_chase_{per_sm}w_per_sm"
        us = simulate(label, preset.sms * per_sm, preset.hbm_latency, l2) / preset.kernel_clock_mhz
        first = first or (us, measured[label])
        print(f"{label:24s} simulated {us:6.1f} us, measured {measured[label]:6.1f} us "
              f"({us / measured[label] - 1:+.0%}); against 2 warps an SM: simulated {us / first[0]:.2f}, "
              f"measured {measured[label] / first[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
