"""Twenty-third batch of H200 microbenchmarks (microbench23.cu): whether the CTAs an SM holds stay in
step, wave after wave. Tile transposes of a 4096 x 4096 float matrix through shared memory, 32 x 32
or 32 x 16 threads a tile, conflicted or padded, one tile a CTA (one barrier) or 4 or 16 tiles a CTA
(two barriers a tile); each CTA's SM, start and end (%globaltimer).

On the device (after `nvcc -arch=sm_90 -cubin -o microbench23.cubin microbench23.cu`):

    python3 run_microbench23.py --collect OUTDIR     # OUTDIR/microbench23.json
Here:
    python3 run_microbench23.py --model              # the recording beside the timing model
"""

from __future__ import annotations

import gzip
import json
import os

import numpy as np

from microbench_runner import main, median_launch, recording

HERE = os.path.dirname(os.path.abspath(__file__))
N = 4096
CONFIGS = [dict(kernel=k, rows=rows, rounds=rounds) for k in ("mb23_conflicted", "mb23_padded")
           for rows in (32, 16) for rounds in (1, 4, 16)]


def run(reps=3):
    import cupy as cp
    module = cp.RawModule(path=os.path.join(HERE, "microbench23.cubin"))
    x = cp.random.random(N * N, dtype=cp.float32)
    out = cp.zeros(N * N, dtype=cp.float32)
    results = []
    warm = module.get_function("mb23_padded")
    keep = cp.zeros(3 * (N // 32) ** 2, dtype=cp.uint64)
    for _ in range(400):                  # the clocks up before the first timed launch (about 40 ms)
        warm(((N // 32) ** 2,), (32, 32), (out, x, np.int32(N), np.int32(1), keep))
    cp.cuda.runtime.deviceSynchronize()
    for config in CONFIGS:
        f = module.get_function(config["kernel"])
        rounds = config["rounds"]
        ctas = (N // 32) ** 2 // rounds
        stamps = cp.zeros(3 * ctas, dtype=cp.uint64)

        def launch():
            f((ctas,), (32, config["rows"]), (out, x, np.int32(N), np.int32(rounds), stamps))

        def read(seconds):
            s = cp.asnumpy(stamps).reshape(ctas, 3).astype(np.int64)
            return dict(event_us=seconds * 1e6, sm=s[:, 0].tolist(), start=(s[:, 1] - s[:, 1].min()).tolist(),
                        end=(s[:, 2] - s[:, 1].min()).tolist())
        best = median_launch(cp, launch, reps, read, "event_us")
        assert bool((out.reshape(N, N) == x.reshape(N, N).T).all()), config
        results.append(dict(config, ctas=ctas, **best))
        print(config, f"{best['event_us']:.1f} us", summary(results[-1]), flush=True)
    return results


def summary(r) -> dict:
    """Per SM, each CTA's start against the nearest start of another CTA of that SM (0: in step), over
    the CTA's lifetime, for the SM's first and for its later CTAs; and the lifetimes."""
    sm, start, end = (np.asarray(r[k]) for k in ("sm", "start", "end"))
    life = end - start
    first, later = [], []
    for s in np.unique(sm):
        at = np.flatnonzero(sm == s)
        order = at[np.argsort(start[at])]
        t = start[order]
        for k, c in enumerate(order):
            others = np.abs(np.delete(t, k) - t[k])
            if not len(others):
                continue
            (first if k < 2 else later).append(others.min() / life[c])
    return dict(lifetime_ns=float(np.median(life)), first_gap=float(np.median(first)) if first else None,
                later_gap=float(np.median(later)) if later else None,
                later_gap_p90=float(np.percentile(later, 90)) if later else None)


def model():
    """The recording's steps (how far apart an SM's CTAs start) and the timing model on this cubin beside
    each configuration's span, first start to last end (h200/microbench23.json.gz, the device's
    microbench23.json gzipped)."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    with gzip.open(recording("microbench23.json.gz"), "rt") as fh:
        measured = json.load(fh)
    module = ws.RawModule(path=os.path.join(HERE, "microbench23.cubin"))
    x = ws.asarray(np.random.default_rng(23).random(N * N, dtype=np.float32))
    out = ws.zeros(N * N, dtype=np.float32)
    for r in measured:
        s = summary(r)
        f = module.get_function(r["kernel"])
        stamps = ws.zeros(3 * r["ctas"], dtype=np.uint64)
        args = (out, x, np.int32(N), np.int32(r["rounds"]), stamps)
        t = predict(f.loaded_module, f.kernel_name, (r["ctas"],), (32, r["rows"]),
                    pack_arguments(f.kernel_name, f.params, args), 0, gpu="h200", max_ctas=4)
        span = (max(r["end"]) - min(r["start"])) / 1e3
        gap = s["later_gap"] * s["lifetime_ns"] / (s["lifetime_ns"] / r["rounds"])     # in tiles
        print(f"{r['kernel']:16s} {r['rows']:2d} rows, {r['rounds']:2d} tiles a CTA: span {span:6.1f} us "
              f"(events {r['event_us']:6.1f}), model {t.time_s * 1e6:6.1f} us ({t.time_s * 1e6 / span:.2f}x); "
              f"lifetime {s['lifetime_ns']:6.0f} ns, a CTA's start from the nearest on its SM: {gap:.2f} tiles "
              f"(median; p90 {s['later_gap_p90'] * r['rounds']:.2f})", flush=True)


if __name__ == "__main__":
    main(__doc__, run, "microbench23.json", model)
