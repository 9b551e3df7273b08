"""Tensor descriptors under the backend: host-side (TensorDescriptor arguments) and made in the kernel.

Both kernels scale a 2D tile by a bf16 scalar; the tensor's shape is not a
multiple of the block, so the edge boxes are clipped (loads fill zeros, stores
drop what falls outside). At sm_90 Triton lowers both to TMA; at sm_80 it
passes the host-side descriptor decomposed and lowers the kernel's own with
plain loads and stores.

Usage: descriptors.py M N ALPHA OUT.npz
"""
import sys
from typing import Optional

import numpy as np
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scale_host_desc_kernel(in_desc, out_desc, alpha: tl.bfloat16, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    tile = in_desc.load([m, n])
    out_desc.store([m, n], tile * alpha.to(tl.float32))


@triton.jit
def scale_device_desc_kernel(x_ptr, out_ptr, M, N, alpha: tl.bfloat16, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    out_desc.store([m, n], x_desc.load([m, n]) * alpha.to(tl.float32))


def alloc_fn(size: int, alignment: int, stream: Optional[int]):
    return torch.empty(size, device=DEVICE, dtype=torch.int8)


M, N, alpha = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
BLOCK_M, BLOCK_N = 32, 32
x = torch.rand((M, N), device=DEVICE)
host_out, device_out = torch.full_like(x, -1.0), torch.full_like(x, -1.0)
grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
host = scale_host_desc_kernel[grid](TensorDescriptor.from_tensor(x, [BLOCK_M, BLOCK_N]),
                                    TensorDescriptor.from_tensor(host_out, [BLOCK_M, BLOCK_N]), alpha,
                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
triton.set_allocator(alloc_fn)
device = scale_device_desc_kernel[grid](x, device_out, M, N, alpha, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
target = triton.runtime.driver.active.get_current_target()
np.savez(sys.argv[4], x=x.numpy(), host_out=host_out.numpy(), device_out=device_out.numpy(),
         host_ptx=np.array(host.asm["ptx"]), device_ptx=np.array(device.asm["ptx"]),
         backend=np.array(target.backend), arch=np.array(target.arch),
         capability=np.array(torch.cuda.get_device_capability()))
