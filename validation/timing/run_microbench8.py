"""Eighth batch of H200 microbenchmarks (microbench8.cu): tensor cores, TMA, cp.async, ldmatrix /
stmatrix and mbarriers.

On the device, one `run` call:

    python3 validation/timing/run_microbench8.py --collect OUTDIR
    ncu --clock-control none --metrics ... -k regex:mb8_ python3 validation/timing/run_microbench8.py --once

writes microbench8.json: one record per configuration with the CTAs' clock64 spans (cycles: the
longest CTA's end minus start, after a __syncthreads), the median of 3 event-timed launches after
an untimed warm-up, and the figures derived from them (cycles per instruction, bytes per SM clock).
Sections that fail (a driver call, say) are recorded with their error and the rest still run.
"""

from __future__ import annotations

import ctypes
import os
import sys
import traceback

import numpy as np

from microbench_runner import event_seconds, main

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
SHAPE_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32}
WIDTHS = (64, 128, 256)


def encode_tensor_map(address: int, width: int, height: int, box_x: int, box_y: int, swizzle: int) -> bytes:
    """cuTensorMapEncodeTiled (the driver's, through ctypes) of a 2-D uint16 tensor, width elements per
    row: the 128 bytes a kernel's cp.async.bulk.tensor reads (swizzle 0 none, 3 128-byte)."""
    cuda = ctypes.CDLL("libcuda.so.1")
    raw = ctypes.create_string_buffer(256)
    aligned = (ctypes.addressof(raw) + 63) & ~63
    u64, u32 = ctypes.c_uint64, ctypes.c_uint32
    dims, strides = (u64 * 2)(width, height), (u64 * 1)(width * 2)
    box, elem = (u32 * 2)(box_x, box_y), (u32 * 2)(1, 1)
    fn = cuda.cuTensorMapEncodeTiled
    fn.restype = ctypes.c_int
    err = fn(ctypes.c_void_p(aligned), ctypes.c_int(1), u32(2), ctypes.c_void_p(address), dims, strides, box, elem,
             ctypes.c_int(0), ctypes.c_int(swizzle), ctypes.c_int(2), ctypes.c_int(0))
    if err:
        raise RuntimeError(f"cuTensorMapEncodeTiled({width}x{height}, box {box_x}x{box_y}, swizzle {swizzle}) "
                           f"returned CUresult {err}")
    return ctypes.string_at(aligned, 128)


class Bench:
    """One module, its clock buffer and the list of records; `launch` times one configuration."""

    def __init__(self, cp, reps):
        self.cp, self.reps = cp, reps
        self.mod = cp.RawModule(path=os.path.join(HERE, "microbench8.cubin"))
        self.clocks = cp.zeros(2 * 2048, dtype=cp.int64)
        self.sink = cp.zeros(1024, dtype=cp.float32)
        self.flush = cp.zeros(64 << 20, dtype=cp.float32)
        self.results = []

    def launch(self, kernel, grid, block, args, shared=0, flush=False, **record):
        cp = self.cp
        f = self.mod.get_function(kernel)
        if shared > 48 * 1024:
            f.max_dynamic_shared_size_bytes = shared
        before = (lambda: self.flush.fill(1.0)) if flush else None
        times = event_seconds(cp, lambda: f((grid,), (block,), args, shared_mem=shared), self.reps, before=before)
        if not times:
            return None
        c = self.clocks[:2 * grid].get().reshape(grid, 2)
        span = c[:, 1] - c[:, 0]
        r = {"kernel": kernel, "grid": grid, "block": block, "seconds": float(np.median(times)),
             "cycles_max": float(span.max()), "cycles_mean": float(span.mean()), **record}
        self.results.append(r)
        return r


def wgmma(b: Bench):
    for kind, k in SHAPE_K.items():
        for n in WIDTHS:
            for src in ("ss", "rs"):
                name = f"mb8_wgmma_{kind}_{src}_n{n}"
                flops = 64 * n * k * 2
                for grid, group, iters in ((1, 1, 2000), (SMS, 4, 2000), (2 * SMS, 4, 1000)):
                    r = b.launch(name, grid, 128, (b.clocks, b.sink, np.int32(iters), np.int32(group)),
                                 section="wgmma", type=kind, n=n, k=k, a=src, group=group, iters=iters)
                    if r is None:
                        continue
                    per = r["cycles_max"] / (iters * group)
                    r["cycles_per_wgmma"] = per
                    r["flops_per_clk_per_sm"] = flops * (grid / SMS if grid >= SMS else 1) / per
                    print(f"{name:26s} grid {grid:3d} group {group}: {per:7.1f} cycles/wgmma, "
                          f"{r['flops_per_clk_per_sm']:7.0f} flops/clk/SM", flush=True)


def mma_sync(b: Bench):
    r = b.launch("mb8_mma_sync_lat", 1, 32, (b.clocks, b.sink, np.int32(4096)), section="mma_sync", chains=1)
    if r:
        r["cycles_per_mma"] = r["cycles_max"] / 4096
        print(f"mma.sync latency {r['cycles_per_mma']:.1f} cycles", flush=True)
    for block in (128, 256, 512):
        iters = 2048
        r = b.launch("mb8_mma_sync_thr", SMS, block, (b.clocks, b.sink, np.int32(iters)), section="mma_sync", chains=8)
        if r:
            r["warp_inst_per_clk_per_sm"] = (block // 32) * iters * 8 / r["cycles_max"]
            print(f"mma.sync {block} threads: {r['warp_inst_per_clk_per_sm']:.3f} warp-inst/clk/SM", flush=True)


def matrix_moves(b: Bench):
    r = b.launch("mb8_ldsm", 1, 32, (b.clocks, b.sink, np.int32(4096), np.int32(1)), section="ldsm", dependent=1)
    if r:
        r["cycles_per_ldsm"] = r["cycles_max"] / 4096
        print(f"ldmatrix.x4 latency {r['cycles_per_ldsm']:.1f} cycles", flush=True)
    for block in (128, 256, 512):
        iters = 1024
        for kernel in ("mb8_ldsm", "mb8_stsm"):
            args = (b.clocks, b.sink, np.int32(iters)) + ((np.int32(0),) if kernel == "mb8_ldsm" else ())
            r = b.launch(kernel, SMS, block, args, section=kernel[4:], dependent=0)
            if r:
                r["warp_inst_per_clk_per_sm"] = (block // 32) * iters * 4 / r["cycles_max"]
                print(f"{kernel} {block} threads: {r['warp_inst_per_clk_per_sm']:.3f} warp-inst/clk/SM", flush=True)


TMA_BOXES = ((32, 32, 0), (64, 64, 0), (64, 64, 3), (128, 64, 0), (64, 128, 0), (128, 128, 0), (256, 64, 0),
             (64, 256, 0))


class ConstantMap:
    """The tensor map in the module's constant memory (mb8_tmap_const); the kernels get a null map
    argument and read it there, as a __grid_constant__ parameter's would be read."""

    def __init__(self, b: Bench):
        self.mem = b.mod.get_global("mb8_tmap_const")

    def set(self, words: np.ndarray) -> None:
        words = np.ascontiguousarray(words)
        self.mem.copy_from_host(words.ctypes.data, words.nbytes)


def tma(b: Bench):
    cp = b.cp
    width, height = 4096, 16384                          # uint16: 8 KB rows, 128 MB
    buf = cp.zeros(width * height, dtype=cp.uint16)
    const = os.environ.get("MB8_TMA_MAP", "const") == "const"
    tmap = ConstantMap(b) if const else cp.zeros(32, dtype=cp.uint32)
    arg = np.uint64(0) if const else tmap
    lat = cp.zeros(2048, dtype=cp.int64)
    for bx, by, swz in TMA_BOXES:
        tmap.set(np.frombuffer(encode_tensor_map(buf.data.ptr, width, height, bx, by, swz), dtype=np.uint32))
        box_bytes = bx * by * 2
        tiles_x = width // bx
        for where, rows in (("l2", 1024), ("hbm", height)):        # 8 MB stays in L2; 128 MB does not
            tiles_y = rows // by
            tiles = tiles_x * tiles_y
            common = dict(section="tma", map="constant" if const else "global", box_x=bx, box_y=by, swizzle=swz, box_bytes=box_bytes, source=where)
            # latency: one CTA, one load in flight
            loads = 64
            r = b.launch("mb8_tma_load", 1, 32, (arg, b.clocks, lat, np.int32(tiles_x), np.int32(tiles_y),
                         np.int32(bx), np.int32(by), np.int32(box_bytes), np.int32(loads), np.int32(1)),
                         shared=box_bytes, flush=where == "hbm", stages=1, loads=loads, **common)
            if r:
                r["latency_cycles"] = float(lat[0].get()) / loads
                print(f"tma {bx}x{by} swz{swz} {where}: latency {r['latency_cycles']:.0f} cycles", flush=True)
            # bandwidth: every SM, 1 or 2 CTAs, a ring of stages
            for per_sm in (1, 2):
                stages = max(1, min(4, (96 << 10) // box_bytes if per_sm == 2 else 4))
                grid = SMS * per_sm
                loads = max(stages, (tiles if where == "hbm" else 4 * tiles) // grid)
                r = b.launch("mb8_tma_load", grid, 32, (arg, b.clocks, lat, np.int32(tiles_x), np.int32(tiles_y),
                             np.int32(bx), np.int32(by), np.int32(box_bytes), np.int32(loads), np.int32(stages)),
                             shared=stages * box_bytes, flush=where == "hbm", stages=stages, loads=loads, **common)
                if r:
                    total = grid * loads * box_bytes
                    r["bytes_per_clk_per_sm"] = total / SMS / r["cycles_max"]
                    r["gbps_events"] = total / r["seconds"] / 1e9
                    r["latency_cycles"] = float(lat[:grid].get().mean()) / loads
                    print(f"tma {bx}x{by} swz{swz} {where} {per_sm}/SM x{stages}: "
                          f"{r['bytes_per_clk_per_sm']:.1f} B/clk/SM, {r['gbps_events']:.0f} GB/s (events), "
                          f"load-to-arrival {r['latency_cycles']:.0f} cycles", flush=True)
    # how many SMs share the chip's bandwidth: one box shape on 16 to 132 SMs, from HBM
    bx, by = 64, 64
    tmap.set(np.frombuffer(encode_tensor_map(buf.data.ptr, width, height, bx, by, 0), dtype=np.uint32))
    for grid in (1, 16, 33, 66):
        loads = 2048 if grid > 1 else 512
        r = b.launch("mb8_tma_load", grid, 32, (arg, b.clocks, lat, np.int32(width // bx), np.int32(height // by),
                     np.int32(bx), np.int32(by), np.int32(bx * by * 2), np.int32(loads), np.int32(4)),
                     shared=4 * bx * by * 2, flush=True, section="tma_sms", box_x=bx, box_y=by, stages=4, loads=loads,
                     source="hbm")
        if r:
            r["bytes_per_clk_per_sm"] = loads * bx * by * 2 / r["cycles_max"]
            print(f"tma 64x64 on {grid} SMs: {r['bytes_per_clk_per_sm']:.1f} B/clk/SM", flush=True)


def cp_async(b: Bench):
    cp = b.cp
    big = cp.zeros(128 << 20, dtype=cp.uint8)
    for block, per in ((128, 1), (128, 4), (256, 1), (256, 4)):
        for grid in (1, 16, 66, 132, 264, 528):
            for where in ("l2", "hbm"):
                chunk = 16 * block * per
                if where == "l2":
                    region, passes = 128 << 10, 8                          # 264 CTAs: 33 MB, stays in L2
                    if grid > 264:
                        region, passes = 64 << 10, 16
                else:
                    region, passes = ((128 << 20) // grid) // chunk * chunk, 1
                    if grid == 1:
                        region = 16 << 20
                r = b.launch("mb8_cpasync_bw", grid, block, (big, b.clocks, b.sink, np.int64(region), np.int32(passes),
                             np.int32(4), np.int32(per)), shared=4 * chunk, flush=where == "hbm", section="cpasync",
                             source=where, region=region, passes=passes, stages=4, per=per, in_flight=4 * chunk)
                if r:
                    per_sm = min(grid, SMS)
                    r["bytes_per_clk_per_sm"] = grid * region * passes / per_sm / r["cycles_max"]
                    r["gbps_events"] = grid * region * passes / r["seconds"] / 1e9
                    print(f"cp.async {block} threads x{per}, {grid} CTAs, {where}: {r['bytes_per_clk_per_sm']:.1f} "
                          f"B/clk/SM {r['gbps_events']:.0f} GB/s (events)", flush=True)
    for where, step, span in (("l2", 4224, 1 << 20), ("hbm", (64 << 10) + 128, 128 << 20)):
        iters = 256
        r = b.launch("mb8_cpasync_lat", 1, 32, (big, b.clocks, b.sink, np.int32(iters), np.int64(step), np.int64(span)),
                     flush=where == "hbm", section="cpasync_lat", source=where)
        if r:
            r["latency_cycles"] = r["cycles_max"] / iters
            print(f"cp.async latency {where}: {r['latency_cycles']:.0f} cycles", flush=True)


def cp_async_lean(b: Bench):
    """Four rounds in flight (bandwidth by bytes in flight and active SMs) and one group at a time
    (a group's latency by its bytes), with int counters (mb8_cpasync_p*_w*)."""
    cp = b.cp
    big = cp.zeros(256 << 20, dtype=cp.uint8)
    for per, wait in ((1, 3), (4, 3), (8, 3), (1, 0), (2, 0), (4, 0), (8, 0)):
        name = f"mb8_cpasync_p{per}_w{wait}"
        configs = [(128, g) for g in (1, 66, 132, 264)] + [(256, 132)] if wait == 3 else [(32, 1), (128, 1), (128, 132)]
        for block, grid in configs:
            for where in ("l2", "hbm"):
                chunk = 16 * block * per
                if where == "l2":
                    rounds, passes = max(4, (24 << 20) // (grid * chunk)), 4
                    rounds = min(rounds, 256)
                else:
                    rounds, passes = max(4, min(2048, (200 << 20) // (grid * chunk))), 1
                r = b.launch(name, grid, block, (big, b.clocks, b.sink, np.int32(rounds), np.int32(passes)),
                             shared=4 * chunk, flush=where == "hbm", section="cpasync_lean", source=where, per=per,
                             wait=wait, rounds=rounds, passes=passes, warp_group_bytes=512 * per)
                if r:
                    n = rounds * passes
                    r["cycles_per_round"] = r["cycles_max"] / n
                    r["bytes_per_clk_per_sm"] = chunk * n * grid / min(grid, SMS) / r["cycles_max"]
                    print(f"{name} {block} threads, {grid} CTAs, {where}: {r['cycles_per_round']:.0f} cycles/round, "
                          f"{r['bytes_per_clk_per_sm']:.1f} B/clk/SM", flush=True)


def mbarrier(b: Bench):
    for mode, block in ((0, 32), (1, 64)):
        iters = 10000
        r = b.launch("mb8_mbarrier", 1, block, (b.clocks, b.sink, np.int32(iters), np.int32(mode)), section="mbarrier",
                     mode=mode)
        if r:
            r["cycles_per_round"] = r["cycles_max"] / iters
            print(f"mbarrier mode {mode}: {r['cycles_per_round']:.1f} cycles per round", flush=True)


SECTIONS = (wgmma, mma_sync, matrix_moves, tma, cp_async, cp_async_lean, mbarrier)


def run(reps=3):
    import cupy as cp
    b = Bench(cp, reps)
    only = os.environ.get("MB8_SECTIONS")
    for section in SECTIONS:
        if only and section.__name__ not in only.split(","):
            continue
        try:
            section(b)
        except Exception as exc:          # recorded; the other sections still run
            traceback.print_exc(file=sys.stdout)
            b.results.append({"section": section.__name__, "error": repr(exc)})
    return b.results


if __name__ == "__main__":
    main(__doc__, run, os.environ.get("MB8_OUTPUT", "microbench8.json"))
