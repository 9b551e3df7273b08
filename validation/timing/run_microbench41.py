"""Forty-first batch of H200 microbenchmarks (microbench41.cu): random gathers from a cold L2.
8M threads each read one float of an array of 4, 8, 16, 32 or 64 MB at a random place, the index
hashed or loaded from an array, the result stored or not. Under ncu (its cache flush: a cold L2) the
HBM bytes read against the region's bytes say how often a block of it comes from HBM; CUDA events
(back to back: warm) beside them.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench41.cubin microbench41.cu`):

    python3 run_microbench41.py --collect OUTDIR     # OUTDIR/microbench41.json: CUDA-event medians
    ncu ... python3 run_microbench41.py --once
Here:
    python3 run_microbench41.py --model              # the H200's rows under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import card, main, ncu_rows, number, recording, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
N, BLOCK = 1 << 23, 256
REGIONS_MB = (4, 8, 16, 32, 64)
CONFIGS = [dict(region_mb=r, mode=m) for r in REGIONS_MB for m in (0, 3)] + \
    [dict(region_mb=32, mode=1), dict(region_mb=32, mode=2)]


def label(config) -> str:
    idx = "loaded index" if config["mode"] & 1 else "hashed index"
    out = "stored" if config["mode"] & 2 else "not stored"
    return f"{config['region_mb']:2d} MB, {idx}, {out}"


def buffers(xp, config):
    """(out, src, idx, index mask): src the gathered array of `region_mb`, the loaded index a random draw
    over it (the hashed one is the kernel's, masked to it)."""
    elements = config["region_mb"] << 18                       # floats: a power of two
    rng = np.random.default_rng(41 + config["region_mb"])
    src = xp.asarray(rng.random(elements, dtype=np.float32))
    idx = xp.asarray(rng.integers(0, elements, N).astype(np.int32))
    return xp.zeros(N, dtype=np.float32), src, idx, np.uint32(elements - 1)


def arguments(config, out, src, idx, mask) -> tuple:
    return out, src, idx, mask, np.int32(config["mode"]), np.int32(N)


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench41.cubin"))
    f = mod.get_function("mb41_gather")

    def launch_for(config):
        out, src, idx, mask = buffers(cp, config)
        return lambda: f((N // BLOCK,), (BLOCK,), arguments(config, out, src, idx, mask))
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import json

    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    mod = ws.RawModule(path=os.path.join(HERE, "microbench41.cubin"))
    f = mod.get_function("mb41_gather")
    events = json.load(open(recording("microbench41.json")))
    rows = [r for r in ncu_rows("microbench41_ncu.csv") if "mb41" in r.get("Kernel Name", "")]
    errors = []
    for config, e, m in zip(CONFIGS, events, rows):
        out, src, idx, mask = buffers(ws, config)
        args = pack_arguments(f.kernel_name, f.params, arguments(config, out, src, idx, mask))
        t = predict(f.loaded_module, f.kernel_name, (N // BLOCK,), (BLOCK,), args, 0, gpu=card(), max_ctas=8)
        h200, us = number(m["gpu__time_duration.sum"]) / 1e3, t.time_s * 1e6
        errors.append(us / h200 - 1)
        hbm = number(m["dram__bytes_read.sum"]) / 1e6
        print(f"{label(config):40s} H200 {h200:7.1f} us (HBM read {hbm:6.1f} MB, {hbm / config['region_mb']:4.2f}x the "
              f"region; events {e['event_us']:7.1f}), model {us:7.1f} us ({100 * errors[-1]:+4.0f}%, HBM "
              f"{t.details.get('dram_bytes', 0) / 1e6:6.1f} MB, {t.bottleneck})", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


if __name__ == "__main__":
    main(__doc__, run, "microbench41.json", model)
