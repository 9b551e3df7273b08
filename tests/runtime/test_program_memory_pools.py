"""Stream-ordered memory pools, managed-memory hints and peer copies in a whole program
(tests/runtime/programs/memory_pools.cu) against NumPy on random inputs: cudaMallocAsync from the
default pool, cudaMallocFromPoolAsync from a created pool, the device's pool switched with
cudaDeviceSetMemPool, cudaMemcpyPeer on device 0 (a host pointer refused), and cudaMemPrefetchAsync / cudaMemAdvise /
cudaStreamAttachMemAsync around a kernel on managed memory; the pool attributes and the codes of
refused calls."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs


@pytest.fixture(scope="module")
def pools(built, cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("memory_pools")
    rng = np.random.default_rng(17)
    x = rng.standard_normal(1000 + int(rng.integers(0, 100)), dtype=np.float32)
    x.tofile(folder / "x.bin")
    result = cli("run", built("memory_pools"), "x.bin", "out.bin", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not supported" not in result.stderr, result.stderr
    out = np.fromfile(folder / "out.bin", dtype=np.float32).reshape(4, len(x))
    return x, out, result.stdout


def test_pool_allocations_and_managed_prefetch_give_numpy_results(pools):
    x, out, _ = pools
    affine = (3.0 * x.astype(np.float64) + 1.0).astype(np.float32)     # nvcc contracts 3x + 1 to one fma
    for row in out[:3]:                      # default pool, created pool, the device's pool set to it
        np.testing.assert_array_equal(row, affine)
    np.testing.assert_array_equal(out[3], x * x)


def test_pool_attributes_follow_allocations(pools):
    x, _, stdout = pools
    values = dict(line.rsplit(" ", 1) for line in stdout.splitlines() if line[-1].isdigit())
    nbytes = 4 * len(x)
    assert values["pools supported"] == "1" and values["default is current"] == "1"
    assert values["threshold"] == "1"
    assert int(values["used"]) >= 2 * nbytes
    assert int(values["used after free"]) < int(values["used"]) <= int(values["used high"])
    # a synchronous cudaFree of pool memory stays counted and is not reused (an H100, CUDA 13.0)
    assert int(values["mine used"]) >= nbytes and values["mine used after free"] == values["mine used"]
    assert int(values["mine used again"]) >= 2 * nbytes


def test_refused_pool_and_hint_calls_give_cuda_codes(pools):
    stdout = pools[2]
    codes = dict(line.rsplit(" ", 1) for line in stdout.splitlines() if line.rsplit(" ", 1)[-1].startswith("cuda"))
    assert codes == {
        "prefetch of cudaMalloc memory": "cudaErrorInvalidValue",
        "prefetch past the allocation": "cudaErrorInvalidValue",
        "prefetch to device 1": "cudaErrorInvalidDevice",
        "advice 99": "cudaErrorInvalidValue",
        "peer copy to host memory": "cudaErrorInvalidValue",
        "peer access to device 1": "cudaErrorInvalidDevice",
        "pool of device 1": "cudaErrorInvalidDevice",
        "destroy the default pool": "cudaErrorInvalidValue",
        "set used now": "cudaErrorInvalidValue",
        "pool on device 3": "cudaErrorInvalidValue",
    }
