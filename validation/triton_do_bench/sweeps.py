"""Configuration sweeps: do_bench's median per configuration and @triton.autotune's pick, as JSON.

The autotuning question of issues 22 and 24: does warpsim order a kernel's configurations as
the H200 does, and does an autotune on predicted time keep the H200's best? The same file runs
on both sides:

    python3 validation/triton_do_bench/sweeps.py > h200_sweeps.json                 # on the H200
    warpsim run python validation/triton_do_bench/sweeps.py > predicted_sweeps.json  # here

SWEEP_MODE=cudagraph times each configuration with do_bench_cudagraph instead (no launch overhead;
warpsim's is the kernel's predicted time from a cold L2), and SWEEP_MODE=once launches each
configuration twice and times nothing, for ncu (`ncu --kernel-name regex:"softmax|matmul"`: the
second launch of each configuration, in the order printed), since do_bench on a GPU whose host
launches slowly times the host for kernels this short.

Sweeps: the fused softmax (do_bench_kernels.py's kernel) at 4096 x 1024 fp32 over num_warps
1..16; the tutorial matmul at 1024^3 fp16 over the eight configurations of Triton's matmul
tutorial for CUDA; the same eight through @triton.autotune (its best_config).
"""
import json
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from do_bench_kernels import DEVICE, matmul_kernel, rel_err, softmax_kernel  # noqa: E402
from do_bench_kernels import matmul as do_bench_matmul  # noqa: E402

MATMUL_CONFIGS = [  # (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)
    (128, 256, 64, 8, 3), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
    (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 2, 5), (32, 64, 32, 2, 5),
]


def softmax(x, warps):
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(rows,)](y, x, x.stride(0), y.stride(0), cols, BLOCK_SIZE=triton.next_power_of_2(cols),
                            num_warps=warps)
    return y


def matmul(a, b, cfg):
    return do_bench_matmul(a, b, *cfg)


autotuned_matmul = triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                           num_warps=w, num_stages=s) for bm, bn, bk, w, s in MATMUL_CONFIGS],
    key=["M", "N", "K"])(matmul_kernel)


MODE = os.environ.get("SWEEP_MODE", "do_bench")


def bench(fn):
    if MODE == "once":
        fn()
        return float("nan")
    if MODE == "cudagraph":
        return triton.testing.do_bench_cudagraph(fn, return_mode="median")
    return triton.testing.do_bench(fn, return_mode="median")


def name_of(cfg):
    bm, bn, bk, w, s = cfg
    return f"{bm}x{bn}x{bk}_w{w}_s{s}"


def main(only=None):
    torch.manual_seed(0)
    out = {"device": str(torch.cuda.get_device_name()) if torch.cuda.is_available() else "warpsim", "mode": MODE,
           "triton": triton.__version__, "torch": torch.__version__, "softmax_4096x1024": {}, "matmul_1024": {}}
    if not only or only == "softmax":
        x = torch.randn(4096, 1024, device=DEVICE)
        ref = torch.softmax(x.double(), -1)
        for warps in (1, 2, 4, 8, 16):
            err = rel_err(softmax(x, warps), ref)
            ms = bench(lambda: softmax(x, warps))
            out["softmax_4096x1024"][f"w{warps}"] = {"median_ms": ms, "rel_err": err}
            print(f"softmax w{warps}: {ms * 1e3:.2f} us, rel err {err:.2e}", file=sys.stderr, flush=True)
    if not only or only == "matmul":
        size = 1024
        a = torch.randn(size, size, device=DEVICE, dtype=torch.float16)
        b = torch.randn(size, size, device=DEVICE, dtype=torch.float16)
        ref = a.double() @ b.double()
        for cfg in MATMUL_CONFIGS:
            err = rel_err(matmul(a, b, cfg), ref)
            ms = bench(lambda: matmul(a, b, cfg))
            out["matmul_1024"][name_of(cfg)] = {"median_ms": ms, "rel_err": err}
            print(f"matmul {name_of(cfg)}: {ms * 1e3:.2f} us, rel err {err:.2e}", file=sys.stderr, flush=True)
        if MODE == "once":
            print(json.dumps(out, indent=1))
            return
        c = torch.empty((size, size), device=DEVICE, dtype=torch.float16)
        grid = lambda meta: (triton.cdiv(size, meta["BLOCK_SIZE_M"]) * triton.cdiv(size, meta["BLOCK_SIZE_N"]),)
        autotuned_matmul[grid](a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c.stride(0), c.stride(1))
        best = autotuned_matmul.best_config
        kw = best.kwargs
        out["matmul_1024_autotune"] = {
            "best": name_of((kw["BLOCK_SIZE_M"], kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"], best.num_warps,
                             best.num_stages)),
            "rel_err": rel_err(c, ref)}
        print(f"autotune picked {out['matmul_1024_autotune']['best']}", file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
