"""Nineteenth batch of H200 microbenchmarks (microbench19.cu): what an SM's L1 keeps of the lines its
CTAs read again (mb19_sweep: dependent loads sweeping a region per warp, the SM's regions from 32 KB
to 512 KB, 1 or 2 CTAs an SM, with dynamic shared memory shrinking L1, with stores inside the loop),
local-memory histograms (mb19_hist_char / _int), and what a store or load costs the L1 by the lines it
names (mb19_scatter: 1 to 32 lines a request, 8 or 32 warps an SM, on 1, 33 or 132 SMs).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench19.cubin microbench19.cu`):

    python3 run_microbench19.py --collect OUTDIR     # event times and clock64 spans: OUTDIR/microbench19.json
    ncu ... python3 run_microbench19.py --once        # one launch per configuration, CONFIGS' order

Here: `python validation/timing/run_microbench19.py --model` (the model beside the recording).
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import event_seconds, launch_once, main, recording

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, THREADS, WARPS = 132, 256, 8
LOADS = 4096                     # loads per warp a launch (passes x lines)


def sweep(sm_kb, ctas=1, shared_kb=0, store_mode=0):
    lines = sm_kb * 1024 // (128 * WARPS * ctas)
    return dict(kernel="mb19_sweep", sm_kb=sm_kb, ctas_per_sm=ctas, shared_kb=shared_kb, store_mode=store_mode,
                lines=lines, passes=max(2, LOADS // lines))


SWEEPS = ([sweep(kb) for kb in (32, 64, 128, 160, 192, 208, 224, 240, 256, 320, 512)]
          + [sweep(kb, ctas=2) for kb in (64, 128, 192, 224, 256, 320)]
          + [sweep(kb, shared_kb=s) for s in (100, 200) for kb in (16, 32, 64, 128, 160)]
          + [sweep(kb, store_mode=m) for m in (1, 2) for kb in (64, 128, 192, 224)])
HISTS = [dict(kernel=k, iters=25, grid=4096) for k in ("mb19_hist_char", "mb19_hist_int")]
SCATTERS = [dict(kernel="mb19_scatter", mode=mode, lines=lines, warps_per_sm=warps, iters=1024, sms=SMS)
            for mode, warp_counts in ((0, (8, 32)), (1, (8,))) for warps in warp_counts
            for lines in (1, 2, 4, 8, 16, 32)]
SCATTERS += [dict(kernel="mb19_scatter", mode=0, lines=lines, warps_per_sm=warps, iters=1024, sms=sms)
             for sms in (1, 33) for warps in (8, 32) for lines in (1, 4, 8, 32)]
CONFIGS = SWEEPS + HISTS + SCATTERS


def arguments(cp, config, buffers):
    """(grid, block, args, shared bytes) of one configuration."""
    if config["kernel"] == "mb19_sweep":
        grid = SMS * config["ctas_per_sm"]
        return (grid, THREADS, (buffers["data"], buffers["clocks"], buffers["scratch"], np.int32(config["lines"]),
                                np.int32(config["passes"]), np.int32(config["store_mode"])),
                config["shared_kb"] * 1024)
    if config["kernel"] == "mb19_scatter":
        return (config["sms"], 32 * config["warps_per_sm"],             # one CTA an SM
                (buffers["data"], buffers["clocks"], np.int32(config["lines"]), np.int32(config["iters"]),
                 np.int32(config["mode"]), np.int32(0)), 0)
    n = config["grid"] * THREADS
    return (config["grid"], THREADS, (buffers["vals"], buffers["out"], np.int32(config["iters"]), np.int32(n)), 0)


def buffers_for(cp):
    n = HISTS[0]["grid"] * THREADS
    return dict(data=cp.zeros(SMS * 640 * 1024 // 4, dtype=cp.int32), clocks=cp.zeros(8 * SMS, dtype=cp.int64),
                scratch=cp.zeros(32 * 1024 + 64, dtype=cp.int32),
                vals=cp.asarray(np.random.default_rng(19).integers(0, 256, n * 25, dtype=np.uint8)),
                out=cp.zeros(n, dtype=cp.float32))


def run(reps=5):
    import cupy as cp
    mod = cp.RawModule(path=os.path.join(HERE, "microbench19.cubin"))
    buffers = buffers_for(cp)
    results = []
    for config in CONFIGS:
        f = mod.get_function(config["kernel"])
        grid, block, args, shared = arguments(cp, config, buffers)
        if shared:
            f.max_dynamic_shared_size_bytes = shared
        launch = lambda: f((grid,), (block,), args, shared_mem=shared)     # noqa: E731
        if not reps:
            launch_once(cp, launch, config)
            continue
        seconds = float(np.median(event_seconds(cp, launch, reps)))
        r = dict(config, event_us=seconds * 1e6)
        if config["kernel"] == "mb19_sweep":
            c = buffers["clocks"][:2 * grid].get().reshape(grid, 2)
            span = float(np.median(c[:, 1] - c[:, 0]))
            r["cycles_per_load"] = span / ((config["passes"] - 1) * config["lines"])
            print(f"sweep {config['sm_kb']:4d} KB/SM, {config['ctas_per_sm']} CTA/SM, shared {config['shared_kb']:3d} KB, "
                  f"stores {config['store_mode']}: {r['cycles_per_load']:6.1f} cycles a load, {r['event_us']:8.1f} us",
                  flush=True)
        elif config["kernel"] == "mb19_scatter":
            c = buffers["clocks"][:2 * grid].get().reshape(grid, 2)
            span = float(np.median(c[:, 1] - c[:, 0]))
            r["cycles_per_request"] = span / (config["iters"] * 4 * config["warps_per_sm"])
            print(f"scatter {'load ' if config['mode'] else 'store'} {config['lines']:2d} lines, {config['warps_per_sm']:2d} "
                  f"warps/SM, {config['sms']:3d} SMs: {r['cycles_per_request']:6.2f} cycles a request per SM, "
                  f"{r['event_us']:8.1f} us", flush=True)
        else:
            print(f"{config['kernel']}: {r['event_us']:8.1f} us", flush=True)
        results.append(r)
    return results


def model(kernels=("mb19_sweep", "mb19_scatter", "mb19_hist_char", "mb19_hist_int"), passes=(2, 4), iters=(64, 128)):
    """The timing model on this cubin beside the H200's recording (h200/microbench19.json): a sweep's
    cycles a load are the difference of its predicted cycles at two pass counts over the loads between
    (the H200's leave the first, cold pass out too); a scatter's cycles a request per SM likewise from
    two iteration counts."""
    import json
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    measured = json.load(open(recording("microbench19.json")))
    mod = ws.RawModule(path=os.path.join(HERE, "microbench19.cubin"))
    buffers = buffers_for(ws)
    for config, r in zip(CONFIGS, measured):
        if config["kernel"] not in kernels:
            continue
        f = mod.get_function(config["kernel"])
        if config["kernel"].startswith("mb19_hist"):
            grid, block, args, shared = arguments(ws, config, buffers)
            params = pack_arguments(f.kernel_name, f.params, args)
            t = predict(f.loaded_module, f.kernel_name, (grid,), (block,), params, shared, gpu="h200", max_ctas=4)
            print(f"{config['kernel']}: H200 {r['event_us']:7.1f} us, model {t.time_s * 1e6:7.1f} us "
                  f"({t.time_s * 1e6 / r['event_us']:.2f}x, {t.bottleneck})", flush=True)
            continue
        sweep = config["kernel"] == "mb19_sweep"
        key, counts = ("passes", passes) if sweep else ("iters", iters)
        cycles = []
        for n in counts:
            grid, block, args, shared = arguments(ws, dict(config, **{key: n}), buffers)
            params = pack_arguments(f.kernel_name, f.params, args)
            cycles.append(predict(f.loaded_module, f.kernel_name, (grid,), (block,), params, shared, gpu="h200",
                                  max_ctas=2).cycles)
        if not sweep:
            per = (cycles[1] - cycles[0]) / ((counts[1] - counts[0]) * 4 * config["warps_per_sm"])
            print(f"scatter {'load ' if config['mode'] else 'store'} {config['lines']:2d} lines, "
                  f"{config['warps_per_sm']:2d} warps/SM, {config['sms']:3d} SMs: H200 {r['cycles_per_request']:6.2f}, model {per:6.2f} cycles a "
                  f"request per SM ({per / r['cycles_per_request']:.2f}x)", flush=True)
            continue
        per_load = (cycles[1] - cycles[0]) / ((counts[1] - counts[0]) * config["lines"])
        print(f"{config['sm_kb']:4d} KB/SM, {config['ctas_per_sm']} CTA/SM, shared {config['shared_kb']:3d} KB, "
              f"stores {config['store_mode']}: H200 {r['cycles_per_load']:6.1f}, model {per_load:6.1f} cycles a load "
              f"({per_load / r['cycles_per_load']:.2f}x)", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench19.json", model)
