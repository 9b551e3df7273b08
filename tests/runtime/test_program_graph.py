"""Stream capture into a CUDA graph in a whole program (tests/runtime/programs/graph.cu): the captured
memset, kernels (with their arguments as at capture), copy and host function run only when the graph
is launched, twice, as NumPy computes; the codes of what capture refuses. The expected lines are what
the program printed on an H200 (CUDA 13.0 driver and toolkit), byte for byte."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

H200_LINES = """before 0
capturing 1
captured ran -1 calls 0
nodes 5
launch 0 x[5] 8.25 calls 1
launch 1 x[5] 8.25 calls 2
begin twice cudaErrorIllegalState
sync while capturing cudaErrorStreamCaptureUnsupported
after sync 2
end invalidated cudaErrorStreamCaptureInvalidated
broken null 1
end not capturing cudaErrorIllegalState
capture legacy stream cudaErrorStreamCaptureUnsupported
launch empty cudaSuccess
sync cudaSuccess
graph done""".splitlines()


def test_a_captured_graph_runs_when_launched_as_on_the_h200(built, run, tmp_path):
    result = run(built("graph", "-arch=sm_90"), "out.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == H200_LINES
    i = np.arange(1000, dtype=np.float32)
    once = ((np.float32(0) * np.float32(2) + np.float32(1) + i) * np.float32(0.5) + np.float32(0.25) + i)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "out.bin", dtype=np.float32), np.concatenate([once, once]))
