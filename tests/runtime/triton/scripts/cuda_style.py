"""A Triton script written the common way for a GPU: cuda_style.py N OUT.npz

Tensors made with device="cuda", .cuda() and .to("cuda"), is_cuda asserted,
torch.cuda gating, seeding, synchronize, events and memory statistics; an axpy
kernel checked against torch. Saves its inputs and outputs to OUT.npz.
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

if not torch.cuda.is_available():
    sys.exit("this script needs a CUDA GPU")
torch.cuda.set_device(0)
torch.cuda.manual_seed(0)
print(f"running on {torch.cuda.get_device_name(0)}, {torch.cuda.device_count()} device(s)")


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


def axpy(alpha, x, y, out):
    assert x.is_cuda and y.is_cuda and out.is_cuda
    n = out.numel()
    axpy_kernel[(triton.cdiv(n, 1024),)](x, y, out, alpha, n, BLOCK_SIZE=1024)
    return out


n, out_path = int(sys.argv[1]), sys.argv[2]
x = torch.randn(n, device="cuda")
y = torch.randn(n).cuda()
host = torch.randn(n)
moved = host.to("cuda")                     # a copy, as a move from host memory is on a GPU
out = torch.empty(n, device=torch.device("cuda:0"))
torch.cuda.synchronize()

axpy(2.5, x, y, out)
torch.testing.assert_close(out, 2.5 * x + y)
axpy(-1.0, x, y, moved)                     # writes the moved copy, not `host`
assert not torch.equal(moved, host)

start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(3):
    axpy(2.5, x, y, out)
end.record()
torch.cuda.synchronize()
event_ms = start.elapsed_time(end) / 3
bench_ms = triton.testing.do_bench(lambda: axpy(2.5, x, y, out))
print(f"axpy of {n}: {event_ms * 1e3:.2f} us per launch between events, {bench_ms * 1e3:.2f} us by do_bench")

torch.cuda.reset_peak_memory_stats()
before = torch.cuda.memory_allocated()
scratch = torch.empty(1 << 20, dtype=torch.float32, device="cuda")
peak = torch.cuda.max_memory_allocated()
del scratch
after = torch.cuda.memory_allocated()
torch.cuda.empty_cache()

np.savez(out_path, x=x.cpu().numpy(), y=y.cpu().numpy(), out=out.cpu().numpy(), host=host.numpy(),
         moved=moved.cpu().numpy(), event_ms=event_ms, bench_ms=bench_ms, memory=[before, peak, after])
