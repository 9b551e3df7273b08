"""Queries of what a program made (tests/runtime/programs/runtime_queries.cu): a kernel's function
handle and parameter layout (cudaGetFuncBySymbol, cudaFuncGetParamCount/Info), pinned memory's flags
(cudaHostGetFlags), managed ranges after advice and prefetches (cudaMemRangeGetAttribute[s]: read mostly,
preferred and last prefetch locations over whole and half ranges, accessed-by lists) with a kernel run
on that memory against NumPy, a location's pools (cudaMem{Get,Set}MemPool, cudaMemGetDefaultMemPool)
and their access (cudaMemPool{Set,Get}Access), texture and surface objects' descriptions, the 1D linear
texture width and peer attributes of the one device; and the codes of bad calls."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

EXPECTED = """function of a host function cudaErrorInvalidDeviceFunction
saxpy: function 1, 4 parameters: 0+8 8+8 16+4 20+4
parameter past the last cudaErrorInvalidValue
parameters of a host function cudaErrorInvalidDeviceFunction
pinned flags 2, write-combined flags 6
flags of pageable memory cudaErrorInvalidValue
read mostly 1, preferred: whole -2 first half 0 second half -1, type 1 id 0
last prefetch: first half 0 whole -2, never prefetched type 0
accessed by 0 -2 -2
after unset: second half read mostly 1 preferred -1, accessed by -2
read mostly into 8 bytes cudaErrorInvalidValue
range of device memory cudaErrorInvalidValue
pools: default same 1, set and got 1, device's 1
pool of device 1 cudaErrorInvalidDevice
host pool cudaErrorNotSupported
invalid allocation type cudaErrorInvalidValue
host access 3, device access 3
owner read only cudaErrorInvalidValue
access of device 1 cudaErrorInvalidDevice
texture: linear 1 pointer 1 bytes 1 float 1, clamp 1 point 1
resource view of a texture without one cudaErrorInvalidValue
surface: array 1
texture description of a surface cudaErrorInvalidValue
destroyed texture cudaErrorInvalidValue
1D linear texture width 268435456
1D linear width of no format cudaErrorInvalidChannelDescriptor
p2p of device 0 and itself cudaErrorInvalidDevice
p2p of device 0 and 1 cudaErrorInvalidDevice
runtime queries done""".splitlines()


def test_runtime_queries(built, run, tmp_path):
    x = np.random.default_rng(5).standard_normal(1000).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    result = run(built("runtime_queries", "-arch=sm_90"), "in.bin", "out.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "host and managed memory pools are not simulated" in result.stderr
    y = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    np.testing.assert_array_equal(y, (np.float32(2.5) * x).astype(np.float32) + np.float32(1))
