"""Timing-model ground truth from the H200: microbenchmarks, the validation set, ncu.

On the device (run_on_device.sh calls this):

    python3 validation/timing/run_on_device.py --collect OUTDIR [--deadline SECONDS]

  1. environment (nvidia-smi, nvcc, ncu, CuPy, device properties) -> environment.txt
  2. microbenchmarks (microbench.cu) -> microbench.json
  3. every case of cases.py: checked once against NumPy (PASS/FAIL in the log),
     then 20 warm-up launches and 100 timed ones, each between two CUDA events
     (median, quartiles), and 100 back-to-back launches between one pair -> cases_timing.json
  4. the SM clock again (after the cases), -> microbench.json
  5. `ncu --query-metrics` once (the stall-reason names are taken from it), then
     `ncu --clock-control none --csv --page raw --metrics ...` over all cases, in
     chunks with their own time caps -> ncu_query.txt, ncu_metrics.txt, ncu_raw_<k>.csv
  6. packs OUTDIR/timing_results.tar.gz

Everything is written as it goes; each microbenchmark and each case is in its own try.

    python3 run_on_device.py --launch [--first I --stop J]   # what ncu profiles: each case once
    python3 run_on_device.py --check-here [--only REGEX]      # warpsim, shrunken cases, outputs checked
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import importlib  # noqa: E402

from cases import check  # noqa: E402

# The validation sets: cases module, the kernels' source/cubin name, and the kernel-name prefix ncu filters on.
SETS = {"1": ("cases", "kernels", "tv_"), "2": ("cases2", "kernels2", "t2_"), "4": ("cases4", "kernels4", "t4_"),
        "5": ("cases5", "kernels5", "t5_")}
CASE_SET = "1"


def build_cases(**kw):
    return importlib.import_module(SETS[CASE_SET][0]).build_cases(**kw)


def kernels_name() -> str:
    return SETS[CASE_SET][1]


def kernel_prefix() -> str:
    return SETS[CASE_SET][2]

BASE_METRICS = [
    "gpu__time_duration.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
    "sm__cycles_elapsed.avg",
]
EXTRA_METRICS = [
    "sm__cycles_elapsed.avg.per_second",          # the SM clock during the kernel
    "sm__cycles_active.avg",
    "smsp__warps_launched.sum",
    "sm__maximum_warps_per_active_cycle_pct",     # theoretical occupancy
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__registers_per_thread",
    "launch__waves_per_multiprocessor",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
]
FALLBACK_STALLS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
                   "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
                   "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"]


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------------- modules
def load_modules(cp):
    """CuPy modules from the cubins built here (build.sh, nvcc 13.0); rebuilt with nvcc if they do not load."""
    mods = {}
    for key, name in (("microbench", "microbench"), ("kernels", kernels_name())):
        cubin = os.path.join(HERE, f"{name}.cubin")
        try:
            m = cp.RawModule(path=cubin)
            if key == "microbench":
                m.get_function("mb_empty")
            mods[key] = m
            continue
        except Exception as exc:  # noqa: BLE001
            log(f"{name}.cubin did not load ({exc!r}); compiling with nvcc")
        out = f"/tmp/{name}.cubin"
        subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", out, os.path.join(HERE, f"{name}.cu")], check=True)
        mods[key] = cp.RawModule(path=out)
    return mods


# ---------------------------------------------------------------- microbenchmarks
class Bench:
    def __init__(self, cp, mod):
        self.cp, self.mod = cp, mod
        self.f = mod.get_function

    def events_ms(self, fn, reps=5, warm=1):
        cp = self.cp
        for _ in range(warm):
            fn()
        times = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b))
        return float(np.median(times)), times

    def flush_l2(self):
        cp = self.cp
        if not hasattr(self, "_scratch"):
            self._scratch = cp.ones(64 * 1024 * 1024, dtype=cp.float32)   # 256 MB
        self._scratch += 1.0
        cp.cuda.runtime.deviceSynchronize()

    # -- latency of dependent ALU chains: cycles per op from runs of n and 2n iterations
    def alu_latency(self):
        cp = self.cp
        res = {}
        specs = [("fadd", "mb_lat_fadd", np.float32, 1), ("ffma", "mb_lat_ffma", np.float32, 1),
                 ("imad", "mb_lat_imad", np.int32, 1), ("iadd_xor_pair", "mb_lat_iadd", np.int32, 2),
                 ("dfma", "mb_lat_dfma", np.float64, 1), ("mufu_ex2", "mb_lat_ex2", np.float32, 1),
                 ("mufu_rsqrt", "mb_lat_rsqrt", np.float32, 1)]
        for name, kern, dt, ops_per_step in specs:
            try:
                out = cp.zeros(1, dtype=dt)
                cyc = cp.zeros(1, dtype=cp.int64)
                a = dt(0.37) if dt != np.int32 else np.int32(3)
                bb = dt(1.0001) if dt != np.int32 else np.int32(7)
                if kern in ("mb_lat_ex2", "mb_lat_rsqrt"):
                    bb = dt(0.0)
                got = {}
                for n in (256, 512):
                    best = None
                    for _ in range(5):
                        self.f(kern)((1,), (1,), (out, cyc, np.int32(n), a, bb))
                        c = int(cyc.get()[0])
                        best = c if best is None else min(best, c)
                    got[n] = best
                per_op = (got[512] - got[256]) / (256 * 32 * ops_per_step)
                res[name] = {"cycles_per_op": per_op, "cycles_n256": got[256], "cycles_n512": got[512],
                             "ops_per_step": ops_per_step}
                log(f"  latency {name:14s} {per_op:7.2f} cycles")
            except Exception:  # noqa: BLE001
                res[name] = {"error": traceback.format_exc(limit=2)}
                log(f"  latency {name} FAILED")
        return res

    def chase(self, words_u64, order, warm, mode, n_small, n_big, flush=False):
        """Pointer chase through buffer lines in `order` (indices of u64 words); cycles per hop."""
        cp = self.cp
        buf = cp.zeros(words_u64, dtype=cp.uint64)
        base = buf.data.ptr
        nxt = np.roll(order, -1)
        vals = (base + 8 * nxt.astype(np.uint64)).astype(np.uint64)
        buf[cp.asarray(order)] = cp.asarray(vals)
        start = base + 8 * int(order[0])
        out = cp.zeros(1, dtype=cp.uint64)
        cyc = cp.zeros(1, dtype=cp.int64)
        got = {}
        for n in (n_small, n_big):
            best = None
            for _ in range(3):
                if flush:
                    self.flush_l2()
                self.f("mb_lat_global")((1,), (1,), (out, cyc, np.uint64(start), np.int32(n), np.int32(warm), np.int32(mode)))
                c = int(cyc.get()[0])
                best = c if best is None else min(best, c)
            got[n] = best
        del buf
        return (got[n_big] - got[n_small]) / ((n_big - n_small) * 32), got

    def memory_latency(self):
        cp = self.cp
        res = {}
        rng = np.random.default_rng(1)
        # shared: 4096 words, stride 33 words
        try:
            out = cp.zeros(1, dtype=cp.uint32)
            cyc = cp.zeros(1, dtype=cp.int64)
            got = {}
            for n in (64, 128):
                best = None
                for _ in range(5):
                    self.f("mb_lat_shared")((1,), (1,), (out, cyc, np.int32(n), np.int32(4096), np.int32(33)),
                                            shared_mem=4096 * 4)
                    c = int(cyc.get()[0])
                    best = c if best is None else min(best, c)
                got[n] = best
            res["shared"] = {"cycles_per_hop": (got[128] - got[64]) / (64 * 32), "raw": got}
            log(f"  latency shared        {res['shared']['cycles_per_hop']:7.2f} cycles")
        except Exception:  # noqa: BLE001
            res["shared"] = {"error": traceback.format_exc(limit=2)}
        # L1 hit: 64 lines of 128 B (8 KB), random order, ld.ca, warmed
        for label, lines, mode, warm, flush in (("l1_hit_8KB", 64, 0, 4 * 64, False),
                                                ("l2_hit_4MB", 32768, 1, 32768, False),
                                                ("l2_hit_16MB", 131072, 1, 131072, False),
                                                ("hbm_64MB_cold", 524288, 1, 0, True),
                                                ("hbm_1GB_cold", 8388608, 1, 0, True)):
            try:
                stride_words = 16    # 128 B
                if warm:          # every line in one random cycle, warmed by a full pass
                    order = rng.permutation(lines)
                    n_small, n_big = 32, 64
                else:             # 4200 distinct random lines, each visited once per run (caches flushed)
                    order = rng.choice(lines, 4200, replace=False)
                    n_small, n_big = 32, 64
                order = order.astype(np.int64) * stride_words
                per, raw = self.chase(lines * stride_words, order, warm, mode, n_small, n_big, flush)
                res[label] = {"cycles_per_hop": per, "raw": {str(k): v for k, v in raw.items()},
                              "lines": lines, "mode": "ld.ca" if mode == 0 else "ld.cg"}
                log(f"  latency {label:14s} {per:7.2f} cycles")
            except Exception:  # noqa: BLE001
                res[label] = {"error": traceback.format_exc(limit=2)}
                log(f"  latency {label} FAILED")
        # L2 latency per address, from SM 0: near / far partition
        try:
            count, stride_words = 512, 4096 // 8 + 16    # 4 KB + 128 B apart
            words = count * stride_words
            buf = cp.zeros(words, dtype=cp.uint64)
            idx = cp.arange(count, dtype=cp.uint64) * stride_words
            buf[idx.astype(cp.int64)] = buf.data.ptr + 8 * idx
            cyc = cp.zeros(count, dtype=cp.int64)
            smid = cp.zeros(1, dtype=cp.uint32)
            self.f("mb_l2_per_address")((1,), (1,), (cyc, smid, buf, np.int32(count), np.int32(stride_words)))
            self.f("mb_l2_per_address")((1,), (1,), (cyc, smid, buf, np.int32(count), np.int32(stride_words)))
            per = cyc.get() / 32.0
            srt = np.sort(per)
            # split into two clusters at the largest gap in the middle 80%
            lo, hi = int(0.1 * count), int(0.9 * count)
            gaps = np.diff(srt[lo:hi])
            cut = lo + int(np.argmax(gaps)) + 1
            res["l2_per_address"] = {
                "sm": int(smid.get()[0]), "count": count,
                "percentiles": {p: float(np.percentile(per, p)) for p in (0, 10, 25, 50, 75, 90, 100)},
                "near_mean": float(srt[:cut].mean()), "far_mean": float(srt[cut:].mean()),
                "near_fraction": cut / count, "cycles_per_hop": per.round(2).tolist()}
            log(f"  L2 per address: near {srt[:cut].mean():.1f}, far {srt[cut:].mean():.1f} cycles "
                f"({cut}/{count} near), from SM {int(smid.get()[0])}")
        except Exception:  # noqa: BLE001
            res["l2_per_address"] = {"error": traceback.format_exc(limit=2)}
        return res

    def throughput(self, clock_hz):
        cp = self.cp
        res = {}
        sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
        block, per_sm = 512, 4          # 64 warps per SM
        grid = sms * per_sm
        threads = grid * block
        specs = [("ffma", "mb_tp_ffma", np.float32, 2000, 64), ("fadd", "mb_tp_fadd", np.float32, 2000, 64),
                 ("dfma", "mb_tp_dfma", np.float64, 1000, 64), ("imad", "mb_tp_imad", np.int32, 1000, 64),
                 ("iadd_xor_mix", "mb_tp_iadd", np.int32, 1000, 64), ("shf_lop3_mix", "mb_tp_lop", np.int32, 1000, 64),
                 ("mufu_ex2", "mb_tp_ex2", np.float32, 250, 64), ("mufu_rsqrt", "mb_tp_rsqrt", np.float32, 250, 64),
                 ("lds32", "mb_tp_lds", np.float32, 1000, 8), ("hmma_16816_f16_f32", "mb_tp_hmma", np.float32, 1000, 4)]
        for name, kern, dt, n, ops_per_iter in specs:
            try:
                out = cp.zeros(threads, dtype=dt)
                if kern in ("mb_tp_lds", "mb_tp_hmma"):
                    args = (out, np.int32(n))
                else:
                    args = (out, np.int32(n), dt(1.0001) if dt != np.int32 else np.int32(3))
                ms, _ = self.events_ms(lambda: self.f(kern)((grid,), (block,), args), reps=5)
                warp_insts = grid * (block // 32) * n * ops_per_iter
                per_sm_clk = warp_insts / (ms * 1e-3 * clock_hz * sms)
                r = {"ms": ms, "warp_inst_per_clk_per_sm": per_sm_clk, "n": n, "grid": grid, "block": block}
                if kern == "mb_tp_hmma":
                    # one m16n8k16 is 16*8*16 = 2048 multiply-adds = 4096 flops
                    r["dense_fp16_flops_per_clk_per_sm"] = per_sm_clk * 16 * 8 * 16 * 2
                    r["tflops"] = warp_insts * 4096 / (ms * 1e-3) / 1e12
                else:
                    r["lane_ops_per_clk_per_sm"] = per_sm_clk * 32
                res[name] = r
                log(f"  throughput {name:20s} {per_sm_clk:6.2f} warp-inst/clk/SM ({ms:.3f} ms)")
                del out
            except Exception:  # noqa: BLE001
                res[name] = {"error": traceback.format_exc(limit=2)}
                log(f"  throughput {name} FAILED")
        return res

    def bandwidth(self):
        cp = self.cp
        res = {}
        sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
        try:
            n = 1 << 28                        # 1 GiB of float32 each way
            src = cp.random.default_rng(3).random(n, dtype=cp.float32)
            dst = cp.empty_like(src)
            n4 = n // 4
            for label, grid in (("copy_f4_8ctas_per_sm", sms * 8), ("copy_f4_32ctas_per_sm", sms * 32)):
                ms, _ = self.events_ms(lambda: self.f("mb_copy_f4")((grid,), (256,), (dst, src, np.int64(n4))), reps=10)
                res[label] = {"ms": ms, "bytes": 2 * 4 * n, "GBps": 2 * 4 * n / (ms * 1e-3) / 1e9}
                log(f"  HBM {label}: {res[label]['GBps']:.0f} GB/s (read+write)")
            ok = bool(cp.all(dst == src))
            res["copy_checked"] = ok
            ms, _ = self.events_ms(lambda: dst.__setitem__(Ellipsis, src), reps=10)
            res["cupy_copy"] = {"ms": ms, "GBps": 2 * 4 * n / (ms * 1e-3) / 1e9}
            log(f"  HBM cupy copy: {res['cupy_copy']['GBps']:.0f} GB/s")
            del src, dst
        except Exception:  # noqa: BLE001
            res["hbm_error"] = traceback.format_exc(limit=2)
        for mb in (8, 24, 40):
            try:
                n = mb * (1 << 20) // 4
                src = cp.random.default_rng(4).random(n, dtype=cp.float32)
                out = cp.zeros(sms * 8 * 256, dtype=cp.float32)
                passes = max(4, 1600 // mb)
                ms, _ = self.events_ms(lambda: self.f("mb_l2_read")((sms * 8,), (256,),
                                                                   (out, src, np.int64(n // 4), np.int32(passes))), reps=5)
                res[f"l2_read_{mb}MB"] = {"ms": ms, "bytes": 4 * n * passes, "GBps": 4 * n * passes / (ms * 1e-3) / 1e9}
                log(f"  L2 read {mb} MB x{passes}: {res[f'l2_read_{mb}MB']['GBps']:.0f} GB/s")
                del src, out
            except Exception:  # noqa: BLE001
                res[f"l2_read_{mb}MB"] = {"error": traceback.format_exc(limit=2)}
        return res

    def launch_overhead(self):
        cp = self.cp
        res = {}
        f = self.f("mb_empty")
        try:
            for _ in range(100):
                f((1,), (32,), ())
            cp.cuda.runtime.deviceSynchronize()
            # back-to-back
            for count in (1000, 5000):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                for _ in range(count):
                    f((1,), (32,), ())
                b.record()
                b.synchronize()
                res[f"back_to_back_{count}_us_per_launch"] = cp.cuda.get_elapsed_time(a, b) * 1e3 / count
            # one launch between two events
            ts = []
            for _ in range(200):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                f((1,), (32,), ())
                b.record()
                b.synchronize()
                ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
            res["single_launch_event_us_median"] = float(np.median(ts))
            ts = []
            for _ in range(200):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                b.record()
                b.synchronize()
                ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
            res["empty_event_pair_us_median"] = float(np.median(ts))
            # CTA dispatch: empty kernels of many CTAs
            for grid, block in ((132, 256), (1320, 256), (13200, 256), (132000, 256), (132000, 32), (13200, 1024)):
                ms, _ = self.events_ms(lambda: f((grid,), (block,), ()), reps=20, warm=3)
                res[f"empty_grid{grid}_block{block}_us"] = ms * 1e3
            log("  launch: " + ", ".join(f"{k}={v:.2f}" for k, v in res.items()))
        except Exception:  # noqa: BLE001
            res["error"] = traceback.format_exc(limit=2)
        return res

    def clock(self, heavy: bool):
        cp = self.cp
        sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
        grid, block, n = (sms * 2, 1024, 20000) if heavy else (sms, 128, 300000)
        cyc = cp.zeros(grid, dtype=cp.int64)
        ns = cp.zeros(grid, dtype=cp.int64)
        smid = cp.zeros(grid, dtype=cp.uint32)
        out = cp.zeros(grid * block, dtype=cp.float32)
        ms, _ = self.events_ms(lambda: self.f("mb_clock")((grid,), (block,), (cyc, ns, smid, out, np.int32(n))), reps=3)
        c, t = cyc.get(), ns.get()
        mhz = c / np.maximum(t, 1) * 1e3
        r = {"grid": grid, "block": block, "event_ms": ms, "mhz_clock64_over_globaltimer_median": float(np.median(mhz)),
             "mhz_min": float(mhz.min()), "mhz_max": float(mhz.max()),
             "mhz_clock64_over_event_time": float(np.median(c) / (ms * 1e-3) / 1e6),
             "distinct_sms": int(len(set(smid.get().tolist())))}
        log(f"  clock ({'heavy' if heavy else 'light'}): {r['mhz_clock64_over_globaltimer_median']:.0f} MHz "
            f"(clock64/globaltimer), {r['mhz_clock64_over_event_time']:.0f} MHz (clock64/event), kernel {ms:.2f} ms")
        return r


def run_microbench(cp, mods, outdir, deadline):
    path = os.path.join(outdir, "microbench.json")
    res = {}

    def save():
        with open(path, "w") as fh:
            json.dump(res, fh, indent=1)

    b = Bench(cp, mods["microbench"])
    for key, fn in (("clock_light_start", lambda: b.clock(False)), ("clock_heavy_start", lambda: b.clock(True)),
                    ("alu_latency", b.alu_latency), ("memory_latency", b.memory_latency),
                    ("throughput", lambda: b.throughput(res.get("clock_heavy_start", {}).get(
                        "mhz_clock64_over_globaltimer_median", 1980.0) * 1e6)),
                    ("bandwidth", b.bandwidth), ("launch", b.launch_overhead)):
        if time.time() > deadline:
            res[key] = {"error": "skipped: out of time"}
            continue
        t0 = time.time()
        try:
            res[key] = fn()
        except Exception:  # noqa: BLE001
            res[key] = {"error": traceback.format_exc(limit=3)}
            log(f"microbench {key} FAILED")
        res.setdefault("_seconds", {})[key] = round(time.time() - t0, 2)
        save()
    if hasattr(b, "_scratch"):
        del b._scratch
    cp.get_default_memory_pool().free_all_blocks()
    return res, b


# -------------------------------------------------------------- validation cases
def launch(kernel, case, run):
    kernel(case.grid, case.block, run.args, shared_mem=case.shared_mem)


def prepare(mod, case):
    k = mod.get_function(case.kernel)
    if case.shared_mem > 48 * 1024:
        k.max_dynamic_shared_size_bytes = case.shared_mem
    return k


def run_cases(cp, mods, outdir, deadline, warm=20, reps=100):
    cases = build_cases()
    path = os.path.join(outdir, "cases_timing.json")
    results = []
    mod = mods["kernels"]
    for i, case in enumerate(cases):
        if time.time() > deadline:
            results.append({"label": case.label, "error": "skipped: out of time"})
            continue
        r = {"index": i, "label": case.label, "kernel": case.kernel, "grid": list(case.grid), "block": list(case.block),
             "shared_mem": case.shared_mem, "sweep": case.sweep, "note": case.note}
        try:
            k = prepare(mod, case)
            r["num_regs"] = int(k.num_regs)
            r["static_shared"] = int(k.shared_size_bytes)
            run = case.make(cp)
            launch(k, case, run)
            cp.cuda.runtime.deviceSynchronize()
            ok, err = check(run, cp)
            r["check"] = "PASS" if ok else "FAIL"
            r["check_error"] = err
            for _ in range(warm):
                launch(k, case, run)
            evs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
            for a, b in evs:
                a.record()
                launch(k, case, run)
                b.record()
            evs[-1][1].synchronize()
            ts = np.array([cp.cuda.get_elapsed_time(a, b) * 1e3 for a, b in evs])
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            for _ in range(reps):
                launch(k, case, run)
            b.record()
            b.synchronize()
            r.update({"event_us_median": float(np.median(ts)), "event_us_min": float(ts.min()),
                      "event_us_p25": float(np.percentile(ts, 25)), "event_us_p75": float(np.percentile(ts, 75)),
                      "back_to_back_us_mean": cp.cuda.get_elapsed_time(a, b) * 1e3 / reps})
            log(f"[{i:2d}] {case.label:28s} {r['check']} err={err:.2e} median {r['event_us_median']:9.2f} us "
                f"(b2b {r['back_to_back_us_mean']:9.2f}) regs {r['num_regs']}")
            del run
        except Exception:  # noqa: BLE001
            r["error"] = traceback.format_exc(limit=3)
            log(f"[{i:2d}] {case.label}: ERROR {r['error'].splitlines()[-1]}")
        results.append(r)
        cp.get_default_memory_pool().free_all_blocks()
        with open(path, "w") as fh:
            json.dump(results, fh, indent=1)
    return results


def launch_only(first, stop):
    import cupy as cp
    mods = load_modules(cp)
    cases = build_cases()
    for case in cases[first:stop]:
        try:
            k = prepare(mods["kernels"], case)
            run = case.make(cp)
            launch(k, case, run)
            cp.cuda.runtime.deviceSynchronize()
            del run
        except Exception:  # noqa: BLE001
            print(f"launch {case.label} failed:\n{traceback.format_exc(limit=2)}", file=sys.stderr)
        cp.get_default_memory_pool().free_all_blocks()


# ------------------------------------------------------------------------ ncu
def ncu_pass(outdir, deadline):
    n_cases = len(build_cases())
    q = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=120)
    query = q.stdout + q.stderr
    with open(os.path.join(outdir, "ncu_query.txt"), "w") as fh:
        fh.write(query)
    known = set(re.findall(r"^\s*([a-z0-9_]+__[a-z0-9_]+)", query, flags=re.M))
    stalls = sorted(set(re.findall(r"smsp__average_warps_issue_stalled_([a-z0-9_]+?)_per_issue_active\b", query)))
    if not stalls:
        log("ncu --query-metrics listed no stall reasons; using the fallback list")
        stalls = FALLBACK_STALLS
    stall_metrics = [f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in stalls]
    extra = [m for m in EXTRA_METRICS if not known or m.split(".")[0] in known or m.startswith("launch__")]
    metrics = BASE_METRICS + extra + stall_metrics
    with open(os.path.join(outdir, "ncu_metrics.txt"), "w") as fh:
        fh.write("\n".join(metrics) + "\n")
    log(f"ncu: {len(metrics)} metrics, {len(stalls)} stall reasons: {', '.join(stalls)}")
    chunks = [(i, min(i + 25, n_cases)) for i in range(0, n_cases, 25)]
    status = []
    for k, (first, stop) in enumerate(chunks):
        left = deadline - time.time()
        if left < 20:
            status.append({"chunk": k, "first": first, "stop": stop, "status": "skipped: out of time"})
            continue
        cap = max(20, left / (len(chunks) - k))
        if k == len(chunks) - 1:
            cap = left
        for attempt, mlist in enumerate((metrics, BASE_METRICS + stall_metrics, BASE_METRICS)):
            csv_path = os.path.join(outdir, f"ncu_raw_{k}.csv")
            cmd = ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--kernel-name", f"regex:^{kernel_prefix()}",
                   "--metrics", ",".join(mlist), "--log-file", csv_path,
                   sys.executable, os.path.abspath(__file__), "--set", CASE_SET, "--launch", "--first", str(first),
                   "--stop", str(stop)]
            t0 = time.time()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
                rc, err = p.returncode, (p.stdout + p.stderr)[-3000:]
            except subprocess.TimeoutExpired as exc:
                rc, err = "timeout", str(exc)[-500:]
            rows = 0
            if os.path.exists(csv_path):
                rows = sum(1 for line in open(csv_path) if line.startswith('"') and f'"{kernel_prefix()}' in line)
            s = {"chunk": k, "first": first, "stop": stop, "attempt": attempt, "metrics": len(mlist), "rc": rc,
                 "rows": rows, "seconds": round(time.time() - t0, 1), "tail": err}
            status.append(s)
            log(f"ncu chunk {k} [{first}:{stop}] attempt {attempt}: rc={rc} rows={rows} in {s['seconds']} s")
            with open(os.path.join(outdir, "ncu_status.json"), "w") as fh:
                json.dump(status, fh, indent=1)
            if rows > 0 or rc == "timeout":
                break
            cap = max(20, deadline - time.time())
    return status


# --------------------------------------------------------------------- collect
def environment(outdir):
    import cupy as cp
    lines = []
    for cmd in (["nvidia-smi"], ["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
                                 "power.draw,power.limit,temperature.gpu,persistence_mode", "--format=csv"],
                ["nvcc", "--version"], ["ncu", "--version"]):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            lines.append("$ " + " ".join(cmd) + "\n" + p.stdout + p.stderr)
        except Exception as exc:  # noqa: BLE001
            lines.append(f"$ {' '.join(cmd)}: {exc!r}")
    props = cp.cuda.runtime.getDeviceProperties(0)
    keep = {k: (v.decode(errors="replace") if isinstance(v, bytes) else v) for k, v in props.items()
            if isinstance(v, (int, float, bytes, str))}
    lines.append("cupy " + cp.__version__ + "\n" + json.dumps(keep, indent=1))
    with open(os.path.join(outdir, "environment.txt"), "w") as fh:
        fh.write("\n".join(lines))
    with open(os.path.join(outdir, "device_properties.json"), "w") as fh:
        json.dump(keep, fh, indent=1)


def collect(outdir, total_s, microbench=True):
    import cupy as cp
    t_start = time.time()
    end = t_start + total_s
    os.makedirs(outdir, exist_ok=True)
    try:
        environment(outdir)
    except Exception:  # noqa: BLE001
        log("environment FAILED\n" + traceback.format_exc())
    mods = load_modules(cp)
    log(f"--- microbenchmarks ({time.time() - t_start:.0f} s)")
    if microbench:
        mb, bench = run_microbench(cp, mods, outdir, deadline=t_start + 0.25 * total_s)
    else:
        mb, bench = {}, Bench(cp, mods["microbench"])
    log(f"--- validation cases ({time.time() - t_start:.0f} s)")
    run_cases(cp, mods, outdir, deadline=t_start + 0.50 * total_s)
    try:
        mb["clock_light_end"] = bench.clock(False)
        mb["clock_heavy_end"] = bench.clock(True)
    except Exception:  # noqa: BLE001
        mb["clock_end_error"] = traceback.format_exc(limit=2)
    with open(os.path.join(outdir, "microbench.json"), "w") as fh:
        json.dump(mb, fh, indent=1)
    try:
        subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu", "--format=csv"],
                       stdout=open(os.path.join(outdir, "smi_after_cases.txt"), "w"), timeout=30)
    except Exception:  # noqa: BLE001
        pass
    cp.get_default_memory_pool().free_all_blocks()
    log(f"--- ncu ({time.time() - t_start:.0f} s)")
    try:
        ncu_pass(outdir, deadline=end - 10)
    except Exception:  # noqa: BLE001
        log("ncu FAILED\n" + traceback.format_exc())
    log(f"--- done ({time.time() - t_start:.0f} s)")


def pack(outdir, archive):
    with tarfile.open(archive, "w:gz") as tar:
        for name in sorted(os.listdir(outdir)):
            tar.add(os.path.join(outdir, name), arcname=os.path.join("timing_results", name))


def warpsim_module(name=None):
    """`name` (beside this script) as a warpsim RawModule compiled as nvcc built the cubin the H200 ran:
    NVRTC with nvcc's defaults (-ftz=false). RawModule(code=) would append CuPy's -ftz=true, and
    flushing changes the SASS (an __expf is FMUL + MUFU.EX2 with it, five instructions without)."""
    import warpsim as ws
    from warpsim.frontends.nvrtc import compile_cuda
    name = name or kernels_name() + ".cu"
    with open(os.path.join(HERE, name)) as fh:
        compiled = compile_cuda(fh.read(), options=("-std=c++17", "-ftz=false"), name=name)
    return ws.RawModule(ptx=compiled.ptx)


def check_here(only):
    """Shrunken cases on warpsim: compile kernels.cu with warpsim's NVRTC, launch, check."""
    import warpsim as ws
    mod = warpsim_module()
    cases = build_cases(sms=2, scale=1 / 64)
    bad = 0
    for case in cases:
        if only and not re.search(only, case.label):
            continue
        t0 = time.time()
        try:
            k = prepare(mod, case)
            run = case.make(ws)
            launch(k, case, run)
            ok, err = check(run, ws)
        except Exception:  # noqa: BLE001
            ok, err = False, float("nan")
            traceback.print_exc(limit=3)
        bad += not ok
        print(f"{case.label:28s} {'PASS' if ok else 'FAIL'} err={err:.2e} grid={case.grid} block={case.block} "
              f"({time.time() - t0:.1f} s)", flush=True)
    print(f"{len(cases)} cases, {bad} failed")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--collect", metavar="OUTDIR")
    ap.add_argument("--deadline", type=float, default=480.0, help="seconds for --collect")
    ap.add_argument("--launch", action="store_true")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--stop", type=int, default=None)
    ap.add_argument("--check-here", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--set", choices=sorted(SETS), default="1",
                    help="validation set: 1 cases.py, 2 cases2.py, 4 cases4.py, 5 cases5.py")
    ap.add_argument("--skip-microbench", action="store_true")
    a = ap.parse_args()
    global CASE_SET
    CASE_SET = a.set
    if a.launch:
        launch_only(a.first, a.stop)
        return 0
    if a.check_here:
        return check_here(a.only)
    if a.collect:
        raw = os.path.join(a.collect, "timing_results")
        os.makedirs(raw, exist_ok=True)
        try:
            collect(raw, a.deadline, microbench=not a.skip_microbench)
        finally:
            pack(raw, os.path.join(a.collect, "timing_results.tar.gz"))
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
