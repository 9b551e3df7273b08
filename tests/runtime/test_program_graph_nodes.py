"""A CUDA graph built node by node in a whole program (tests/runtime/programs/graph_nodes.cu): a memset,
four kernels in a diamond, a copy back and a host node; its queries (nodes, roots, edges, dependencies,
types, a kernel node's parameters), the codes of edges CUDA refuses, four launches (changed kernel
parameters in the executable graph, an update from a graph of the same shape, a child graph between
event wait and record nodes) whose
outputs equal NumPy's, an update refused for another shape, a clone left whole when a node of the
original is destroyed; a capture that forks into a second stream and joins it back through events
(its diamond's output too), one ended from the forked stream, one never joined; a capture that
allocates and frees memory of its own (cudaMallocAsync, cudaFreeAsync), launched twice; a graph
launched into a capturing stream, which becomes a node of the capture; an external event record
captured as a node."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

EXPECTED = """nodes 7 roots 1 edges 7
listed 7 first is memset 1 last is host 1 padded 1
join waits for 2, axpy feeds 2
types 0 2 1 3
left grid 8 block 128 func 1
edge twice cudaErrorInvalidValue
remove missing cudaErrorInvalidValue
instantiated ran -7 calls 0
launch 0 calls 1
launch 1 calls 2
exec set params cudaSuccess
graph keeps a 2
update same shape cudaSuccess
result 0
update other shape cudaErrorGraphExecUpdateFailure
result 2
child type 4 calls 5
event nodes 6 7, elapsed positive 1
after destroying a node 6, its clone 7
forked stream capturing 1
fork and join: nodes 5 roots 1 edges 5, second stream capturing 0
captured sum: grid 4 block 256 n 1000
end from the forked stream cudaErrorStreamCaptureUnmatched
end unjoined cudaErrorStreamCaptureInvalidated
after unjoined end: second stream capturing 0
graph-owned memory: nodes 5 types 10 11
graph launched while capturing cudaErrorStreamCaptureUnsupported
end after it cudaErrorStreamCaptureInvalidated
no graph 1, ran 0
external record captured: nodes 2 type 7
cudaFree of memory its graph's free node freed cudaErrorInvalidValue
freed outside its graph and relaunched twice: matches 1
graph memory in use covers both graphs' 1, high reset to it 1
memory nodes by hand: address 1 size 1 freed names it 1 result matches 1
free node of a pointer no node allocated cudaErrorInvalidValue
alloc node on the host cudaErrorNotSupported
graph nodes done""".splitlines()


def _expected(x: np.ndarray, a: float) -> np.ndarray:
    f = np.float32
    y = f(1.5) + f(a) * x
    return (y * f(3) + f(0)) + (y * f(1) + f(-1))


def test_a_graph_built_node_by_node_runs_its_diamond_in_order(built, run, tmp_path):
    x = np.random.default_rng(7).standard_normal(1000).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    result = run(built("graph_nodes", "-arch=sm_90"), "in.bin", "out.bin", "graph.dot")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED
    out = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(6, -1)
    for row, a in zip(out, (2.0, 4.0, 3.0, 2.0)):
        np.testing.assert_array_equal(row, _expected(x, a))
    np.testing.assert_array_equal(out[4], x * np.float32(2) + (x + np.float32(1)))
    np.testing.assert_array_equal(out[5], x * np.float32(2) + x)
    dot = (tmp_path / "graph.dot").read_text()
    assert dot.startswith("digraph") and dot.count("->") == 7 and "axpy" in dot
