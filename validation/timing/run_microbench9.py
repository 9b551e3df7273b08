"""Ninth batch of H200 microbenchmarks (microbench9.cu): TMA box loads as a pipelined matmul issues
them: boxes per stage on one mbarrier, stages in flight, where the tensor map lives.

On the device (after `nvcc -arch=sm_90a -cubin -o microbench9.cubin microbench9.cu`):

    python3 validation/timing/run_microbench9.py --collect OUTDIR

writes microbench9.json: one record per configuration with the CTAs' clock64 spans (cycles_max: the
longest CTA's end minus start), the median of 3 event-timed launches after an untimed warm-up, bytes
per SM clock and cycles per box.
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, main
from run_microbench8 import SMS, encode_tensor_map

HERE = os.path.dirname(os.path.abspath(__file__))
BOXES = ((64, 64), (64, 128))          # uint16 elements (x inner): 8 KB and 16 KB, 128-byte rows, 128B swizzle
MAP_MODES = {0: "constant", 1: "global", 2: "global, written by the kernel"}


def run(reps=3):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench9.cubin"))
    f = mod.get_function("mb9_tma_pipe")
    const = mod.get_global("mb9_tmap_const")
    clocks = cp.zeros(2 * 1024, dtype=cp.int64)
    lat = cp.zeros(1024, dtype=cp.int64)
    gmap = cp.zeros(32, dtype=cp.uint32)
    scratch = cp.zeros(128 * 1024, dtype=cp.uint8)
    width, rows = 4096, 1024                                   # 8 MB: stays in L2
    buf = cp.zeros(width * rows, dtype=cp.uint16)
    results = []
    for bx, by in BOXES:
        words = np.frombuffer(encode_tensor_map(buf.data.ptr, width, rows, bx, by, 3), dtype=np.uint32).copy()
        const.copy_from_host(words.ctypes.data, words.nbytes)
        gmap.set(words)
        box_bytes = bx * by * 2
        tiles_x, tiles_y = width // bx, rows // by
        for grid in (1, SMS):
            for per_stage in (1, 2, 5):
                for stages in (1, 2, 3, 4):
                    shared = stages * per_stage * box_bytes
                    if shared > 200 * 1024:
                        continue
                    for mode in (0, 1, 2):
                        if grid == 1 and mode == 1:
                            continue
                        boxes = 640 if grid == SMS else 320
                        loads = max(stages, boxes // per_stage)
                        f.max_dynamic_shared_size_bytes = shared
                        args = (gmap, scratch, clocks, lat, np.int32(tiles_x), np.int32(tiles_y), np.int32(bx),
                                np.int32(by), np.int32(box_bytes), np.int32(loads), np.int32(stages),
                                np.int32(per_stage), np.int32(mode))
                        times = event_seconds(cp, lambda: f((grid,), (32,), args, shared_mem=shared), reps)
                        if not times:
                            continue
                        c = clocks[:2 * grid].get().reshape(grid, 2)
                        span = float((c[:, 1] - c[:, 0]).max())
                        n_boxes = loads * per_stage
                        r = {"grid": grid, "box_x": bx, "box_y": by, "box_bytes": box_bytes, "per_stage": per_stage,
                             "stages": stages, "map": MAP_MODES[mode], "loads": loads, "seconds": float(np.median(times)),
                             "cycles_max": span, "cycles_per_box": span / n_boxes,
                             "bytes_per_clk_per_sm": n_boxes * box_bytes / span,
                             "stage_latency_cycles": float(lat[:grid].get().mean()) / loads}
                        results.append(r)
                        print(f"box {bx}x{by} grid {grid:3d} x{per_stage} per stage, {stages} stages, map "
                              f"{MAP_MODES[mode]:30s}: {r['cycles_per_box']:6.0f} cycles/box "
                              f"{r['bytes_per_clk_per_sm']:5.1f} B/clk/SM, stage {r['stage_latency_cycles']:.0f}",
                              flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench9.json")
