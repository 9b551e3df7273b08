"""The Triton kernels bench/triton_speed.py times, written as Triton's tutorials write them.

- `add_kernel`: tutorial 01's vector add, BLOCK_SIZE elements a program;
- `softmax_kernel`: tutorial 02's fused row softmax, one program per row, the row in one block;
- `layer_norm_kernel`: tutorial 05's fused layer-norm forward (mean, rstd, then the affine
  map), one program per row, looping over the row BLOCK_SIZE at a time: the demo's
  `layer_norm_fwd_fused` (warpsim/demo/triton_kernels.py);
- `matmul_kernel`: tutorial 03's fp16 matmul (grouped program order, tl.dot into an fp32
  accumulator, fp16 result); at sm_90 Triton emits wgmma.mma_async from swizzled shared
  memory, fed by cp.async with mbarrier-free commit groups and pipelined over num_stages.
- `attention_kernel`: tutorial 06's flash-attention forward without a causal mask: one
  program per BLOCK_M queries of one head, streaming keys and values BLOCK_N at a time
  with the online softmax (running max and sum, exp2 with the scale folded into log2 e).

`matmul_launch` and `attention_launch` give each kernel's grid and launch parameters for
a size, so warpsim and Triton's interpreter launch exactly the same thing.
"""

from __future__ import annotations

import triton
import triton.language as tl

from warpsim.demo.triton_kernels import layer_norm_fwd_fused as layer_norm_kernel  # noqa: F401


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    numerator = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_row_stride + cols, numerator / tl.sum(numerator, axis=0), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def attention_kernel(Q, K, V, Out, stride_h, stride_m, seq_len, qk_scale, HEAD_DIM: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    Q += head * stride_h
    K += head * stride_h
    V += head * stride_h
    Out += head * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + offs_m[:, None] * stride_m + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        k = tl.load(K + (start_n + offs_n)[None, :] * stride_m + offs_d[:, None])
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + (start_n + offs_n)[:, None] * stride_m + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(tl.float16))


def add_launch(n: int) -> tuple:
    """(grid, constexprs and options) for n floats: 1,024 a program, 4 warps (the tutorial's)."""
    return (triton.cdiv(n, 1024),), dict(BLOCK_SIZE=1024, num_warps=4)


def softmax_launch(rows: int, cols: int) -> tuple:
    """One program per row, the row rounded up to a power of two, 8 warps from 2,048 columns."""
    block = triton.next_power_of_2(cols)
    return (rows,), dict(BLOCK_SIZE=block, num_warps=8 if block >= 2048 else 4)


def layer_norm_launch(rows: int, cols: int) -> tuple:
    """One program per row; a block of up to 64 KB, one warp per 256 elements, at most 8 (the tutorial's)."""
    block = min(65536 // 4, triton.next_power_of_2(cols))
    return (rows,), dict(BLOCK_SIZE=block, num_warps=min(max(block // 256, 1), 8))


def matmul_launch(m: int, n: int, k: int) -> tuple:
    """(grid, constexprs and options) for an m x k by k x n product: 128x128x64 tiles, 4 warps, 3 stages."""
    meta = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=4, num_stages=3)
    return (triton.cdiv(m, 128) * triton.cdiv(n, 128),), meta


def attention_launch(heads: int, seq_len: int, head_dim: int) -> tuple:
    """(grid, constexprs and options): 128 queries a program against 64 keys at a time, 4 warps."""
    meta = dict(HEAD_DIM=head_dim, BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3)
    return (triton.cdiv(seq_len, 128), heads), meta
