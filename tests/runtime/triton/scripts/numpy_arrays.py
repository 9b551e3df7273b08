"""NumPy arrays as Triton kernel arguments under the backend: written in place, views included.

Usage: numpy_arrays.py N OUT.npz
"""
import sys

import numpy as np
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, a, n, stride, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * stride, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, a * x + y, mask=mask)


n = int(sys.argv[1])
rng = np.random.default_rng(7)
x = rng.random(2 * n, dtype=np.float32)
y = rng.random(n + 10, dtype=np.float32)
before, address = y.copy(), y.ctypes.data
grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
axpy_kernel[grid](x, y[5:], 2.0, n, 2, BLOCK_SIZE=128)        # a strided read, a view written in place
fault = ""
try:
    axpy_kernel[grid](x, y, 2.0, n + 64, 1, BLOCK_SIZE=128)   # past the end of y's buffer
except Exception as error:                                     # warpsim's MemoryFault
    fault = str(error).splitlines()[0]
np.savez(sys.argv[2], x=x, before=before, y=y, moved=np.array(y.ctypes.data != address), fault=np.array(fault))
