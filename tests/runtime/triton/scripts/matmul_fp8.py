"""An fp8 matmul as Triton's matmul tutorial runs it on Hopper: fp8 A (M x K) times fp8 B given
transposed (K-major), fp32 accumulators, fp16 out; at sm_90 Triton emits wgmma with .e4m3/.e5m2 inputs.

Usage: matmul_fp8.py M N K FORMAT OUT.npz        (FORMAT: e5m2 or e4m3)
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_m[:, None] % M) * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + (offs_n[None, :] % N) * stride_bn
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, accumulator.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


M, N, K = (int(v) for v in sys.argv[1:4])
fp8 = {"e5m2": torch.float8_e5m2, "e4m3": torch.float8_e4m3fn}[sys.argv[4]]
torch.manual_seed(0)
a = torch.randn((M, K), device=DEVICE, dtype=torch.float16).to(fp8)
b = torch.randn((N, K), device=DEVICE, dtype=torch.float16).to(fp8).T          # K-major, as the tutorial's b.T
c = torch.empty((M, N), device=DEVICE, dtype=torch.float16)
grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
compiled = matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)
np.savez(sys.argv[5], a=a.to(torch.float32).numpy(), b=b.to(torch.float32).numpy(),
         c=c.to(torch.float32).numpy(), ptx=np.array(compiled.asm["ptx"]))
