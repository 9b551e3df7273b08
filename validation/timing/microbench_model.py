"""The timing model against its own microbenchmarks (microbench2.cu, measured in h200/microbench2.json).

    python validation/timing/microbench_model.py [--only REGEX]

The model's figures are fitted from these kernels only (never from the
validation cases), so this script is where a modelling change is checked
first: L1 hit throughput, barrier rounds with and without skew, atomics on
one hot line. Each line prints the measured figure, the model's, and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
SMS = 132
INT_MAX = 0x7FFFFFFF


def _measured():
    with open(os.path.join(HERE, "h200", "microbench2.json")) as fh:
        return json.load(fh)


def _predict(mod, name, grid, block, args, ctas=6):
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    k = mod.get_function(name)
    params = pack_arguments(k.kernel_name, k.params, args)
    return predict(k.loaded_module, k.kernel_name, (grid,), (block,), params, 0, gpu="h200", max_ctas=ctas)


def barrier_rows(ws, mod, meas):
    """Cycles per round of mb_bar (one CTA per SM and full SMs), measured per CTA with clock64."""
    iters = 200
    for key, m in meas["barriers"].items():
        if "error" in m:
            continue
        block, per_sm, skew = m["block"], m["ctas_per_sm"], int(key.rsplit("skew", 1)[1])
        grid = SMS * per_sm
        out = ws.zeros(grid * block, dtype=np.float32)
        cyc = ws.zeros(grid, dtype=np.int64)
        t = _predict(mod, "mb_bar", grid, block, (out, cyc, np.int32(iters), np.int32(skew)))
        per_round = t.cycles / iters
        yield key, m["cycles_per_round_median"], per_round, t


def l1_rows(ws, mod, meas):
    data = ws.asarray(np.random.default_rng(1).random(1 << 16, dtype=np.float32))
    n = 64
    for key, m in meas["l1"].items():
        if "error" in m:
            continue
        w = m["warps_per_sm"]
        block, grid = 32 * min(32, w), SMS * max(1, w // 32)
        out = ws.zeros(grid * block, dtype=np.float32)
        t = _predict(mod, "mb_l1_load", grid, block,
                     (out, data, np.int32(n), np.int32(m["m1"]), np.int32(m["m2"]), np.int32(1023)))
        yield key, m["warp_requests_per_clk_per_sm"], w * 16 * n / t.cycles, t


def atomic_rows(ws, mod, meas):
    specs = {"red_s32_one_address_32_lanes": ("mb_red_s32", 0, 0, 0, 0, 0, 2),
             "red_f32_one_address_32_lanes": ("mb_red_f32", 0, 0, 0, 0, 0, 2),
             "red_s32_one_address_1_lane": ("mb_red_s32", 0, 0, 0, 31, 0, 16),
             "red_f32_one_address_1_lane": ("mb_red_f32", 0, 0, 0, 31, 0, 16),
             "red_s32_4_addresses_one_line": ("mb_red_s32", 3, 0, 0, 0, 0, 8),
             "red_s32_32_addresses_one_line": ("mb_red_s32", 31, 0, 0, 0, 0, 16)}
    grid, block = SMS * 8, 256
    for key, (kern, lm, wm, wsh, skip, stride, n) in specs.items():
        m = meas["atomics"].get(key, {})
        if "error" in m or not m:
            continue
        buf = ws.zeros(1024, dtype=np.float32 if "f32" in kern else np.int32)
        times = []
        for iters in (n, 2 * n):
            t = _predict(mod, kern, grid, block, (buf,) + tuple(np.int32(v) for v in (iters, lm, wm, wsh, skip, stride)))
            times.append(t)
        per = (times[1].cycles - times[0].cycles) / (grid * block // 32 * n)
        yield key, m["cycles_per_warp_request_chip"], per, times[1]


def occupancy_rows(ws, mod, meas):
    """ncu's achieved occupancy (and issue active) of the third batch against the model's."""
    sys.path.insert(0, HERE)
    from microbench_runner import ncu_rows, number as num
    from run_microbench3 import CONFIGS
    rows = ncu_rows("microbench3_ncu.csv")
    rng = np.random.default_rng(2)
    bufs = {"out": ws.zeros(SMS * 2048 * 8, dtype=np.float32),
            "x": ws.asarray(rng.random(1 << 24, dtype=np.float32)), "y": ws.asarray(rng.random(1 << 24, dtype=np.float32)),
            "small": ws.asarray(rng.random(1 << 16, dtype=np.float32)),
            "cycles": ws.zeros(SMS * 64, dtype=np.int64), "ints": ws.zeros(1024, dtype=np.int32)}
    from run_microbench3 import _args
    for (label, kern, grid, block, spec), r in zip(CONFIGS, rows):
        spec = tuple(spec)
        if spec[0] == "out":
            spec = ("out", min(spec[1], 256))          # the occupancy shape, not the length
        if spec[0] == "bar":
            spec = ("bar", 100, spec[2])
        if spec[0] == "l1":
            spec = ("l1", 32) + spec[2:]
        t = _predict(mod, kern, grid, block, _args(ws, spec, grid, block, bufs))
        occ = num(r["sm__warps_active.avg.pct_of_peak_sustained_active"])
        iss = num(r["smsp__issue_active.avg.pct_of_peak_sustained_active"])
        print(f"{label:34s} occ {occ:5.1f} / {t.achieved_occupancy:5.1f}   iss {iss:5.1f} / {t.issue_active:5.1f}   "
              f"time {num(r['gpu__time_duration.sum']) / 1e3:8.2f} us (ncu; model at the shortened length "
              f"{t.time_us:.2f})", flush=True)
        yield label, occ, t.achieved_occupancy, t


def fourth_batch_rows(ws, mod4):
    """microbench4.cu under ncu (h200/microbench4_ncu.csv): mb_smsp_skew's time against its unskewed
    configuration (which warps share a scheduler), mb_bar_sts's cycles per round (barriers after shared
    stores), mb_stream_hold's achieved occupancy (CTA slot release). The model runs shortened lengths."""
    from microbench_runner import ncu_rows, number as num
    from run_microbench4 import CONFIGS
    rows = ncu_rows("microbench4_ncu.csv")
    rng = np.random.default_rng(4)
    n = 1 << 22
    bufs = {"out": ws.zeros(SMS * 2048, dtype=np.float32), "cycles": ws.zeros(SMS * 64, dtype=np.int64),
            "x": ws.asarray(rng.random(n, dtype=np.float32)), "y": ws.asarray(rng.random(n, dtype=np.float32))}
    base = {}
    for (label, kern, grid, block, spec), r in zip(CONFIGS, rows):
        ncu_us = num(r["gpu__time_duration.sum"]) / 1e3
        if spec[0] == "skew":
            t = _predict(mod4, kern, grid, block, (bufs["out"], np.int32(25)) + tuple(np.int32(v) for v in spec[2:]))
            key = "_".join(label.split("_")[:3])
            if spec[3] == 2:
                base[key] = (ncu_us - 2.0, t.time_us - 2.0)
            ref = base.get(key, base.get("smsp_b128_16ctas"))       # 3-warp CTAs: against 4-warp ones
            got, pred = (ncu_us - 2.0) / ref[0], (t.time_us - 2.0) / ref[1]
            yield label + " (time / unskewed)", got, pred, t
        elif spec[0] == "barsts":
            iters = 50
            t = _predict(mod4, kern, grid, block, (bufs["out"], bufs["cycles"], np.int32(iters)) +
                         tuple(np.int32(v) for v in spec[2:]))
            got = (ncu_us - 2.0) * 1e-6 * 1.98e9 / spec[1]
            yield label + " (cycles per round)", got, (t.time_us - 2.0) * 1e-6 * 1.98e9 / iters, t
        elif spec[0] == "hold":
            t = _predict(mod4, kern, n // block, block, (bufs["y"], bufs["x"], np.float32(2.0), np.int32(n),
                                                          np.int32(spec[1])))
            yield label + " (occupancy %)", num(r["sm__warps_active.avg.pct_of_peak_sustained_active"]), \
                t.achieved_occupancy, t


def main() -> int:
    import warpsim as ws
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--batch", help="only the tables whose title has this word (barrier, L1, atomic, occupancy, fourth)")
    a = ap.parse_args()
    meas = _measured()
    with open(os.path.join(HERE, "microbench2.cu")) as fh:
        mod = ws.RawModule(code=fh.read())
    sys.path.insert(0, HERE)
    from run_on_device import warpsim_module
    mod4 = warpsim_module("microbench4.cu")
    for title, rows in (("barrier cycles per round", barrier_rows), ("L1 requests per clock per SM", l1_rows),
                        ("atomic cycles per warp request", atomic_rows),
                        ("achieved occupancy (ncu / model)", occupancy_rows),
                        ("fourth batch (microbench4.cu)", lambda ws, mod, meas: fourth_batch_rows(ws, mod4))):
        if a.batch and a.batch not in title:
            continue
        print(f"-- {title}: measured, model, model/measured")
        for key, got, pred, t in rows(ws, mod, meas):
            if a.only and not re.search(a.only, key):
                continue
            print(f"{key:40s} {got:9.3f} {pred:9.3f} {pred / got:6.2f}   [{t.bottleneck}; "
                  f"{t.top_stall}; occ {t.achieved_occupancy:.0f}%; iss {t.issue_active:.0f}%]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
