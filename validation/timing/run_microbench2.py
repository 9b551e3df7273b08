"""Second batch of H200 microbenchmarks (microbench2.cu): atomics, L1 hits, barriers, CTA dispatch.

On the device, one `run` call:

    python3 validation/timing/run_microbench2.py OUTDIR

writes OUTDIR/microbench2.json (every figure with its raw times) and prints a summary.
Every rate is a difference of two runs (n and 2n iterations) so launch overhead cancels;
each run is the median of 5 launches between CUDA events. The SM clock is taken as
1980 MHz (validation/timing/README.md: measured in the first batch).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK_HZ = 1980e6
INT_MAX = 0x7FFFFFFF


def log(*a):
    print(*a, flush=True)


class Runner:
    def __init__(self, cp):
        self.cp = cp
        try:
            self.mod = cp.RawModule(path=os.path.join(HERE, "microbench2.cubin"))
            self.mod.get_function("mb_cta_empty")
        except Exception as exc:  # noqa: BLE001
            log(f"microbench2.cubin did not load ({exc!r}); compiling with nvcc")
            import subprocess
            subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", "/tmp/microbench2.cubin",
                            os.path.join(HERE, "microbench2.cu")], check=True)
            self.mod = cp.RawModule(path="/tmp/microbench2.cubin")
        self.sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]

    def ms(self, fn, reps=5):
        cp = self.cp
        fn()
        cp.cuda.runtime.deviceSynchronize()
        ts = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b))
        return float(np.median(ts)), ts

    def diff_cycles(self, launch, n):
        """Cycles of (2n - n) iterations, and both raw medians."""
        m1, t1 = self.ms(lambda: launch(n))
        m2, t2 = self.ms(lambda: launch(2 * n))
        return (m2 - m1) * 1e-3 * CLOCK_HZ, {"n": n, "ms_n": m1, "ms_2n": m2, "raw_n": t1, "raw_2n": t2}

    # ------------------------------------------------------------ atomics
    def atomics(self):
        cp = self.cp
        res = {}
        grid, block = self.sms * 8, 256
        threads = grid * block
        warps = threads // 32
        # name: (kernel, lane_mask, warp_mask, warp_shift, lane_skip, iter_stride, n, lanes per warp)
        specs = {
            "red_s32_one_address_32_lanes": ("mb_red_s32", 0, 0, 0, 0, 0, 2, 32),
            "red_f32_one_address_32_lanes": ("mb_red_f32", 0, 0, 0, 0, 0, 2, 32),
            "red_s32_one_address_1_lane": ("mb_red_s32", 0, 0, 0, 31, 0, 16, 1),
            "red_f32_one_address_1_lane": ("mb_red_f32", 0, 0, 0, 31, 0, 16, 1),
            "red_s32_one_address_8_lanes": ("mb_red_s32", 0, 0, 0, 3, 0, 4, 8),
            "red_s32_2_addresses_one_line": ("mb_red_s32", 1, 0, 0, 0, 0, 4, 32),
            "red_s32_4_addresses_one_line": ("mb_red_s32", 3, 0, 0, 0, 0, 8, 32),
            "red_s32_8_addresses_one_line": ("mb_red_s32", 7, 0, 0, 0, 0, 8, 32),
            "red_s32_16_addresses_one_line": ("mb_red_s32", 15, 0, 0, 0, 0, 16, 32),
            "red_s32_32_addresses_one_line": ("mb_red_s32", 31, 0, 0, 0, 0, 16, 32),
            "red_f32_32_addresses_one_line": ("mb_red_f32", 31, 0, 0, 0, 0, 16, 32),
            "red_s32_1_lane_2_hot_lines": ("mb_red_s32", 0, 1, 5, 31, 0, 16, 1),
            "red_s32_1_lane_8_hot_lines": ("mb_red_s32", 0, 7, 5, 31, 0, 32, 1),
            "red_s32_1_lane_32_hot_lines": ("mb_red_s32", 0, 31, 5, 31, 0, 64, 1),
            "red_s32_32_lanes_8_hot_lines": ("mb_red_s32", 0, 7, 5, 0, 0, 8, 32),
            "red_s32_32_addr_8_hot_lines": ("mb_red_s32", 31, 7, 5, 0, 0, 32, 32),
            "red_s32_distinct": ("mb_red_s32", 31, INT_MAX, 5, 0, threads, 8, 32),
            "atom_s32_one_address_32_lanes": ("mb_atom_s32", 0, 0, 0, 0, 0, 2, 32),
            "atom_s32_one_address_1_lane": ("mb_atom_s32", 0, 0, 0, 31, 0, 16, 1),
            "atom_s32_32_addresses_one_line": ("mb_atom_s32", 31, 0, 0, 0, 0, 16, 32),
            "atom_s32_distinct": ("mb_atom_s32", 31, INT_MAX, 5, 0, threads, 8, 32),
        }
        big = cp.zeros(threads * 16 + 64, dtype=cp.int32)
        bigf = cp.zeros(threads * 16 + 64, dtype=cp.float32)
        out = cp.zeros(threads, dtype=cp.int32)
        for name, (kern, lm, wm, ws, skip, stride, n, lanes) in specs.items():
            try:
                f = self.mod.get_function(kern)
                buf = bigf if kern == "mb_red_f32" else big

                def launch(iters, f=f, buf=buf, lm=lm, wm=wm, ws=ws, skip=skip, stride=stride, kern=kern):
                    args = (buf,) + ((out,) if kern == "mb_atom_s32" else ()) + tuple(
                        np.int32(v) for v in (iters, lm, wm, ws, skip, stride))
                    f((grid,), (block,), args)

                cyc, raw = self.diff_cycles(launch, n)
                requests = warps * n          # warp-level requests in the extra n iterations
                r = {"cycles_per_warp_request_chip": cyc / requests, "lanes_per_request": lanes,
                     "warp_requests": requests, "grid": grid, "block": block, **raw}
                r["chip_requests_per_clk"] = requests / cyc if cyc > 0 else None
                res[name] = r
                log(f"  atomic {name:34s} {r['cycles_per_warp_request_chip']:8.3f} cycles per warp request "
                    f"({raw['ms_n']:.3f} / {raw['ms_2n']:.3f} ms)")
            except Exception:  # noqa: BLE001
                res[name] = {"error": traceback.format_exc(limit=2)}
                log(f"  atomic {name} FAILED")
        # round-trip latency of one ATOM from one thread (a dependent chain through the returned value
        # is not possible with atomicAdd's value; the loop's ATOMs wait for each other via acc)
        try:
            f = self.mod.get_function("mb_atom_s32")

            def one(iters):
                f((1,), (32,), (big, out, np.int32(iters), np.int32(0), np.int32(0), np.int32(0), np.int32(31),
                                np.int32(0)))

            cyc, raw = self.diff_cycles(one, 2000)
            res["atom_s32_single_thread_loop"] = {"cycles_per_atom": cyc / 2000, **raw}
            log(f"  atomic single-thread ATOM loop {cyc / 2000:.1f} cycles per atomic")
        except Exception:  # noqa: BLE001
            res["atom_s32_single_thread_loop"] = {"error": traceback.format_exc(limit=2)}
        del big, bigf, out
        return res

    # ------------------------------------------------------------ L1 hits
    def l1(self):
        cp = self.cp
        res = {}
        f = self.mod.get_function("mb_l1_load")
        data = cp.asarray(np.random.default_rng(1).random(1 << 16, dtype=np.float32))
        patterns = {"broadcast_1_sector": (0, 0), "coalesced_16_floats_2_sectors": (1, 0),
                    "coalesced_32_floats_4_sectors": (1, 16), "two_addresses_2_lines": (0, 512),
                    "stride2_8_sectors_2_lines": (2, 32), "stride8_32_sectors_8_lines": (8, 128),
                    "stride32_32_lines": (32, 512)}
        for warps_per_sm in (64, 16, 4):
            block = 32 * min(32, warps_per_sm)
            grid = self.sms * max(1, warps_per_sm // 32)
            out = cp.zeros(grid * block, dtype=cp.float32)
            for name, (m1, m2) in patterns.items():
                if warps_per_sm != 64 and name not in ("two_addresses_2_lines", "coalesced_16_floats_2_sectors",
                                                       "broadcast_1_sector"):
                    continue
                key = f"{name}_{warps_per_sm}w"
                try:
                    def launch(iters, m1=m1, m2=m2, grid=grid, block=block, out=out):
                        f((grid,), (block,), (out, data, np.int32(iters), np.int32(m1), np.int32(m2),
                                              np.int32(1023)))

                    n = 256 if warps_per_sm == 64 else 512
                    cyc, raw = self.diff_cycles(launch, n)
                    per_sm_requests = warps_per_sm * 16 * n
                    r = {"warp_requests_per_clk_per_sm": per_sm_requests / cyc, "m1": m1, "m2": m2,
                         "warps_per_sm": warps_per_sm, "cycles_per_request_per_warp": cyc / (16 * n), **raw}
                    res[key] = r
                    log(f"  L1 {key:40s} {r['warp_requests_per_clk_per_sm']:6.3f} requests/clk/SM "
                        f"({r['cycles_per_request_per_warp']:.2f} cycles per request per warp)")
                except Exception:  # noqa: BLE001
                    res[key] = {"error": traceback.format_exc(limit=2)}
                    log(f"  L1 {key} FAILED")
            del out
        return res

    # ------------------------------------------------------------ barriers
    def barriers(self):
        cp = self.cp
        res = {}
        f = self.mod.get_function("mb_bar")
        iters = 2000
        for block in (64, 128, 256, 512, 1024):
            for per_sm in sorted({1, 2048 // block if 2048 // block <= 32 else 32}):
                grid = self.sms * per_sm
                out = cp.zeros(grid * block, dtype=cp.float32)
                cyc = cp.zeros(grid, dtype=cp.int64)
                for skew in (0, 8, 32):
                    key = f"block{block}_ctas{per_sm}_skew{skew}"
                    try:
                        ms, _ = self.ms(lambda: f((grid,), (block,), (out, cyc, np.int32(iters), np.int32(skew))),
                                        reps=3)
                        c = cyc.get().astype(np.float64)
                        r = {"cycles_per_round_median": float(np.median(c)) / iters,
                             "cycles_per_round_max": float(c.max()) / iters, "event_ms": ms,
                             "event_cycles_per_round": ms * 1e-3 * CLOCK_HZ / iters,
                             "critical_ffma_chain": 3 * skew, "block": block, "ctas_per_sm": per_sm}
                        res[key] = r
                        log(f"  barrier {key:28s} {r['cycles_per_round_median']:7.1f} cycles/round per CTA, "
                            f"{r['event_cycles_per_round']:7.1f} by events")
                    except Exception:  # noqa: BLE001
                        res[key] = {"error": traceback.format_exc(limit=2)}
                        log(f"  barrier {key} FAILED")
                del out, cyc
        return res

    # ------------------------------------------------------------ CTA dispatch
    def dispatch(self):
        cp = self.cp
        res = {}
        out = cp.zeros(self.sms * 2048 * 16, dtype=cp.float32)
        fe = self.mod.get_function("mb_cta_empty")
        fc = self.mod.get_function("mb_cta_chain")
        for block in (32, 128, 256, 512, 1024):
            for per_sm in (16, 128):
                grid = self.sms * per_sm
                key = f"empty_block{block}_ctas_per_sm{per_sm}"
                try:
                    ms, raw = self.ms(lambda: fe((grid,), (block,), (out,)), reps=7)
                    res[key] = {"ms": ms, "ns_per_cta_per_sm": ms * 1e6 / per_sm, "raw": raw}
                    log(f"  dispatch {key:34s} {ms * 1e3:8.2f} us ({ms * 1e6 / per_sm:.0f} ns per CTA per SM)")
                except Exception:  # noqa: BLE001
                    res[key] = {"error": traceback.format_exc(limit=2)}
        # the same threads and work per SM (16 full SMs' worth) in CTAs of 128 vs 1024 threads
        for block in (128, 256, 1024):
            for n in (64, 512):
                grid = self.sms * 2048 * 16 // block
                key = f"chain{n}_block{block}"
                try:
                    ms, raw = self.ms(lambda: fc((grid,), (block,), (out, np.int32(n))), reps=5)
                    res[key] = {"ms": ms, "grid": grid, "raw": raw}
                    log(f"  turnover {key:34s} {ms * 1e3:8.2f} us")
                except Exception:  # noqa: BLE001
                    res[key] = {"error": traceback.format_exc(limit=2)}
        del out
        return res


def main() -> int:
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    import cupy as cp
    r = Runner(cp)
    res = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(errors="replace"),
           "clock_hz_assumed": CLOCK_HZ, "_seconds": {}}
    for key in ("atomics", "l1", "barriers", "dispatch"):
        t0 = time.time()
        try:
            res[key] = getattr(r, key)()
        except Exception:  # noqa: BLE001
            res[key] = {"error": traceback.format_exc(limit=3)}
            log(f"{key} FAILED")
        res["_seconds"][key] = round(time.time() - t0, 2)
        with open(os.path.join(outdir, "microbench2.json"), "w") as fh:
            json.dump(res, fh, indent=1)
    log(f"done: {res['_seconds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
