"""Third batch of H200 microbenchmarks: achieved occupancy and issue activity under ncu, for the
timing model's CTA ramp, drain and turnover (kernels of microbench2.cu).

On the device, one `run` call:

    python3 validation/timing/run_microbench3.py --collect OUTDIR

runs every configuration once between CUDA events (median of 5, microbench3_events.json), then
`ncu --clock-control none --csv --page raw --kernel-name regex:^mb_` over one launch of each
(`--launch`), the configurations in CONFIGS order (microbench3_ncu.csv).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
METRICS = ["gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
           "smsp__issue_active.avg.pct_of_peak_sustained_active", "sm__cycles_elapsed.avg",
           "smsp__inst_executed.sum", "sm__cycles_active.avg", "dram__bytes_read.sum", "dram__bytes_write.sum"]
METRICS += [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in (
    "barrier", "branch_resolving", "dispatch_stall", "drain", "lg_throttle", "long_scoreboard",
    "math_pipe_throttle", "mio_throttle", "no_instruction", "not_selected", "selected", "short_scoreboard",
    "wait")]

# label: (kernel, grid, block, argument spec)
CONFIGS = [
    ("chain256_b128_1wave", "mb_cta_chain", SMS * 16, 128, ("out", 256)),
    ("chain256_b1024_1wave", "mb_cta_chain", SMS * 2, 1024, ("out", 256)),
    ("chain256_b128_4waves", "mb_cta_chain", SMS * 64, 128, ("out", 256)),
    ("chain256_b1024_4waves", "mb_cta_chain", SMS * 8, 1024, ("out", 256)),
    ("chain2048_b256_1wave", "mb_cta_chain", SMS * 8, 256, ("out", 2048)),
    ("chain2048_b256_4warps_per_sm", "mb_cta_chain", SMS, 128, ("out", 2048)),
    ("stream_b128_16M", "mb_stream", (1 << 24) // 128, 128, ("stream", 1 << 24)),
    ("stream_b256_16M", "mb_stream", (1 << 24) // 256, 256, ("stream", 1 << 24)),
    ("stream_b1024_16M", "mb_stream", (1 << 24) // 1024, 1024, ("stream", 1 << 24)),
    ("stream_b256_2M", "mb_stream", (1 << 21) // 256, 256, ("stream", 1 << 21)),
    ("l1_two_lines_64w", "mb_l1_load", SMS * 2, 1024, ("l1", 256, 0, 512)),
    ("bar_b256_8ctas_skew0", "mb_bar", SMS * 8, 256, ("bar", 2000, 0)),
    ("bar_b1024_2ctas_skew8", "mb_bar", SMS * 2, 1024, ("bar", 500, 8)),
    ("red_one_address_1_lane", "mb_red_s32", SMS * 8, 256, ("red", 16, 0, 0, 0, 31, 0)),
]


def _args(cp, spec, grid, block, bufs):
    kind = spec[0]
    if kind == "out":
        return (bufs["out"], np.int32(spec[1]))
    if kind == "stream":
        n = spec[1]
        return (bufs["y"], bufs["x"], np.float32(2.0), np.int32(n))
    if kind == "l1":
        return (bufs["out"], bufs["small"], np.int32(spec[1]), np.int32(spec[2]), np.int32(spec[3]), np.int32(1023))
    if kind == "bar":
        return (bufs["out"], bufs["cycles"], np.int32(spec[1]), np.int32(spec[2]))
    if kind == "red":
        return (bufs["ints"],) + tuple(np.int32(v) for v in spec[1:])
    raise ValueError(kind)


def _setup(cp):
    mod = cp.RawModule(path=os.path.join(HERE, "microbench2.cubin"))
    rng = np.random.default_rng(2)
    bufs = {"out": cp.zeros(SMS * 2048 * 64, dtype=cp.float32),
            "x": cp.asarray(rng.random(1 << 24, dtype=np.float32)),
            "y": cp.asarray(rng.random(1 << 24, dtype=np.float32)),
            "small": cp.asarray(rng.random(1 << 16, dtype=np.float32)),
            "cycles": cp.zeros(SMS * 64, dtype=cp.int64), "ints": cp.zeros(1024, dtype=cp.int32)}
    return mod, bufs


def launch_all(reps: int):
    import cupy as cp
    mod, bufs = _setup(cp)
    out = {}
    for label, kern, grid, block, spec in CONFIGS:
        f = mod.get_function(kern)
        args = _args(cp, spec, grid, block, bufs)
        if reps == 1:
            f((grid,), (block,), args)
            cp.cuda.runtime.deviceSynchronize()
            continue
        f((grid,), (block,), args)
        ts = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            f((grid,), (block,), args)
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        out[label] = {"event_us_median": float(np.median(ts)), "raw_us": ts, "kernel": kern, "grid": grid,
                      "block": block, "spec": list(spec)}
        print(f"  {label:32s} {np.median(ts):9.2f} us", flush=True)
    return out


def main() -> int:
    if "--launch" in sys.argv:
        launch_all(1)
        return 0
    outdir = sys.argv[sys.argv.index("--collect") + 1]
    os.makedirs(outdir, exist_ok=True)
    t0 = time.time()
    ev = launch_all(5)
    with open(os.path.join(outdir, "microbench3_events.json"), "w") as fh:
        json.dump(ev, fh, indent=1)
    csv_path = os.path.join(outdir, "microbench3_ncu.csv")
    cmd = ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--kernel-name", "regex:^mb_",
           "--metrics", ",".join(METRICS), "--log-file", csv_path, sys.executable, os.path.abspath(__file__),
           "--launch"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(r.stdout[-3000:], r.stderr[-3000:], flush=True)
    print(f"done in {time.time() - t0:.0f} s (ncu rc {r.returncode})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
