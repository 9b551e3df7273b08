"""Forty-fourth batch of H200 microbenchmarks (microbench44.cu): the lines an SM keeps in flight under a
shared-memory carve-out, and streaming with few warps an SM.
One CTA an SM throughout. mb44_chase: dependent random loads through a permutation of 4 MB (L2-resident)
or 128 MB (from HBM), every lane its own line or a warp one line, at 4 to 32 warps an SM and 0, 100 or
200 KB of dynamic shared memory (the carve-out it forces leaves L1 about 220, 120 or 24 KB).
mb44_stream_k{K}_v{V}: a grid-stride stream of 64 MB, K independent loads of V floats a thread an
iteration, stored or summed, at 1, 4 or 16 warps an SM.

On the device (after `nvcc -arch=sm_90 -cubin -o microbench44.cubin microbench44.cu`):

    python3 run_microbench44.py --collect OUTDIR     # OUTDIR/microbench44.json: CUDA-event medians
    ncu ... python3 run_microbench44.py --once
Here:
    python3 run_microbench44.py --model              # the rows under ncu beside the model's
"""

from __future__ import annotations

import os

import numpy as np

from microbench_runner import main, model_table, time_configs

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132
CHASE = [dict(kind="chase", region_mb=r, warps=w, shared_kb=s, lane_line=ll)
         for r, lines in ((4, (0, 1)), (128, (0,))) for ll in lines for s in (0, 100, 200) for w in (4, 8, 16, 32)]
STREAM = [dict(kind="stream", k=k, v=v, mode=m, warps=w)
          for v in (1, 4) for k in (1, 4, 16) for m in (0, 1) for w in (1, 4, 16)]
CONFIGS = CHASE + STREAM
STREAM_FLOATS = 1 << 24


def steps(config) -> int:
    return 128 if config["region_mb"] == 4 else 64


def label(config) -> str:
    if config["kind"] == "chase":
        return (f"chase {config['region_mb']:3d} MB {'line a warp' if config['lane_line'] else 'line a lane'}, "
                f"{config['warps']:2d} warps, {config['shared_kb']:3d} KB shared")
    return (f"stream k={config['k']:2d} v={config['v']} {'store' if config['mode'] else 'sum  '}, "
            f"{config['warps']:2d} warps")


def kernel_name(config) -> str:
    return "mb44_chase" if config["kind"] == "chase" else f"mb44_stream_k{config['k']}_v{config['v']}"


def shape(config) -> tuple:
    """(grid, block, dynamic shared bytes: the chase's reservation, at least a word a thread)."""
    threads = 32 * config["warps"]
    return (SMS,), (threads,), max(1024 * config.get("shared_kb", 0), 4 * threads) if config["kind"] == "chase" else 0


def buffers(xp, config):
    grid, block, _ = shape(config)
    threads = grid[0] * block[0]
    rng = np.random.default_rng(44)
    if config["kind"] == "chase":
        words = config["region_mb"] << 18
        if config["lane_line"]:                 # a permutation of lines, each lane keeping its word
            lines = rng.permutation(words // 32).astype(np.int64)
            perm = (lines[:, None] * 32 + np.arange(32)[None, :]).ravel()
        else:
            perm = rng.permutation(words)
        return xp.zeros(threads, dtype=np.int32), xp.asarray(perm.astype(np.int32))
    x = rng.random(STREAM_FLOATS, dtype=np.float32)
    return xp.zeros(STREAM_FLOATS, dtype=np.float32), xp.asarray(x)


def arguments(config, out, src) -> tuple:
    if config["kind"] == "chase":
        return (out, src, np.uint32((config["region_mb"] << 18) - 1), np.int32(steps(config)),
                np.int32(config["lane_line"]))
    return out, src, np.int64(STREAM_FLOATS // config["v"]), np.int32(config["mode"])


def reference(config, src) -> np.ndarray:
    """What mb44_chase leaves in out (the test that the chase ran as meant)."""
    grid, block, _ = shape(config)
    t = np.arange(grid[0] * block[0], dtype=np.uint64)
    mask = np.uint64((config["region_mb"] << 18) - 1)
    key = (t >> np.uint64(5)) if config["lane_line"] else t
    p = (key * np.uint64(2654435761) & np.uint64(0xFFFFFFFF)) & mask
    lane = t & np.uint64(31)
    for _ in range(steps(config)):
        p = src[((p & ~np.uint64(31)) | lane) if config["lane_line"] else p].astype(np.uint64) & mask
    return p.astype(np.int32)


def run(reps=5):
    import cupy as cp
    global SMS
    SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
    mod = cp.RawModule(path=os.path.join(HERE, "microbench44.cubin"))

    def launch_for(config):
        f = mod.get_function(kernel_name(config))
        grid, block, shared = shape(config)
        f.max_dynamic_shared_size_bytes = max(shared, 48 * 1024)
        out, src = buffers(cp, config)
        args = arguments(config, out, src)

        def launch():
            f(grid, block, args, shared_mem=shared)
        if config["kind"] == "chase" and reps:
            launch()
            ok = bool((cp.asnumpy(out) == reference(config, cp.asnumpy(src))).all())
            print("chase result", "right" if ok else "WRONG", label(config), flush=True)
        return launch
    return time_configs(cp, CONFIGS, launch_for, reps)


def model():
    import warpsim as ws
    mod = ws.RawModule(path=os.path.join(HERE, "microbench44.cubin"))
    model_table("microbench44", "mb44", CONFIGS, label,
                lambda config: (mod.get_function(kernel_name(config)), *shape(config),
                                arguments(config, *buffers(ws, config))))

if __name__ == "__main__":
    main(__doc__, run, "microbench44.json", model)
