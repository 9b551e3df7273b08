"""A Triton script whose kernel writes torch tensors in place, then reads past one (a memcheck fault).

Usage: in_place.py N OUT.npz
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def axpy_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, 2.0 * tl.load(x_ptr + offsets, mask=mask) + y, mask=mask)


n = int(sys.argv[1])
x = torch.rand(n, device=DEVICE)
y = torch.rand(n, device=DEVICE)
before, address = y.clone(), y.data_ptr()
grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
axpy_kernel[grid](x, y, n, BLOCK_SIZE=256)
assert y.data_ptr() == address
fault = ""
try:
    axpy_kernel[grid](x, y, n + 64, BLOCK_SIZE=256)      # 64 elements past the end of both storages
except Exception as error:                                 # warpsim's MemoryFault
    fault = str(error).splitlines()[0]
np.savez(sys.argv[2], x=x.numpy(), before=before.numpy(), y=y.numpy(), fault=np.array(fault))
