"""Thirty-seventh batch of H200 microbenchmarks (microbench37.cu): arrays of structs written and read
field by field, reductions of each width and type to addresses shared by a thread, a warp, a CTA or
the grid, few CTAs streaming loads whose steps leave the DRAM page, and requests of one word of each
of 32 lines from warps side by side, interleaved or at random bases. Cold caches under ncu; the
events time warm launches (the stores and reductions reach their lines in L2 either way).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench37.cubin microbench37.cu`):

    python3 run_microbench37.py --collect OUTDIR     # OUTDIR/microbench37.json: CUDA-event medians
    ncu ... python3 run_microbench37.py --once
Here:
    python3 run_microbench37.py --model              # the H200's times under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, ncu_rows, number, time_configs, recording

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, BLOCK = 132, 256
AOS_STRUCTS = 1 << 22
RED_CTAS, RED_ITERS = SMS * 8, 16
STREAM_INTS = 1 << 24          # ints a strided launch reads, whatever its grid
WALK_CTAS, WALK_ITERS, WALK_LINES = SMS * 8, 64, 32 << 20 >> 7

CONFIGS = (
    [dict(kind="aos_store", fields=f, used=u) for f in (1, 2, 3, 4, 5, 8) for u in sorted({1, f})]
    + [dict(kind="aos_load", fields=f, used=u) for f in (2, 5, 8) for u in sorted({1, f})]
    + [dict(kind="red", type=t, spread=s) for t in ("u32", "u64", "f32", "f64") for s in (0, 1, 2, 3)]
    + [dict(kind="strided", ctas=c, gap=g) for c in (16, 132, SMS * 8) for g in (1, 2, 8)]
    + [dict(kind="walk", spacing=1, mode=0)] + [dict(kind="walk", spacing=s, mode=m) for s in (2, 4, 16) for m in (0, 2)]
    + [dict(kind="walk", spacing=s, mode=1) for s in (1, 4)]
)
DTYPES = {"u32": np.uint32, "u64": np.uint64, "f32": np.float32, "f64": np.float64}


def label(config) -> str:
    if config["kind"] in ("aos_store", "aos_load"):
        return f"{config['kind']:9s} {config['used']} of {config['fields']} fields"
    if config["kind"] == "red":
        return f"red {config['type']} {('thread', 'warp', 'CTA', 'grid')[config['spread']]:6s}"
    if config["kind"] == "walk":
        return f"walk spacing {config['spacing']:2d}, {('side by side', 'random bases', 'interleaved')[config['mode']]}"
    return f"strided {config['ctas']:4d} CTAs, gap {config['gap']}"


def launch_shape(config):
    """(kernel name, grid, block) of a configuration."""
    if config["kind"] in ("aos_store", "aos_load"):
        return f"mb37_{config['kind']}", AOS_STRUCTS // BLOCK, BLOCK
    if config["kind"] == "red":
        return f"mb37_red_{config['type']}", RED_CTAS, BLOCK
    if config["kind"] == "walk":
        return "mb37_walk", WALK_CTAS, BLOCK
    return "mb37_strided", config["ctas"], BLOCK


def buffers(xp, config) -> tuple:
    """The configuration's arrays: (input or target, output), filled as the device run fills them."""
    kind = config["kind"]
    if kind == "aos_store":
        return xp.zeros(AOS_STRUCTS * config["fields"], dtype=np.float32), None
    if kind == "aos_load":
        return xp.asarray(np.random.default_rng(37).random(AOS_STRUCTS * config["fields"], dtype=np.float32)), \
            xp.zeros(AOS_STRUCTS, dtype=np.float32)
    if kind == "red":
        return xp.zeros(RED_CTAS * BLOCK, dtype=DTYPES[config["type"]]), None
    if kind == "walk":
        return xp.ones(WALK_LINES * 32, dtype=np.float32), xp.zeros(WALK_CTAS * BLOCK, dtype=np.float32)
    threads = config["ctas"] * BLOCK
    return xp.ones(STREAM_INTS * config["gap"], dtype=np.int32), xp.zeros(threads, dtype=np.int32)


def arguments(config, first, second) -> tuple:
    kind = config["kind"]
    if kind == "aos_store":
        return first, np.int32(AOS_STRUCTS), np.int32(config["fields"]), np.int32(config["used"]), np.float32(1.5)
    if kind == "aos_load":
        return first, second, np.int32(AOS_STRUCTS), np.int32(config["fields"]), np.int32(config["used"])
    if kind == "red":
        return first, np.int32(config["spread"]), np.int32(RED_ITERS)
    if kind == "walk":
        return first, second, np.uint32(WALK_LINES - 1), np.int32(WALK_ITERS), np.int32(config["spacing"]), \
            np.int32(config["mode"])
    threads = config["ctas"] * BLOCK
    return first, second, np.int32(STREAM_INTS // threads), np.int64(threads * config["gap"])


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench37.cubin"))

    def launch_for(config):
        name, grid, block = launch_shape(config)
        f = mod.get_function(name)
        first, second = buffers(cp, config)
        return lambda: f((grid,), (block,), arguments(config, first, second))
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench37.cubin"))
    events = json.load(open(recording("microbench37.json")))
    rows = [r for r in ncu_rows("microbench37_ncu.csv") if "mb37" in r.get("Kernel Name", "")]
    errors = []
    for config, e, m in zip(CONFIGS, events, rows):
        name, grid, block = launch_shape(config)
        f = mod.get_function(name)
        first, second = buffers(ws, config)
        args = pack_arguments(f.kernel_name, f.params, arguments(config, first, second))
        t = predict(f.loaded_module, f.kernel_name, (grid,), (block,), args, 0, gpu="h200", max_ctas=8)
        us, h200 = t.time_s * 1e6, number(m["gpu__time_duration.sum"]) / 1e3
        errors.append(us / h200 - 1)
        print(f"{label(config):30s} H200 {h200:8.1f} us under ncu (events {e['event_us']:8.1f}; "
              f"L2 requests {number(m['lts__t_requests.sum']) / 1e6:6.2f} M, sectors {number(m['lts__t_sectors.sum']) / 1e6:6.2f} M, "
              f"HBM read/write {number(m['dram__bytes_read.sum']) / 1e6:6.1f}/{number(m['dram__bytes_write.sum']) / 1e6:6.1f} MB), "
              f"model {us:8.1f} us ({100 * errors[-1]:+4.0f}%, {t.bottleneck})", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


if __name__ == "__main__":
    main(__doc__, run, "microbench37.json", model)
