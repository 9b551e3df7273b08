"""Graph node parameters read and changed after the nodes are made, in a whole program
(tests/runtime/programs/graph_params.cu): the generic cudaGraphNodeParams forms read back and set (a
wrong type, a reserved word refused), copies to and from a __device__ symbol and their refused
directions, 3D copy parameters read, changed and set, event nodes' events, a child graph of the same
shape taken by an executable graph and one of another refused, a kernel node disabled (it runs as an
empty node) and enabled, graph, executable graph and node ids, clones, cudaGraphInstantiateWithParams
(flags kept less Upload, a cycle's result and node), kernel node attributes (a cluster shape that
takes effect, copied to another node; an attribute of launches refused), and user objects whose
destructors run when the last reference goes: the caller's, a graph's, a clone's, an executable
graph's, a child graph node's. The copied rows equal NumPy's."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

EXPECTED = """to symbol device-to-host cudaErrorInvalidMemcpyDirection
from symbol past its end cudaErrorInvalidValue
generic kernel: type 0 func 1 grid 8 block 128
generic copy: type 1 width 4000 kind 2 dst 1
symbol copy: to its address 1, 4 bytes
generic record: type 7 event 1
kernel params on a copy node cudaErrorInvalidValue
reserved word set cudaErrorInvalidValue
instantiated: result 0 error node 0 flags 8
symbol read back 0.25
exec symbol params on a kernel node cudaErrorInvalidValue
disabled kernel enabled 0
disable an event node cudaErrorInvalidValue
enabled again 1
record node event first 1
record node event second 1
wait event of a record node cudaErrorInvalidValue
exec record event of a copy node cudaErrorInvalidValue
wait node event second 1
ids: graph 1 exec differs 1, local 0 4, tools differ 1
clone: twin differs 1 type 0 in the clone 1
find in a graph not cloned cudaErrorInvalidValue
instantiate a cycle cudaErrorInvalidValue
cycle: result 2 error node in it 1
generic child: type 4 graph 1
child graph of another shape cudaErrorInvalidValue
cluster attribute copied: 4 1 1
priority attribute 3
programmatic event on a node cudaErrorInvalidValue
attribute of a copy node cudaErrorInvalidValue
cluster ranks: 40 41 42 43 40 41 42 43
user object without the flag cudaErrorInvalidValue
graph destroyed, its executable graph holds: destroyed 0
executable graph destroyed: destroyed 1
retain zero cudaErrorInvalidValue
release more than the graph owns cudaErrorInvalidValue
caller's references gone, graph holds: destroyed 1
graph and clone destroyed, a child graph node's copy holds: destroyed 1
child graph node destroyed: destroyed 11
graph params done""".splitlines()


def _affine(x: np.ndarray, s: float, c: float) -> np.ndarray:
    return (x * np.float32(s)).astype(np.float32) + np.float32(c)


def test_graph_node_parameters_read_and_changed(built, run, tmp_path):
    x = np.random.default_rng(11).standard_normal(1000).astype(np.float32)
    x.tofile(tmp_path / "in.bin")
    result = run(built("graph_params", "-arch=sm_90"), "in.bin", "out.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    rows = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(6, -1)
    np.testing.assert_array_equal(rows[0], _affine(x, -2.0, 0.25))     # kernel node set before instantiation
    np.testing.assert_array_equal(rows[1], _affine(x, 0.5, -1.5))      # kernel and symbol changed in the exec
    np.testing.assert_array_equal(rows[2], np.zeros_like(x))           # the kernel disabled
    np.testing.assert_array_equal(rows[3], _affine(x, -2.0, 0.25))     # the graph's copy node redirected
    np.testing.assert_array_equal(rows[4], _affine(x, 0.5, -1.5))      # the first exec unchanged by that
    np.testing.assert_array_equal(rows[5], np.full_like(x, 9.0))       # the child graph swapped in the exec
