"""triton.testing.do_bench's median on six tutorial-style kernels, as JSON on stdout.

The same file runs on a GPU (`python3 do_bench_kernels.py`: measured) and under
warpsim (`warpsim run python validation/triton_do_bench/do_bench_kernels.py`:
predicted for the H200). Each kernel is checked against torch first (max
relative error printed beside its time). Sizes are kept small enough for the
simulator: vector add at 2**20 and 2**22 floats, the fused softmax at
(4096, 1024) and (1024, 4096), an fp16 matmul 1024 x 1024 x 1024 at two tile
configurations.
"""
import json
import sys

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8 if BLOCK_SIZE >= 2048 else 4
    y = torch.empty_like(x)
    softmax_kernel[(n_rows, )](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
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
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def matmul(a, b, bm, bn, bk, warps, stages):
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), )
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8,
                        num_warps=warps, num_stages=stages)
    return c


def rel_err(out, ref):
    out, ref = out.double().cpu(), ref.double().cpu()
    return float(torch.linalg.norm(out - ref) / torch.linalg.norm(ref))


def main(only=None):
    torch.manual_seed(0)
    cases = []
    for n in (1 << 20, 1 << 22):
        x, y = torch.rand(n, device=DEVICE), torch.rand(n, device=DEVICE)
        cases.append((f"add_{n}", lambda x=x, y=y: add(x, y), lambda x=x, y=y: x + y, 3 * 4 * n, 0))
    for rows, cols in ((4096, 1024), (1024, 4096)):
        x = torch.randn(rows, cols, device=DEVICE)
        cases.append((f"softmax_{rows}x{cols}", lambda x=x: softmax(x), lambda x=x: torch.softmax(x.double(), -1),
                      2 * 4 * rows * cols, 0))
    size = 1024
    a = torch.randn(size, size, device=DEVICE, dtype=torch.float16)
    b = torch.randn(size, size, device=DEVICE, dtype=torch.float16)
    for bm, bn, bk, warps, stages in ((128, 128, 64, 4, 3), (64, 64, 32, 4, 4)):
        cases.append((f"matmul_{size}_{bm}x{bn}x{bk}_w{warps}_s{stages}",
                      lambda bm=bm, bn=bn, bk=bk, w=warps, s=stages: matmul(a, b, bm, bn, bk, w, s),
                      lambda: a.double() @ b.double(), 3 * 2 * size * size, 2 * size ** 3))
    results = {"device": str(torch.cuda.get_device_name()) if torch.cuda.is_available() else "warpsim",
               "triton": triton.__version__, "torch": torch.__version__, "kernels": {}}
    for name, fn, ref, nbytes, flops in cases:
        if only and only not in name:
            continue
        err = rel_err(fn(), ref())
        ms = triton.testing.do_bench(fn, return_mode="median")
        results["kernels"][name] = {"median_ms": ms, "rel_err": err, "bytes": nbytes, "flops": flops}
        print(f"{name}: {ms * 1e3:.2f} us, rel err {err:.2e}", file=sys.stderr, flush=True)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
