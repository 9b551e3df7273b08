"""Run every launch of set 3 (cases3.py) and print one JSON object; the same file runs on the H200 and on warpsim.

    python3 validation/timing/set3/run3.py [--mode check|once|predict] [--only REGEX] [--scale S]

check (on the GPU): each launch once checked against torch (output poisoned with NaN first), then 3
    warm-up launches and 20 timed between CUDA events each (median, warm L2); registers and shared
    memory from the compiled kernel.
once: each launch exactly once, nothing timed or checked (what ncu profiles, `--kernel-name regex:^s3_`).
predict (under `warpsim run`): each launch once from a cold L2 (what ncu measures: it flushes the
    caches before each kernel), its predicted kernel time read off warpsim's clock, then checked.
--scale shrinks the problems for a quick functional check on warpsim only; timed launches use 1.
"""
import argparse
import json
import os
import re
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402

from cases3 import LAUNCHES, setup  # noqa: E402


def _scratch(size, alignment, stream):
    """Triton's allocator for descriptors made in the kernel (s3_matmul_tma) on a GPU."""
    return torch.empty(size, device="cuda", dtype=torch.int8)


def compiled_info(result) -> dict:
    try:
        return {"registers": int(result.n_regs), "shared": int(result.metadata.shared),
                "spills": int(getattr(result, "n_spills", 0) or 0)}
    except Exception:  # noqa: BLE001  (the kernel ran; only its report is missing)
        return {}


def save_kernel(result, stem: str) -> None:
    """The SASS the GPU ran (cubin), its PTX and Triton's metadata, for warpsim to predict from."""
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    for kind in ("cubin", "ptx", "ttgir"):
        data = result.asm[kind] if kind in result.asm else None
        if data is not None:
            with open(f"{stem}.{kind}", "wb" if isinstance(data, bytes) else "w") as fh:
                fh.write(data)
    meta = {"hash": str(getattr(result, "hash", ""))}
    try:
        meta.update({k: v for k, v in result.metadata._asdict().items()
                     if isinstance(v, (int, float, str, bool, type(None)))})
        meta["n_regs"] = int(result.n_regs)
        for what in ("signature", "constexprs", "constants", "attrs"):
            if hasattr(result.src, what):
                meta["src_" + what] = str(getattr(result.src, what))
    except Exception as error:  # noqa: BLE001  (what was read so far is kept)
        meta["meta_error"] = f"{type(error).__name__}: {error}"
    with open(f"{stem}.json", "w") as fh:
        json.dump(meta, fh, indent=1)


def event_median_us(run, reps=20) -> float:
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("check", "once", "predict"), default="check")
    ap.add_argument("--only")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--heads", type=int, help="an attention launch's heads (cases3.setup), fewer to fill fewer SMs")
    ap.add_argument("--save-kernels", metavar="DIR",
                    help="check mode: write each launch's cubin, PTX and metadata as DIR/<label>.*")
    a = ap.parse_args()
    device = triton.runtime.driver.active.get_active_torch_device()
    if a.mode != "predict" and hasattr(triton, "set_allocator"):
        triton.set_allocator(_scratch)
    out = {"mode": a.mode, "triton": triton.__version__, "torch": torch.__version__, "scale": a.scale, "heads": a.heads,
           "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu", "launches": {}}
    gpu = None
    if a.mode == "predict":
        from warpsim.runtime.triton.device import active_gpu
        gpu = active_gpu()
    for launch in LAUNCHES:
        if a.only and not re.search(a.only, launch.label):
            continue
        rec = {"sweep": launch.sweep, "kernel": launch.kernel, "config": launch.config, "problem": launch.problem}
        t0 = time.time()
        try:
            prep = setup(launch, device, a.scale, a.heads)
            run, check, tol = prep.run, prep.check, prep.tolerance
            if a.mode == "once":
                run()
                torch.cuda.synchronize()
            else:
                if gpu is not None:       # the checked launch is the timed one: from a cold L2, as ncu flushes
                    gpu.flush_l2()
                    before = gpu.kernel_ms
                result = run()
                torch.cuda.synchronize()
                if gpu is not None:
                    rec["predicted_us"] = (gpu.kernel_ms - before) * 1e3
                    rec["unpredicted"] = list(gpu.unpredicted)
                rec.update(compiled_info(result))
                if a.save_kernels:
                    try:
                        save_kernel(result, os.path.join(a.save_kernels, launch.label))
                    except Exception as error:  # noqa: BLE001  (the launch was checked; only its files are missing)
                        rec["save_error"] = f"{type(error).__name__}: {error}"[:500]
                err = check()
                rec["rel_err"] = err
                rec["check"] = "PASS" if err <= tol else "FAIL"
                if a.mode == "check":
                    for _ in range(3):
                        run()
                    rec["event_us_median"] = event_median_us(run)
        except Exception as error:  # noqa: BLE001  (one launch's failure must not stop the set)
            rec["check"] = "ERROR"
            rec["error"] = f"{type(error).__name__}: {error}"[:2000]
            traceback.print_exc()
        rec["seconds"] = round(time.time() - t0, 2)
        out["launches"][launch.label] = rec
        print(f"{launch.label:32s} {rec.get('check', '-'):5s} err {rec.get('rel_err', float('nan')):.2e} "
              f"event {rec.get('event_us_median', float('nan')):8.2f} us  "
              f"pred {rec.get('predicted_us', float('nan')):8.2f} us "
              f"regs {rec.get('registers', '-')} smem {rec.get('shared', '-')} ({rec['seconds']} s)",
              file=sys.stderr, flush=True)
        torch.cuda.empty_cache() if torch.cuda.is_available() and a.mode != "predict" else None
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
