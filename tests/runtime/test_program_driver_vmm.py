"""Virtual memory management in a program built with -lcuda (tests/runtime/programs/driver_vmm.cu):
a reservation of two granules with an allocation mapped into each half, read and written by a kernel
launched through the runtime, against NumPy; the granularity and the codes of misuse are CUDA's
documented ones (cuda-samples' vectorAddMMAP, which waived before, passes)."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

EXPECTED = """supported 1 granularity 2097152
reserve a part of a granule CUDA_ERROR_INVALID_VALUE
aligned 1
map over a mapping CUDA_ERROR_INVALID_VALUE
access 3
retained the output's handle 1
free while mapped CUDA_ERROR_INVALID_VALUE
release twice CUDA_ERROR_INVALID_VALUE
done""".splitlines()


def test_reserved_and_mapped_memory_is_device_memory(built, run, tmp_path):
    x = np.random.default_rng(21).standard_normal(5000).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    result = run(built("driver_vmm", "-lcuda"), "in.bin", "out.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED
    y = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    np.testing.assert_array_equal(y, (2 * x.astype(np.float64) + 1).astype(np.float32))
