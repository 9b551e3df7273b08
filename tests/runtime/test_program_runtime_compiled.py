"""A program that compiles its kernel at run time (tests/runtime/programs/runtime_compiled.cu): built
with `-lnvrtc` (`warpsim nvcc` links PyPI's libnvrtc.so.13), it finds NVRTC under `warpsim run` (a
compiler: it does no GPU work), compiles the kernel's source with a -D constant, and the PTX it makes
loads and runs through warpsim's driver; cuProfilerStart/Stop (cudaProfiler.h) answer CUDA_SUCCESS.
The output equals NumPy's."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs


def test_a_program_compiling_its_kernel_with_nvrtc_runs_it(built, run, tmp_path):
    x = np.random.default_rng(5).standard_normal(1000).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    result = run(built("runtime_compiled", "-lcuda", "-lnvrtc"), "in.bin", "out.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["compiled NVRTC_SUCCESS", "profiler start 0", "profiler stop 0", "done"]
    assert "not supported" not in result.stderr
    y = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    fused = (1.5 * x.astype(np.float64) + np.arange(len(x))).astype(np.float32)   # NVRTC contracts to an fma
    np.testing.assert_array_equal(y, fused)
