"""The third timing-validation set: Triton launches grouped into configuration sweeps.

Each sweep is one problem at one size (every launch of it computes the same result) over tile
shapes, warps and stages: the autotuning question is whether warpsim orders a sweep's
configurations as the H200 does. `LAUNCHES` lists them; `Launch.setup(device)` makes fresh random
inputs (seeded by the label), returns the launch and a check against torch. Sizes are chosen so
that every launch runs at least about 10 us on the H200.

The split into a development and a held-out half is split3.json (made by split3.py before any
prediction was looked at); `half_of(label)` reads it.
"""
from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Launch:
    label: str
    sweep: str
    kernel: str                       # the @triton.jit function's name in kernels3.py
    config: dict                      # constexprs and num_warps / num_stages
    problem: dict = field(default_factory=dict)

    @property
    def num_warps(self) -> int:
        return self.config["num_warps"]

    @property
    def num_stages(self) -> int:
        return self.config["num_stages"]


MATMUL_SWEEPS = {   # sweep: (kernel, dtype, M, N, K, [(BM, BN, BK, warps, stages)])
    "mm_f16_2048": ("s3_matmul", "f16", 2048, 2048, 2048, [
        (128, 256, 64, 8, 3), (128, 128, 64, 4, 3), (128, 128, 64, 8, 4), (128, 64, 64, 4, 4),
        (64, 128, 64, 4, 4), (128, 128, 32, 4, 4), (64, 64, 64, 4, 4), (64, 64, 32, 2, 5)]),
    "mm_bf16_4096x4096x1024": ("s3_matmul", "bf16", 4096, 4096, 1024, [
        (128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (128, 128, 64, 4, 3), (128, 128, 64, 8, 3),
        (64, 256, 64, 4, 4), (128, 64, 64, 4, 5)]),
    "mm_f8_4096x4096x2048": ("s3_matmul", "f8e4m3", 4096, 4096, 2048, [
        (128, 256, 128, 8, 3), (128, 128, 128, 4, 3), (128, 128, 128, 8, 4), (64, 128, 128, 4, 4),
        (128, 64, 128, 4, 4), (128, 256, 64, 8, 4)]),
    "mm_persistent_f16_2048": ("s3_matmul_persistent", "f16", 2048, 2048, 2048, [
        (128, 128, 64, 4, 3), (128, 256, 64, 8, 3), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4)]),
    "mm_tma_f16_2048": ("s3_matmul_tma", "f16", 2048, 2048, 2048, [
        (128, 128, 64, 4, 3), (128, 256, 64, 8, 3), (128, 128, 64, 8, 4), (64, 128, 64, 4, 4),
        (128, 64, 64, 4, 4)]),
}

ATTENTION_SWEEPS = {   # sweep: (heads, n_ctx, D, [(BM, BN, warps, stages)])
    "attn_d64_16x2048": (16, 2048, 64, [(128, 64, 4, 3), (128, 128, 8, 3), (64, 64, 4, 3), (128, 32, 4, 2)]),
    "attn_d128_16x2048": (16, 2048, 128, [(128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3), (64, 32, 4, 2)]),
}

ROW_SWEEPS = {   # sweep: (kernel, rows, cols, dtype, warps)
    "softmax_8192x2048_f32": ("s3_softmax", 8192, 2048, "f32", (1, 2, 4, 8, 16)),
    "layernorm_16384x2048_f16": ("s3_layernorm", 16384, 2048, "f16", (1, 2, 4, 8, 16)),
}


def _launches() -> list:
    out = []
    for sweep, (kernel, dtype, m, n, k, cfgs) in MATMUL_SWEEPS.items():
        for bm, bn, bk, w, s in cfgs:
            prefix = {"s3_matmul": "mm", "s3_matmul_persistent": "mmp", "s3_matmul_tma": "mmtma"}[kernel]
            out.append(Launch(f"{prefix}_{dtype}_{bm}x{bn}x{bk}_w{w}_s{s}", sweep, kernel,
                              {"BM": bm, "BN": bn, "BK": bk, "GROUP": 8, "num_warps": w, "num_stages": s},
                              {"dtype": dtype, "M": m, "N": n, "K": k}))
    for sweep, (heads, n_ctx, d, cfgs) in ATTENTION_SWEEPS.items():
        for bm, bn, w, s in cfgs:
            out.append(Launch(f"attn_d{d}_{bm}x{bn}_w{w}_s{s}", sweep, "s3_attention",
                              {"D": d, "BM": bm, "BN": bn, "num_warps": w, "num_stages": s},
                              {"heads": heads, "n_ctx": n_ctx}))
    for sweep, (kernel, rows, cols, dtype, warps) in ROW_SWEEPS.items():
        for w in warps:
            out.append(Launch(f"{kernel[3:]}_{dtype}_w{w}", sweep, kernel,
                              {"BLOCK": 1 << (cols - 1).bit_length(), "num_warps": w, "num_stages": 1},
                              {"rows": rows, "cols": cols, "dtype": dtype}))
    return out


LAUNCHES = _launches()


def sweeps() -> dict:
    by = {}
    for launch in LAUNCHES:
        by.setdefault(launch.sweep, []).append(launch)
    return by


def half_of(label: str) -> str:
    """'dev' or 'held-out', as split3.json fixed it."""
    with open(os.path.join(HERE, "split3.json")) as fh:
        return json.load(fh)["half"][label]


def seed_of(label: str) -> int:
    return zlib.crc32(label.encode()) & 0x7FFFFFFF


# ------------------------------------------------------------------ inputs, launch, check
def _torch_dtype(torch, name):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
            "f8e4m3": torch.float8_e4m3fn}[name]


def rel_err(out, ref) -> float:
    import torch
    out = out.double().cpu()
    ref = ref.double().cpu()
    if not torch.isfinite(out).all():
        return float("inf")
    return float(torch.linalg.vector_norm(out - ref) / torch.linalg.vector_norm(ref))


@dataclass
class Prepared:
    """One launch ready to go: run() launches it; check() is the relative error against torch."""
    run: object
    check: object
    tolerance: float
    grid: tuple
    args: tuple          # the kernel's positional arguments (tensors and scalars), constexprs apart
    constexprs: dict


def setup(launch: Launch, device, scale: float = 1.0, heads: int | None = None) -> Prepared:
    """Fresh random inputs for `launch` (seeded by its label), the output poisoned with NaN.
    `scale` shrinks the problem for a functional check on warpsim only (never for a timed launch);
    `heads` sets an attention launch's heads, so its grid (n_ctx / BM programs a head) fills fewer SMs
    while every program keeps its whole loop over the keys."""
    import torch
    import triton

    import kernels3
    gen = torch.Generator().manual_seed(seed_of(launch.label))
    kern = getattr(kernels3, launch.kernel)
    cfg = dict(launch.config)
    p = launch.problem

    def rand(*shape, dtype=torch.float32, spread=1.0):
        return (torch.randn(*shape, generator=gen) * spread).to(dtype).to(device)

    def ready(grid, args, check, tol):
        def run():
            return kern[grid](*args, **cfg)
        return Prepared(run, check, tol, grid, tuple(args), cfg)

    if launch.kernel.startswith("s3_matmul"):
        m, n, k = (max(int(p[x] * scale) // 256 * 256, 256) for x in ("M", "N", "K"))
        dt = _torch_dtype(torch, p["dtype"])
        out_dt = torch.float16 if p["dtype"] == "f8e4m3" else dt
        a = rand(m, k, dtype=dt)
        if p["dtype"] == "f8e4m3":     # wgmma reads fp8 B K-major: B is the transpose of an (N, K) matrix
            b = rand(n, k, dtype=dt).T
        else:
            b = rand(k, n, dtype=dt)
        c = torch.full((m, n), float("nan"), dtype=out_dt, device=device)
        tiles = triton.cdiv(m, cfg["BM"]) * triton.cdiv(n, cfg["BN"])
        strides = (a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))

        def check():
            return rel_err(c, a.float() @ b.float())
        tol = 2e-2 if p["dtype"] == "f8e4m3" else 1e-2
        if launch.kernel == "s3_matmul_tma":
            return ready((tiles,), (a, b, c, m, n, k), check, tol)
        if launch.kernel == "s3_matmul_persistent":
            cfg["PROGRAMS"] = min(torch.cuda.get_device_properties(0).multi_processor_count, tiles)
            return ready((cfg["PROGRAMS"],), (a, b, c, m, n, k) + strides, check, tol)
        return ready((tiles,), (a, b, c, m, n, k) + strides, check, tol)

    if launch.kernel == "s3_attention":
        heads, n_ctx, d = heads or max(int(p["heads"] * scale), 1), max(int(p["n_ctx"] * scale) // 128 * 128, 128), cfg["D"]
        q, kk, v = (rand(heads, n_ctx, d, dtype=torch.float16) for _ in range(3))
        o = torch.full((heads, n_ctx, d), float("nan"), dtype=torch.float16, device=device)

        def check():
            s = (q.float() @ kk.float().transpose(1, 2)) * d ** -0.5
            return rel_err(o, torch.softmax(s, -1) @ v.float())
        return ready((n_ctx // cfg["BM"], heads), (q, kk, v, o, n_ctx, (d ** -0.5) * 1.4426950408889634), check, 1e-2)

    rows, cols = max(int(p["rows"] * scale), 64), p["cols"]
    dt = _torch_dtype(torch, p["dtype"])
    x = rand(rows, cols, dtype=dt, spread=2.0)
    y = torch.full((rows, cols), float("nan"), dtype=dt, device=device)
    if launch.kernel == "s3_softmax":
        return ready((rows,), (x, y, cols, x.stride(0)), lambda: rel_err(y, torch.softmax(x.double(), -1)), 1e-5)
    w = rand(cols, dtype=dt, spread=0.5) + 1
    bias = rand(cols, dtype=dt, spread=0.5)
    mean = torch.full((rows,), float("nan"), device=device)
    rstd = torch.full((rows,), float("nan"), device=device)

    def check():
        ref = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(), bias.double(), 1e-5)
        return max(rel_err(y, ref), rel_err(mean, x.double().mean(-1)))
    return ready((rows,), (x, w, bias, y, mean, rstd, cols, x.stride(0), 1e-5), check, 1e-2)
