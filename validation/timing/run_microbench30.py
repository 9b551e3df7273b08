"""Thirtieth batch of H200 microbenchmarks: do the L2's merges of many SMs' reads of one sector (the
thirteenth batch: 0.41-0.69 of cp.async.cg's and ld.global.cg's requests reach it) hold for TMA boxes?
4 CTAs of one warp an SM (microbench30.cu): `sharers` CTAs on different SMs load the same boxes at
the same steps (thread 0 of each, 2 loads in flight, 4 boxes a group of sharers in turn); sharers 1
is the baseline, each CTA its own boxes. The boxes stay in L2 (at most 17 MB; the launch runs once
untimed first). ncu's lts__t_sectors against the sectors asked for.

On the device (after `nvcc -arch=sm_90a -cubin -o microbench30.cubin microbench30.cu`):

    python3 run_microbench30.py --collect OUTDIR     # OUTDIR/microbench30.json: CUDA-event medians
    ncu ... python3 run_microbench30.py --once       # one launch of each, in CONFIGS order
Here:
    python3 run_microbench30.py --model              # the share of sectors asked for that reach the L2
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs
from run_microbench8 import encode_tensor_map

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
GRID = 4 * SMS
LOADS, STAGES, ROUNDS = 512, 2, 4
BOXES = ((64, 64, 0), (64, 64, 3))           # box x (uint16 elements: 128 bytes), y, swizzle (3: 128 B)
CONFIGS = [dict(box_x=bx, box_y=by, swizzle=swz, sharers=sharers)
           for bx, by, swz in BOXES for sharers in (GRID, 132, 33, 8, 2, 1)]


def launches(cp):
    """(config, launch) of every configuration: the map set in the module's constant memory first."""
    mod = cp.RawModule(path=os.path.join(HERE, "microbench30.cubin"))
    f = mod.get_function("mb30_tma_shared")
    const = mod.get_global("mb30_tmap_const")
    sink = cp.zeros(GRID, dtype=cp.int32)
    rows = max(64 * (GRID // c["sharers"]) * ROUNDS for c in CONFIGS)
    buf = cp.asarray(np.random.default_rng(30).integers(0, 2**16, 64 * rows, dtype=np.uint16))
    for config in CONFIGS:
        bx, by = config["box_x"], config["box_y"]
        words = np.frombuffer(encode_tensor_map(buf.data.ptr, bx, rows, bx, by, config["swizzle"]), np.uint32)
        box_bytes = bx * by * 2
        args = (np.int32(config["sharers"]), np.int32(ROUNDS), np.int32(by), np.int32(box_bytes), np.int32(LOADS),
                np.int32(STAGES), sink)

        def launch(words=words, args=args, shared=STAGES * box_bytes):
            const.copy_from_host(words.ctypes.data, words.nbytes)
            f((GRID,), (32,), args, shared_mem=shared)
        yield config, launch


def run(reps=5):
    import cupy as cp
    made = dict((i, launch) for i, (_, launch) in enumerate(launches(cp)))
    return time_configs(cp, [dict(c, index=i) for i, c in enumerate(CONFIGS)], lambda c: made[c["index"]], reps)


def measured() -> list:
    """ncu's rows (h200/microbench30_ncu.csv), in CONFIGS order: the share of the sectors asked for that
    the L2 saw."""
    out = []
    for config, r in zip(CONFIGS, ncu_rows("microbench30_ncu.csv")):
        asked = GRID * LOADS * config["box_x"] * config["box_y"] * 2 / 32
        out.append(dict(config, us=number(r["gpu__time_duration.sum"]) / 1e3,
                        share=number(r["lts__t_sectors.sum"]) / asked,
                        read_share=number(r["lts__t_sectors_op_read.sum"]) / asked))
    return out


def model():
    for m in measured():
        print(f"box {m['box_x']}x{m['box_y']} swizzle {m['swizzle']} sharers {m['sharers']:3d}: {m['us']:7.1f} us, "
              f"L2 sectors / asked {m['share']:.3f} (reads {m['read_share']:.3f})", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench30.json", model)
