"""Vector addition as Triton's first tutorial writes it: vector_add.py N [N2 ...] OUT.npz

Runs add on N random floats (checked against torch), then do_bench on each size;
saves the inputs and output of the first size and each size's time to OUT.npz.
"""
import sys

import numpy as np
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


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


sizes, out_path = [int(a) for a in sys.argv[1:-1]], sys.argv[-1]
torch.manual_seed(sizes[0])
x = torch.rand(sizes[0], device=DEVICE)
y = torch.rand(sizes[0], device=DEVICE)
output = add(x, y)
print(f"The maximum difference between torch and triton is {torch.max(torch.abs(x + y - output))}")
times = []
for size in sizes:
    a, b = torch.rand(size, device=DEVICE), torch.rand(size, device=DEVICE)
    ms = triton.testing.do_bench(lambda: add(a, b))
    times.append(ms)
    print(f"size {size}: {ms * 1e3:.2f} us, {3 * size * 4 * 1e-9 / (ms * 1e-3):.1f} GB/s")
np.savez(out_path, x=x.numpy(), y=y.numpy(), output=output.numpy(), sizes=sizes, times=times)
