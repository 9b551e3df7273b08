"""The CUDA driver API in a whole program built with -lcuda (tests/runtime/programs/driver_api.cu): warpsim's
libcuda.so.1 links and runs it. A PTX module given as text runs with kernelParams and with `extra`'s
parameter buffer, and a cubin (the SASS executor) and a fatbinary built here from one kernel load from
files; outputs equal NumPy's. Memory, streams and events are the runtime's (a cuMemAlloc pointer read by
cudaMemcpy, a cudaMalloc one by cuMemcpyDtoH, one event read by both APIs); device attributes equal
cudaDeviceGetAttribute's; bad calls get CUDA's codes and leave cudaGetLastError clear. The codes are
what an H100 (CUDA 13.0) printed up to the context stack (validation/programs/README.md): a context of
cuCtxCreate's own that the runtime then works in, a short parameter buffer launched, cuMemFree(0)
succeeding; the lines after it are CUDA's documented behaviour."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

EXPECTED = """before cuInit CUDA_ERROR_NOT_INITIALIZED
device 1 CUDA_ERROR_INVALID_DEVICE
version 13000 devices 1 cc 9.0 name matches 1 memory matches 1
attributes equal 148 of 148
deprecated multi-device attribute CUDA_SUCCESS
create with zeroed parameters CUDA_SUCCESS
one context 0
missing function CUDA_ERROR_NOT_FOUND
function threads 1024 ptx 90
potential block 1024 grid is 2 blocks an SM 2, block of 96 with 48 KB: 4
occupancy of a bogus function CUDA_ERROR_INVALID_HANDLE
short buffer CUDA_SUCCESS
both forms CUDA_ERROR_INVALID_VALUE
elapsed positive 1, the runtime reads the same 1, runtime query cudaSuccess
missing global CUDA_ERROR_NOT_FOUND
launches 4 size 0
memsets 11 beef deadbeef de
misaligned memset CUDA_ERROR_INVALID_VALUE
memory types device 2 host 1 range start matches 1
stack pointer CUDA_ERROR_INVALID_VALUE
memory info total matches 1 free below 1
empty allocation CUDA_ERROR_INVALID_VALUE
free NULL CUDA_SUCCESS
bogus function CUDA_ERROR_INVALID_HANDLE
huge block CUDA_ERROR_INVALID_VALUE
not an image CUDA_ERROR_INVALID_IMAGE
broken PTX CUDA_ERROR_INVALID_PTX
no file CUDA_ERROR_FILE_NOT_FOUND
string of CUDA_ERROR_INVALID_VALUE: invalid argument
name of 12345: CUDA_ERROR_INVALID_VALUE, pointer NULL
runtime last error cudaSuccess
popped the context 1, none current 1
allocation without a context CUDA_ERROR_INVALID_CONTEXT
pop from an empty stack CUDA_ERROR_INVALID_CONTEXT
allocation with it back CUDA_SUCCESS
image .cubin launched
image .fatbin launched
launch after unload CUDA_ERROR_INVALID_HANDLE
driver api done""".splitlines()

KERNEL = """extern "C" __global__ void twice(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
"""


def test_a_program_linked_with_libcuda_runs_its_driver_calls(built, cli, run, tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    for kind in ("cubin", "fatbin"):
        made = cli("nvcc", f"-{kind}", "-arch=sm_90", "k.cu", "-o", f"k.{kind}", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
    x = np.random.default_rng(11).standard_normal(1000).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    result = run(built("driver_api", "-arch=sm_90", "-lcuda"), "in.bin", "out.bin", "k.cubin", "k.fatbin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED
    assert "4:20: expected .param" in result.stderr          # the broken PTX's error, named where it is
    rows = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(5, -1)
    for row, a in zip(rows, (2.5, -0.75, 4.0)):
        np.testing.assert_array_equal(row, np.float32(a) * x + np.float32(1))
    np.testing.assert_array_equal(rows[3], 2 * x)
    np.testing.assert_array_equal(rows[4], 2 * x)
