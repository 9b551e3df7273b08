"""How the H200's tensor cores round: tl.dot's f32 results on f16, bf16 and e4m3 inputs, recorded.

Run on a GPU (PyTorch and Triton there; nothing of warpsim):

    python validation/hopper/tensor_core_rounding.py OUT.npz            # every set, as recorded
    python validation/hopper/tensor_core_rounding.py OUT.npz --compact  # the sets the tests read

One 64 x 64 tile, K = 64 or 512, accumulated over K in steps of 16 (32 for e4m3): one wgmma
per step on sm_90. Inputs: uniform [0, 1), standard normal, and normal times 2^-6..2^6 ("wide",
so the products' exponents spread). The same script runs under `warpsim run`, so the two
results can be compared bit for bit. --compact keeps the f16/bf16 sets with inputs as their
16-bit patterns, the form h200_tensor_core_rounding.npz has (what
semantics.wgmma.aligned_sum was fitted to; e4m3 follows another rule and is left out).
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
COMPACT_SETS = ["f16_uniform_64", "f16_normal_64", "f16_wide_64", "bf16_uniform_64", "bf16_normal_64",
                "bf16_wide_64"]


@triton.jit
def dot_kernel(A, B, C, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


def record() -> dict:
    out = {}
    rng = np.random.default_rng(1)
    for tname, tt, BK in (("f16", torch.float16, 16), ("bf16", torch.bfloat16, 16), ("e4m3", torch.float8_e4m3fn, 32)):
        for dist in ("uniform", "normal", "wide"):
            for K in (64, 512):
                M, N = 64, 64
                if dist == "uniform":
                    a = rng.random((M, K)); b = rng.random((K, N))
                elif dist == "normal":
                    a = rng.standard_normal((M, K)); b = rng.standard_normal((K, N))
                else:
                    a = rng.standard_normal((M, K)) * 2.0 ** rng.integers(-6, 7, (M, K))
                    b = rng.standard_normal((K, N)) * 2.0 ** rng.integers(-6, 7, (K, N))
                A = torch.from_numpy(a.astype(np.float32)).to(tt)
                B = torch.from_numpy(b.astype(np.float32)).to(tt)
                C = torch.empty((M, N), dtype=torch.float32, device=DEVICE)
                dot_kernel[(1,)](A.to(DEVICE), B.to(DEVICE), C, K, M, N, BK, num_warps=4)
                out[f"{tname}_{dist}_{K}_a"] = A.float().numpy()
                out[f"{tname}_{dist}_{K}_b"] = B.float().numpy()
                out[f"{tname}_{dist}_{K}_c"] = C.cpu().numpy()
                print(tname, dist, K, "done", flush=True)
    return out


def compact(recorded: dict) -> dict:
    """The tests' sets: a and b as 16-bit patterns (bf16: an f32's high half), c as f32."""
    kept = {}
    for name in COMPACT_SETS:
        for part in "ab":
            values = np.asarray(recorded[f"{name}_{part}"], np.float32)
            kept[f"{name}_{part}"] = (values.astype(np.float16).view(np.uint16) if name.startswith("f16")
                                      else (values.view(np.uint32) >> 16).astype(np.uint16))
        kept[f"{name}_c"] = np.asarray(recorded[f"{name}_c"], np.float32)
    return kept


if __name__ == "__main__":
    recorded = record()
    np.savez_compressed(sys.argv[1], **(compact(recorded) if "--compact" in sys.argv else recorded))
