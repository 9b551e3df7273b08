"""Eighteenth batch of H200 microbenchmarks (microbench18.cu): TMA box loads issued with a few
instructions a box, from one or two warps, 1 or 2 CTAs on each of the 132 SMs, from regions that
1 to all CTAs share: the bytes per SM clock the TMA unit and the L2 give, and (under ncu) whether
the L2's request coalescer merges TMA reads of the same sectors as it does loads' (microbench13).

On the device (after `nvcc -arch=sm_90a -cubin -o microbench18.cubin microbench18.cu`):

    python3 run_microbench18.py --collect OUTDIR     # event times and clock64 spans: OUTDIR/microbench18.json
    ncu ... python3 run_microbench18.py --once        # one launch per configuration, CONFIGS' order

Each CTA loads BOXES boxes; the regions (REGION_BOXES boxes each, or 4 where each CTA has its own)
stay resident in L2 (an untimed launch first).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, launch_once, main
from run_microbench8 import SMS, encode_tensor_map

HERE = os.path.dirname(os.path.abspath(__file__))
BOXES, REGION_BOXES = 384, 16
CONFIGS = [dict(box_rows=box_rows, ctas_per_sm=ctas, stages=stages, per_stage=2, issuers=issuers,
                sharers=sharers, rotate=0)
           for box_rows in (64, 128)                 # 8 KB and 16 KB boxes of 128-byte rows
           for ctas in (1, 2)
           for stages in (2, 4)
           for issuers in (1, 2)
           for sharers in (1, 8, "grid")
           if ctas * stages * 2 * 128 * box_rows <= 200 * 1024]        # the CTAs of an SM fit its shared memory


def region_boxes(sharers: int) -> int:
    return REGION_BOXES if sharers > 1 else 4


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench18.cubin"))
    f = mod.get_function("mb18_tma")
    const = mod.get_global("mb18_tmap")
    clocks = cp.zeros(2 * 2 * SMS, dtype=cp.int64)
    rows = max(2 * SMS * region_boxes(1), 2 * SMS // 8 * REGION_BOXES) * 128
    buf = cp.asarray(np.random.default_rng(18).integers(0, 2**16, 64 * rows, dtype=np.uint16))
    results = []
    for config in CONFIGS:
        box_rows, grid = config["box_rows"], config["ctas_per_sm"] * SMS
        sharers = grid if config["sharers"] == "grid" else config["sharers"]
        words = np.frombuffer(encode_tensor_map(buf.data.ptr, 64, rows, 64, box_rows, 3), dtype=np.uint32).copy()
        const.copy_from_host(words.ctypes.data, words.nbytes)
        box_bytes = 128 * box_rows
        shared = config["stages"] * config["per_stage"] * box_bytes
        f.max_dynamic_shared_size_bytes = shared
        loads = BOXES // config["per_stage"]
        args = (clocks, np.int32(box_rows), np.int32(box_bytes), np.int32(region_boxes(sharers)),
                np.int32(sharers), np.int32(config["rotate"]), np.int32(loads), np.int32(config["stages"]),
                np.int32(config["per_stage"]), np.int32(config["issuers"]))
        launch = lambda: f((grid,), (64,), args, shared_mem=shared)     # noqa: E731
        if not reps:
            launch_once(cp, launch, config)
            continue
        seconds = float(np.median(event_seconds(cp, launch, reps)))
        c = clocks[:2 * grid].get().reshape(grid, 2)
        span = float((c[:, 1] - c[:, 0]).max())
        per_sm = config["ctas_per_sm"] * BOXES * box_bytes
        r = dict(config, sharers=sharers, box_bytes=box_bytes, grid=grid, boxes_per_cta=BOXES, event_us=seconds * 1e6,
                 cycles_max=span, bytes_per_clk_per_sm=per_sm / span,
                 cycles_per_box_per_cta=span / BOXES, sm_clock_mhz=span / seconds / 1e6)
        results.append(r)
        print(f"box {box_bytes // 1024:2d} KB, {config['ctas_per_sm']} CTA/SM, {config['stages']} stages, "
              f"{config['issuers']} issuer(s), sharers {sharers:3d}: {r['bytes_per_clk_per_sm']:5.1f} B/clk/SM, "
              f"{r['cycles_per_box_per_cta']:5.0f} cycles a box a CTA, {r['event_us']:7.1f} us, "
              f"clock {r['sm_clock_mhz']:.0f} MHz", flush=True)
    return results


if __name__ == "__main__":
    main(__doc__, run, "microbench18.json")
