"""Twenty-fourth batch of H200 microbenchmarks (microbench24.cu): where a CTA's warps wait, at their
loads or at the barrier after them, when the loads go to HBM. Tiles of 8 or 32 warps, 1 or 4 loads a
thread, the tile's lines contiguous or a row apart for each warp, each thread writing its sum or not.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench24.cubin microbench24.cu`):

    python3 run_microbench24.py --collect OUTDIR     # OUTDIR/microbench24.json: CUDA-event medians
    ncu --clock-control none --csv --page raw --kernel-name regex:mb24 --metrics ... \\
        python3 run_microbench24.py --once           # one launch of each, in CONFIGS order
Here:
    python3 run_microbench24.py --model              # ncu's stalls beside the timing model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, launch_once, main, ncu_rows, number

HERE = os.path.dirname(os.path.abspath(__file__))
TOTAL = 1 << 26             # floats read: 256 MB, five times the L2
ROW = 4096                  # floats a row (the spread layout)
TILES = 16                  # tiles a CTA
CONFIGS = [dict(warps=w, k=k, layout=layout, write=write) for w in (8, 32) for k in (1, 4)
           for layout in (0, 1) for write in (0, 1)]
STALLS = ("barrier", "long_scoreboard", "short_scoreboard", "wait", "not_selected", "lg_throttle",
          "drain", "selected")


def grid(config) -> int:
    return TOTAL // (config["warps"] * 32 * config["k"] * TILES)


def arguments(config, out, x):
    return (out, x, np.int32(TILES), np.int32(config["k"]), np.int32(config["layout"]), np.int32(config["write"]),
            np.int32(ROW))


def run(reps=5):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench24.cubin"))
    f = module.get_function("mb24_tiles")
    x = cp.random.random(TOTAL, dtype=cp.float32)
    out = cp.zeros(TOTAL, dtype=cp.float32)
    results = []
    for config in CONFIGS:
        def launch():
            f((grid(config),), (config["warps"] * 32,), arguments(config, out, x))
        if reps == 0:
            launch_once(cp, launch, config)
            continue
        times = event_seconds(cp, launch, reps)
        results.append(dict(config, ctas=grid(config), event_us=float(np.median(times)) * 1e6))
        print(results[-1], flush=True)
    return results


def measured_stalls() -> list:
    """ncu's rows (h200/microbench24_ncu.csv), in CONFIGS order: time and stalls an issue."""
    got = []
    for r in ncu_rows("microbench24_ncu.csv"):
        stalls = {s: number(r[f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"]) for s in STALLS}
        got.append(dict(us=number(r["gpu__time_duration.sum"]) / 1e3, stalls=stalls,
                        occupancy=number(r["sm__warps_active.avg.pct_of_peak_sustained_active"])))
    return got


def model():
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, "microbench24.cubin"))
    f = module.get_function("mb24_tiles")
    x = ws.asarray(np.random.default_rng(24).random(TOTAL, dtype=np.float32))
    out = ws.zeros(TOTAL, dtype=np.float32)
    for config, m in zip(CONFIGS, measured_stalls()):
        args = pack_arguments(f.kernel_name, f.params, arguments(config, out, x))
        t = predict(f.loaded_module, f.kernel_name, (grid(config),), (config["warps"] * 32,), args, 0, gpu="h200",
                    max_ctas=4)
        name = f"{config['warps']:2d} warps, {config['k']} loads, {('contiguous', 'spread')[config['layout']]:10s}" \
               f" {('reads', 'copies')[config['write']]:6s}"
        print(f"{name}: {m['us']:7.1f} us, model {t.time_s * 1e6:7.1f} ({t.time_s * 1e6 / m['us']:.2f}x); "
              f"barrier {m['stalls']['barrier']:5.1f} / {t.stalls.get('barrier', 0):5.1f}, long_scoreboard "
              f"{m['stalls']['long_scoreboard']:6.1f} / {t.stalls.get('long_scoreboard', 0):6.1f} (H200 / model)",
              flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench24.json", model)
