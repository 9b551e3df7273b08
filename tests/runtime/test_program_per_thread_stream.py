"""A program built with `--default-stream per-thread` (tests/runtime/programs/per_thread_stream.cu):
it links against the _ptds/_ptsz names of the runtime calls (cudaMemcpy_ptds,
cudaMemcpyAsync_ptsz, ...), which libcudart exports, and its NULL stream is the thread's own
default stream: kernels on it match NumPy, and it captures into a graph as a created stream does."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs


@pytest.fixture(scope="module")
def per_thread(built, cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("per_thread_stream")
    rng = np.random.default_rng(41)
    x = rng.standard_normal(900 + int(rng.integers(0, 200)), dtype=np.float32)
    x.tofile(folder / "x.bin")
    program = built("per_thread_stream", "--default-stream", "per-thread")
    result = cli("run", program, "x.bin", "y.bin", "z.bin", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not supported" not in result.stderr, result.stderr
    y = np.fromfile(folder / "y.bin", dtype=np.float32)
    z = np.fromfile(folder / "z.bin", dtype=np.float32)
    return x, y, z, result.stdout


def test_kernels_on_the_per_thread_stream_match_numpy(per_thread):
    x, y, z, _ = per_thread
    expected_y = (np.float32(1.5) * x.astype(np.float64) - 0.25).astype(np.float32)   # one fma
    np.testing.assert_array_equal(y, expected_y)
    np.testing.assert_array_equal(z, y * y)


def test_the_null_stream_is_the_threads_own(per_thread):
    lines = set(per_thread[3].splitlines())
    assert {"elapsed positive 1", "query cudaSuccess", "capturing 1", "graph nodes 2", "done"} <= lines
