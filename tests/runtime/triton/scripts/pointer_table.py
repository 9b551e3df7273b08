"""Pointers read from memory: a kernel scales several tensors it finds through a table of data_ptr()s,
as Triton's grouped GEMM tutorial does, then reads through the address of a tensor that was freed.

Usage: pointer_table.py OUT.npz
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scale_each_kernel(in_ptrs, out_ptrs, sizes, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    n = tl.load(sizes + g)
    src = tl.load(in_ptrs + g).to(tl.pointer_type(tl.float32))
    dst = tl.load(out_ptrs + g).to(tl.pointer_type(tl.float32))
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst + offsets, tl.load(src + offsets, mask=mask) * (g + 1).to(tl.float32), mask=mask)


xs = [torch.rand(n, device=DEVICE) for n in (100, 37, 256)]
outs = [torch.zeros_like(x) for x in xs]
table = lambda tensors: torch.tensor([t.data_ptr() for t in tensors], device=DEVICE)
sizes = torch.tensor([x.numel() for x in xs], dtype=torch.int32, device=DEVICE)
scale_each_kernel[(3,)](table(xs), table(outs), sizes, BLOCK=256)

stale = table([torch.rand(256, device=DEVICE) for _ in range(3)])   # their tensors are freed at once
fault = ""
try:
    scale_each_kernel[(3,)](stale, table(outs), sizes, BLOCK=256)
except Exception as error:                                           # warpsim's MemoryFault
    fault = str(error).splitlines()[0]
saved = {f"x{i}": x.numpy() for i, x in enumerate(xs)}
saved.update({f"out{i}": out.numpy() for i, out in enumerate(outs)})
np.savez(sys.argv[1], fault=np.array(fault), **saved)
