"""The timing model on the very cubins the H200 ran: Triton 3.6's cache from the device, predicted here.

    python validation/triton_do_bench/predict_h200_cubins.py CACHE_DIR [--ncu triton_sweeps_ncu.csv]

CACHE_DIR is a Triton cache the sweeps filled on the H200 (validation/device/triton_sweeps_ncu.sh packs
it as triton_cache_ncu.tar.gz). Each softmax and matmul cubin is loaded (its SASS is what the H200
ran, whatever Triton version is installed here), launched at the sweep's geometry on fresh random
inputs and timed by warpsim's model; with --ncu, beside ncu's gpu__time_duration of the same
configuration (the mean of its launches there). This separates the model's error from what a
different Triton or ptxas version makes of the same kernel.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import re

import numpy as np


def configs(cache: str) -> list:
    out = []
    for meta_path in sorted(glob.glob(os.path.join(cache, "*", "*.json"))):
        if os.path.basename(meta_path).startswith("__grp__"):
            continue
        meta = json.load(open(meta_path))
        name = meta["name"]
        folder = os.path.dirname(meta_path)
        ttir = open(os.path.join(folder, f"{name}.ttir")).read()
        if name == "matmul_kernel":
            dot = re.search(r"tt\.dot .*?: tensor<(\d+)x(\d+)xf16.*?> \* tensor<(\d+)x(\d+)xf16", ttir)
            bm, bk, _, bn = (int(v) for v in dot.groups())
            label = f"{bm}x{bn}x{bk}_w{meta['num_warps']}_s{meta['num_stages']}"
        else:
            label = f"w{meta['num_warps']}"
        out.append((name, label, os.path.join(folder, f"{name}.cubin"), meta))
    return out


def predict(name, cubin, meta, ctas=6):
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict as model
    rng = np.random.default_rng(0)
    k = ws.RawModule(path=cubin).get_function(name)
    warps = meta["num_warps"]
    if name == "softmax_kernel":
        rows, cols = 4096, 1024
        x = ws.asarray(rng.standard_normal((rows, cols), dtype=np.float32))
        y = ws.empty_like(x)
        args = (y, x, np.int32(cols), np.int32(cols), np.int32(cols), 0, 0)
        grid = (rows, 1, 1)
    else:
        bm, bn = meta["_tile"]
        size = 1024
        a = ws.asarray(rng.standard_normal((size, size)).astype(np.float16))
        b = ws.asarray(rng.standard_normal((size, size)).astype(np.float16))
        c = ws.empty((size, size), dtype=np.float16)
        args = (a, b, c, np.int32(size), np.int32(size), np.int32(size), np.int32(size), np.int32(size),
                np.int32(size), 0, 0)
        grid = ((size // bm) * (size // bn), 1, 1)
    params = pack_arguments(k.kernel_name, k.params, args)
    return model(k.loaded_module, name, grid, (32 * warps, 1, 1), params, meta["shared"], gpu="h200",
                 max_ctas=ctas, prefer="sass")


def measured(path: str) -> dict:
    """(kernel, grid, block, registers) -> mean ncu time (us) over its launches."""
    lines = [line for line in open(path) if line.startswith('"')]
    rows = list(csv.reader(lines))
    head, data = rows[0], rows[2:]
    acc = {}
    for row in data:
        d = dict(zip(head, row))
        kern = d["Kernel Name"].split("(")[0]
        if kern not in ("softmax_kernel", "matmul_kernel"):
            continue
        key = (kern, int(d["launch__grid_size"].replace(",", "")), int(d["launch__block_size"].replace(",", "")),
               int(d["launch__registers_per_thread"].replace(",", "")))
        acc.setdefault(key, []).append(float(d["gpu__time_duration.sum"].replace(",", "")) / 1e3)
    return {k: float(np.mean(v)) for k, v in acc.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--ncu")
    ap.add_argument("--ctas", type=int, default=6)
    a = ap.parse_args()
    meas = measured(a.ncu) if a.ncu else {}
    from warpsim.timing.registers import kernel_registers
    for name, label, cubin, meta in configs(a.cache):
        if name == "matmul_kernel":
            bm, bn = (int(v) for v in re.match(r"(\d+)x(\d+)", label).groups())
            meta["_tile"] = (bm, bn)
        t = predict(name, cubin, meta, a.ctas)
        import warpsim as ws
        regs = kernel_registers(ws.RawModule(path=cubin).get_function(name).loaded_module, name)
        grid = 4096 if name == "softmax_kernel" else (1024 // meta["_tile"][0]) * (1024 // meta["_tile"][1])
        m = meas.get((name, grid, 32 * meta["num_warps"], regs))
        err = f"{t.time_s * 1e6 / m - 1:+.0%}" if m else ""
        print(f"{name:15s} {label:22s} predicted {t.time_s * 1e6:7.2f} us  ncu {m if m else float('nan'):7.2f} us  "
              f"{err:>6s}  [{t.bottleneck}] {t}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
