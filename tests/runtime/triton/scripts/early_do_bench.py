"""do_bench imported by name at the top, before Triton makes its driver, then a GPU graph's timing;
the host code beside it asks torch about the GPU and sets a stream, as tutorials 02 and 08 do.

Usage: early_do_bench.py OUT.npz
"""
import sys

from triton.testing import do_bench, do_bench_cudagraph
import numpy as np
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


stream = getattr(torch, DEVICE.type).Stream()
getattr(torch, DEVICE.type).set_stream(stream)
properties = torch.cuda.get_device_properties("cuda")
n = 4096
x, y = torch.rand(n, device=DEVICE), torch.rand(n, device=DEVICE)
out = torch.empty_like(x)
launch = lambda: add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
np.savez(sys.argv[1], events=do_bench(launch), graph=do_bench_cudagraph(launch),
         module=np.array(do_bench.__module__), graph_module=np.array(do_bench_cudagraph.__module__),
         sms=properties.multi_processor_count, capability=np.array(torch.cuda.get_device_capability()),
         cuda_available=torch.cuda.is_available())
