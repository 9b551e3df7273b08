"""The cooperative and profile demos' kernels on a real H200: CUDA-event medians and ncu's
gpu__time_duration, beside what warpsim's timing model predicts (validation/demo/README.md).

    python3 validation/demo/run_on_device.py --out DIR            # times, checks, writes DIR/times.json
    ncu ... python3 validation/demo/run_on_device.py --once       # each launch once, for ncu

Same kernels, same sizes and launches as `warpsim demo cooperative` and `warpsim demo profile`:
warpsim/demo/kernels/cooperative.cu and profile.cu compiled by CuPy's NVRTC for the device
(-ftz=true, as warpsim compiles them), Triton's tutorial kernels from
warpsim/demo/triton_kernels.py compiled by the device's Triton for sm_90 (the demo uses sm_80),
launched as the tutorials do on this GPU. Inputs random (fixed seeds), outputs poisoned with
NaN and checked against NumPy before timing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "warpsim" / "demo" / "kernels"
ELEMENTS, LENGTHS, THREADS, EPS = 1 << 18, (8, 32, 128, 1024), 128, 1e-5
PROFILE_N, PROFILE_STEPS = 1 << 18, 8


def load_triton_kernels():
    """warpsim/demo/triton_kernels.py by its path (warpsim itself is not installed here)."""
    spec = importlib.util.spec_from_file_location("triton_kernels", KERNELS.parent / "triton_kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def event_median(launch, warmup=20, repeats=100):
    import cupy as cp
    for _ in range(warmup):
        launch()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)     # us
    return float(np.median(times)), float(np.percentile(times, 25)), float(np.percentile(times, 75))


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm_ref(x, w, b):
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + EPS) * w + b


def cooperative_cases(once: bool, results: dict):
    import cupy as cp
    module = cp.RawModule(code=(KERNELS / "cooperative.cu").read_text(), options=("-ftz=true", "-std=c++17"))
    rng = np.random.default_rng(16)
    for cols in LENGTHS:
        rows = ELEMENTS // cols
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
        dx, dw, db = cp.asarray(x), cp.asarray(w), cp.asarray(b)
        for op in ("softmax", "layernorm"):
            want = softmax_ref(x) if op == "softmax" else layernorm_ref(x, w, b)
            for way in ("thread", "warp"):
                fn = module.get_function(f"{op}_{way}_per_row")
                y = cp.full(rows * cols, np.nan, dtype=cp.float32)
                threads = rows if way == "thread" else 32 * rows
                grid = (-(-threads // THREADS),)
                args = (dx, y, np.int32(rows), np.int32(cols)) if op == "softmax" else \
                    (dx, dw, db, y, np.int32(rows), np.int32(cols), np.float32(EPS))
                launch = lambda: fn(grid, (THREADS,), args)        # noqa: E731
                key = f"{op}|{cols}|{way}"
                launch()
                cp.cuda.Device().synchronize()
                if once:
                    continue
                got = y.get().reshape(rows, cols)
                ok = bool(np.isfinite(got).all() and np.allclose(got, want, rtol=1e-4, atol=1e-4))
                results[key] = dict(correct=ok, grid=grid[0], block=THREADS)
                results[key]["median_us"], results[key]["q1_us"], results[key]["q3_us"] = event_median(launch)
                print(key, results[key], flush=True)


def triton_cases(once: bool, results: dict):
    import torch
    import triton
    tk = load_triton_kernels()
    props = triton.runtime.driver.active.utils.get_device_properties(torch.cuda.current_device())
    rng = np.random.default_rng(16)
    for cols in LENGTHS:
        rows = ELEMENTS // cols
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
        tx, tw, tb = (torch.from_numpy(a).cuda() for a in (x, w, b))
        for op in ("softmax", "layernorm"):
            key = f"{op}|{cols}|triton"
            y = torch.full_like(tx, float("nan"))
            if op == "softmax":
                options = tk.softmax_launch(cols)
                kernel = tk.softmax_kernel.warmup(y, tx, cols, cols, rows, cols, grid=(1,), **options)
                kernel._init_handles()
                programs = tk.softmax_programs(kernel.n_regs, kernel.metadata.shared,
                                               props["multiprocessor_count"], rows, options["num_warps"])
                launch = lambda: tk.softmax_kernel[(programs, 1, 1)](y, tx, cols, cols, rows, cols, **options)  # noqa: E731
                want = softmax_ref(x)
                extra = dict(programs=programs, n_regs=kernel.n_regs)
            else:
                mean, rstd = torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")
                options = tk.layer_norm_launch(cols)
                launch = lambda: tk.layer_norm_fwd_fused[(rows,)](tx, y, tw, tb, mean, rstd, cols, cols, EPS, **options)  # noqa: E731
                want = layernorm_ref(x, w, b)
                extra = dict(programs=rows)
            launch()
            torch.cuda.synchronize()
            if once:
                continue
            got = y.cpu().numpy()
            ok = bool(np.isfinite(got).all() and np.allclose(got, want, rtol=1e-4, atol=1e-4))
            results[key] = dict(correct=ok, **extra, **options)
            results[key]["median_us"], results[key]["q1_us"], results[key]["q3_us"] = event_median(launch)
            print(key, results[key], flush=True)


def profile_cases(once: bool, results: dict):
    import cupy as cp
    module = cp.RawModule(code=(KERNELS / "profile.cu").read_text(), options=("-ftz=true", "-std=c++17"))
    n = PROFILE_N
    rng = np.random.default_rng(12)
    values = rng.standard_normal(n).astype(np.float32)
    kinds = rng.integers(0, 2, n).astype(np.int32)
    order = np.argsort(kinds, kind="stable")
    versions = [("slow", "score_slow", False, (132, 64)), ("bucketed", "score_slow", True, (132, 64)),
                ("soa", "score_fixed", False, (132, 64)), ("threads", "score_slow", False, (n // 256, 256)),
                ("fixed", "score_fixed", True, (n // 256, 256))]
    for label, kernel, bucketed, (grid, block) in versions:
        v, k = (values[order], kinds[order]) if bucketed else (values, kinds)
        out = cp.full(n, np.nan, dtype=cp.float32)
        if kernel == "score_slow":
            packed = np.ones((n, 8), dtype=np.float32)
            packed[:, 0], packed[:, 1] = v, k.view(np.float32)
            data = (cp.asarray(packed.ravel()),)
        else:
            data = (cp.asarray(v), cp.asarray(k))
        fn = module.get_function(kernel)
        args = (*data, out, np.int32(n), np.int32(PROFILE_STEPS))
        launch = lambda: fn((grid,), (block,), args)      # noqa: E731
        launch()
        cp.cuda.Device().synchronize()
        if once:
            continue
        ref = v.astype(np.float64)
        for _ in range(PROFILE_STEPS):
            ref = np.where(k == 0, ref * np.float32(0.999) + 0.25, ref * np.float32(1.001) - 0.25)
        ok = bool(np.allclose(out.get(), ref, rtol=1e-5, atol=1e-5))
        key = f"profile|{label}"
        results[key] = dict(correct=ok, grid=grid, block=block)
        results[key]["median_us"], results[key]["q1_us"], results[key]["q3_us"] = event_median(launch)
        print(key, results[key], flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    p.add_argument("--once", action="store_true", help="each launch once, no checks (under ncu)")
    args = p.parse_args()
    results, errors = {}, {}
    started = time.time()
    for step in (cooperative_cases, profile_cases, triton_cases):
        try:
            step(args.once, results)
        except Exception as exc:           # each step on its own: one failure leaves the others' figures
            errors[step.__name__] = f"{type(exc).__name__}: {exc}"
            print(step.__name__, "failed:", errors[step.__name__], file=sys.stderr, flush=True)
    if not args.once:
        path = pathlib.Path(args.out) / "times.json"
        path.write_text(json.dumps(dict(results=results, errors=errors, seconds=time.time() - started), indent=1))
        print("wrote", path)


if __name__ == "__main__":
    main()
