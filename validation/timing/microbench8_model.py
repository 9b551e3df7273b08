"""The timing model against the eighth microbenchmark batch (microbench8.cu, h200/microbench8.json).

    python validation/timing/microbench8_model.py [--only REGEX]

Each configuration runs here at two small iteration counts; the difference of the model's cycles
over the difference of iterations is its figure per iteration (the kernel's set-up and the loop's
first round drop out, as they do from the H200's clock64 over thousands of iterations). Printed:
the H200's cycles per iteration (clock64 of the longest CTA), the model's, and their ratio: wgmma latency and issue interval, mma.sync,
ldmatrix/stmatrix, cp.async bandwidth and latency. The preset's tables are taken from these
measurements, so this checks that the rules built on them give back what was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
SMS = 132


def _predict(mod, name, grid, block, args, shared=0):
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    k = mod.get_function(name)
    if shared > 48 * 1024:
        k.max_dynamic_shared_size_bytes = shared
    params = pack_arguments(k.kernel_name, k.params, args)
    return predict(k.loaded_module, k.kernel_name, (grid,), (block,), params, shared, gpu="h200", max_ctas=4)


def _cycles(t, preset) -> float:
    """Predicted cycles of the SM's work, without the launch's fixed start and drain."""
    from warpsim.timing.model import KERNEL_OVERHEAD_US
    return t.time_s * preset.clock_hz - KERNEL_OVERHEAD_US * 1e-6 * preset.clock_hz


def _per_iteration(mod, name, grid, block, args_of, counts, preset, shared=0):
    """The model's cycles per iteration between two iteration counts, and the longer run's Timing."""
    a, b = counts
    ta = _predict(mod, name, grid, block, args_of(a), shared)
    tb = _predict(mod, name, grid, block, args_of(b), shared)
    return (_cycles(tb, preset) - _cycles(ta, preset)) / (b - a), tb


def rows(ws, mod, records, preset):
    clocks = ws.zeros(2 * 2048, dtype=np.int64)
    sink = ws.zeros(1024, dtype=np.float32)
    for r in records:
        if "error" in r or "cycles_max" not in r:
            continue
        sec = r["section"]
        if sec == "wgmma" and r["grid"] in (1, SMS):
            group = r["group"]
            try:
                per, t = _per_iteration(mod, r["kernel"], r["grid"], 128,
                                        lambda n: (clocks, sink, np.int32(n), np.int32(group)), (8, 16), preset)
            except Exception as exc:          # a form the SASS executor lacks
                yield f"{r['kernel']} g{r['group']} grid {r['grid']}", r["cycles_per_wgmma"], float("nan"), repr(exc)[:60]
                continue
            per /= group
            yield f"{r['kernel']} g{r['group']} grid {r['grid']}", r["cycles_per_wgmma"], per, t.bottleneck
        elif sec == "mma_sync":
            per, t = _per_iteration(mod, r["kernel"], r["grid"], r["block"], lambda n: (clocks, sink, np.int32(n)),
                                    (32, 64), preset)
            yield f"{r['kernel']} {r['block']} threads", r["cycles_max"] / r["iters"] if "iters" in r else \
                r["cycles_max"] / (4096 if r["chains"] == 1 else 2048), per, t.bottleneck
        elif sec in ("ldsm", "stsm"):
            extra = (np.int32(r["dependent"]),) if sec == "ldsm" else ()
            per, t = _per_iteration(mod, r["kernel"], r["grid"], r["block"],
                                    lambda n: (clocks, sink, np.int32(n)) + extra, (16, 32), preset)
            full = 4096 if r.get("dependent") else 1024
            yield f"{r['kernel']} {r['block']} threads dep {r.get('dependent')}", r["cycles_max"] / full, \
                per, t.bottleneck


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    a = ap.parse_args()
    import warpsim as ws
    from warpsim.timing import gpu_preset
    preset = gpu_preset("h200")
    with open(os.path.join(HERE, "h200", "microbench8.json")) as fh:
        records = json.load(fh)
    if a.only:
        records = [r for r in records if re.search(a.only, r.get("kernel", r.get("section", "")))]
    mod = ws.RawModule(path=os.path.join(HERE, "microbench8.cubin"))
    ratios = []
    for label, measured, model, note in rows(ws, mod, records, preset):
        ratio = model / measured if measured and model == model else float("nan")
        if ratio == ratio:
            ratios.append(ratio)
        print(f"{label:44s} measured {measured:8.1f}  model {model:8.1f}  ratio {ratio:5.2f}  [{note}]", flush=True)
    if ratios:
        print(f"{len(ratios)} configurations: model / measured {min(ratios):.2f} to {max(ratios):.2f}, "
              f"median {np.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
