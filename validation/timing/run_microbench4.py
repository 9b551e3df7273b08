"""Fourth batch of H200 microbenchmarks (kernels of microbench4.cu): warp-to-sub-partition assignment,
barriers behind pending shared stores, and CTA slot release.

On the device, one `run` call:

    python3 validation/timing/run_microbench4.py --collect OUTDIR

writes microbench4_slots.json (per configuration of mb_slots: how each warp's hardware slot %warpid
relates to its index in the CTA), microbench4_events.json (every timed configuration, median of 5
launches between CUDA events, plus mb_bar_sts's clock64 cycles per round) and microbench4_ncu.csv
(`ncu --clock-control none --csv --page raw` over one launch of each timed configuration).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_microbench3 import METRICS  # noqa: E402

SMS = 132
N_STREAM = 1 << 24

# label: (kernel, grid, block, argument spec)
CONFIGS = [
    ("smsp_b1024_2ctas_none", "mb_smsp_skew", SMS * 2, 1024, ("skew", 200, 4, 2)),
    ("smsp_b1024_2ctas_mod4", "mb_smsp_skew", SMS * 2, 1024, ("skew", 200, 4, 0)),
    ("smsp_b1024_2ctas_first_quarter", "mb_smsp_skew", SMS * 2, 1024, ("skew", 200, 4, 1)),
    ("smsp_b128_16ctas_none", "mb_smsp_skew", SMS * 16, 128, ("skew", 200, 4, 2)),
    ("smsp_b128_16ctas_warp0", "mb_smsp_skew", SMS * 16, 128, ("skew", 200, 4, 0)),
    ("smsp_b96_21ctas_warp0", "mb_smsp_skew", SMS * 21, 96, ("skew", 200, 4, 0)),
]
for block, per_sm in ((256, 8), (1024, 2), (256, 1)):
    for stores, bar in ((0, 1), (1, 1), (4, 1), (0, 0), (4, 0)) + (((16, 1), (16, 0)) if block == 256 else ()):
        CONFIGS.append((f"barsts_b{block}_{per_sm}ctas_st{stores}_bar{bar}", "mb_bar_sts", SMS * per_sm, block,
                        ("barsts", 1000, stores, bar)))
for block, hold in ((256, 0), (256, 250), (256, 1000), (1024, 0), (1024, 1000)):
    CONFIGS.append((f"streamhold_b{block}_hold{hold}", "mb_stream_hold", N_STREAM // block, block, ("hold", hold)))

SLOT_CONFIGS = [(1024, 2), (512, 4), (256, 8), (128, 16), (96, 21), (64, 32), (32, 32), (160, 12)]


def _setup(cp):
    mod = cp.RawModule(path=os.path.join(HERE, "microbench4.cubin"))
    rng = np.random.default_rng(4)
    bufs = {"out": cp.zeros(SMS * 2048, dtype=cp.float32),
            "x": cp.asarray(rng.random(N_STREAM, dtype=np.float32)),
            "y": cp.asarray(rng.random(N_STREAM, dtype=np.float32)),
            "cycles": cp.zeros(SMS * 64, dtype=cp.int64)}
    return mod, bufs


def _args(spec, bufs):
    if spec[0] == "skew":
        return (bufs["out"],) + tuple(np.int32(v) for v in spec[1:])
    if spec[0] == "barsts":
        return (bufs["out"], bufs["cycles"]) + tuple(np.int32(v) for v in spec[1:])
    if spec[0] == "hold":
        return (bufs["y"], bufs["x"], np.float32(2.0), np.int32(N_STREAM), np.int32(spec[1]))
    raise ValueError(spec)


def slots(cp, mod):
    f = mod.get_function("mb_slots")
    res = {}
    for block, per_sm in SLOT_CONFIGS:
        grid = SMS * per_sm
        wpc = -(-block // 32)
        out = cp.zeros(grid * wpc * 2, dtype=cp.uint32)
        f((grid,), (block,), (out, np.int32(4000)))
        a = cp.asnumpy(out).reshape(-1, 2)
        slot, sm, w = a[:, 0] & 0xFFFF, a[:, 0] >> 16, a[:, 1] & 0xFFFF
        cta = np.repeat(np.arange(grid), wpc)
        same_mod4 = float(np.mean(slot % 4 == w % 4))
        # within each CTA: do its warps take consecutive slots from the first one?
        base = np.array([slot[cta == c].min() for c in range(min(grid, 64))])
        consecutive = float(np.mean([np.all(slot[cta == c] - base[c] == w[cta == c]) for c in range(min(grid, 64))]))
        per_smsp = np.bincount(slot % 4, minlength=4).tolist()
        res[f"b{block}_{per_sm}ctas"] = {"block": block, "ctas_per_sm": per_sm, "warps_per_cta": wpc,
                                         "slot_mod4_equals_warp_mod4": same_mod4,
                                         "cta_slots_consecutive_first64": consecutive,
                                         "warps_per_smsp_total": per_smsp,
                                         "cta_first_slots_first_sm": sorted(int(slot[(cta == c)].min()) for c in
                                                                            range(grid) if sm[cta == c][0] == sm[0]),
                                         "sample_cta0": [[int(s), int(x)] for s, x in zip(slot[cta == 0], w[cta == 0])],
                                         "max_slot": int(slot.max())}
        print(f"  slots b{block} x{per_sm}: mod4 match {same_mod4:.3f}, consecutive {consecutive:.2f}, "
              f"per smsp {per_smsp}, max slot {int(slot.max())}", flush=True)
    return res


def launch_all(reps: int):
    import cupy as cp
    mod, bufs = _setup(cp)
    out = {}
    for label, kern, grid, block, spec in CONFIGS:
        f = mod.get_function(kern)
        args = _args(spec, bufs)
        f((grid,), (block,), args)
        cp.cuda.runtime.deviceSynchronize()
        if reps == 1:
            continue
        ts = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            f((grid,), (block,), args)
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        row = {"event_us_median": float(np.median(ts)), "raw_us": ts, "kernel": kern, "grid": grid, "block": block,
               "spec": list(spec)}
        if kern == "mb_bar_sts":
            cyc = cp.asnumpy(bufs["cycles"][:grid]).astype(float) / spec[1]
            row["clock_cycles_per_round_median"] = float(np.median(cyc))
            row["clock_cycles_per_round_max"] = float(cyc.max())
            row["event_cycles_per_round"] = float(np.median(ts)) * 1e-6 * 1.98e9 / spec[1]
        out[label] = row
        print(f"  {label:36s} {np.median(ts):9.2f} us" + (f"  {row['clock_cycles_per_round_median']:8.1f} cyc/round"
                                                         if kern == "mb_bar_sts" else ""), flush=True)
    return out


def main() -> int:
    if "--launch" in sys.argv:
        launch_all(1)
        return 0
    outdir = sys.argv[sys.argv.index("--collect") + 1]
    os.makedirs(outdir, exist_ok=True)
    t0 = time.time()
    import cupy as cp
    mod, _ = _setup(cp)
    try:
        with open(os.path.join(outdir, "microbench4_slots.json"), "w") as fh:
            json.dump(slots(cp, mod), fh, indent=1)
    except Exception as exc:  # noqa: BLE001
        print("slots failed:", repr(exc), flush=True)
    ev = launch_all(5)
    with open(os.path.join(outdir, "microbench4_events.json"), "w") as fh:
        json.dump(ev, fh, indent=1)
    print(f"events done in {time.time() - t0:.0f} s", flush=True)
    csv_path = os.path.join(outdir, "microbench4_ncu.csv")
    cmd = ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--kernel-name", "regex:^mb_(smsp|bar|stream)",
           "--metrics", ",".join(METRICS), "--log-file", csv_path, sys.executable, os.path.abspath(__file__),
           "--launch"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    print(r.stdout[-2000:], r.stderr[-2000:], flush=True)
    print(f"done in {time.time() - t0:.0f} s (ncu rc {r.returncode})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
