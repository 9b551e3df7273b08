"""Conditional graph nodes in a whole program (tests/runtime/programs/graph_conditional.cu, built with
-rdc=true for cudaGraphSetConditional): a WHILE whose body kernel counts a device counter down N times
(its output equals NumPy's for random inputs), again after a body kernel's parameter was set in the
executable graph and after an update from a graph of the same shape, and an update refused for a
conditional of another type; a WHILE whose handle is 0 at launch; IF without and with ELSE; SWITCH
with in- and out-of-range values; default values applied at every launch or 0; a kernel outside
the graph whose set is an illegal address; a WHILE with an IF nested in its body; a body filled by
cudaStreamBeginCaptureToGraph; a WHILE added by hand to a capture in progress
(cudaStreamGetCaptureInfo, cudaStreamUpdateCaptureDependencies); cudaGraphAddNode of host, empty,
memory allocation and free nodes; and the codes of bad calls."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs


def _expected(n_iterations: int, nested: int, switch: int) -> list[str]:
    return f"""while: type 13 nodes 4 counter 0
exec set body params cudaSuccess
update same shape cudaSuccess
update WHILE to IF cudaErrorGraphExecUpdateFailure
result 6 error node is the conditional 1
clone cudaErrorNotSupported
as a child graph cudaErrorNotSupported
while of 0: body ran 0 times
if, flag 0: marker -1
if, flag 1: marker 7
if/else, flag 0: marker 2
if/else, flag 1: marker 1
switch {switch}: marker {10 + switch}
switch 1: marker 11
switch 3: marker -1
default 1, flags 1: body ran 3 of 3 launches
default 1, flags 0: body ran 0 of 3 launches
nested: {nested} iterations, {nested // 2} odd
captured body: capturing 1, 3 nodes
capture info: status 1, 0 dependencies
after a launch: 1 dependency, edge type 0
capture with a WHILE: same graph 1, 3 nodes, 1 root, {nested} iterations, then bumped 1
add node: host ran 1, allocated 1, free node type 11, marked 9
while of size 2 cudaErrorInvalidValue
if of size 3 cudaErrorInvalidValue
switch of size 0 cudaErrorInvalidValue
type 7 cudaErrorInvalidValue
invalid handle cudaErrorInvalidValue
handle flags 2 cudaErrorInvalidValue
handle of no graph cudaErrorInvalidValue
body's handle in its parent cudaErrorInvalidValue
another graph's handle cudaErrorInvalidValue
host node in a body cudaErrorInvalidValue
semaphore node cudaErrorNotSupported
update deps, not capturing cudaErrorIllegalState
set outside the graph cudaErrorIllegalAddress
graph conditional done""".splitlines()


def _loop(x: np.ndarray, scale: float, n_iterations: int) -> np.ndarray:
    y = np.zeros_like(x)
    for _ in range(n_iterations):
        y = y * np.float32(scale) + x
    return y


def test_conditional_nodes_run_their_bodies_as_their_handles_say(built, run, tmp_path):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(200 + int(rng.integers(0, 300))).astype(np.float32)
    n_iterations, nested, switch = int(rng.integers(2, 9)), int(rng.integers(3, 10)), int(rng.integers(0, 3))
    x.tofile(tmp_path / "in.bin")
    program = built("graph_conditional", "-rdc=true", "-arch=sm_90")
    result = run(program, "in.bin", "out.bin", n_iterations, nested, switch)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == _expected(n_iterations, nested, switch)
    assert "cudaGraphSetConditional with handle" in result.stderr and "_Z6decidePKiy" in result.stderr
    assert "body holds a host node" in result.stderr
    out = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(4, -1)
    for row, scale in zip(out, (0.5, 0.25, 0.75)):
        np.testing.assert_array_equal(row, _loop(x, scale, n_iterations))
    np.testing.assert_array_equal(out[3], x * np.float32(2) + x * np.float32(3))


def test_the_graphs_kernels_profile_at_sass_level(built, cli, tmp_path):
    """cudaGraphSetConditional (cudadevrt's, `CALL.ABS` by name in the SASS) runs on the SASS
    executor: every launch gets SASS-level counts, and the program prints what `warpsim run` does."""
    rng = np.random.default_rng(12)
    rng.standard_normal(100 + int(rng.integers(0, 100))).astype(np.float32).tofile(tmp_path / "in.bin")
    program = built("graph_conditional", "-rdc=true", "-arch=sm_90")
    plain = cli("run", program, "in.bin", "out.bin", 3, 4, 2, cwd=tmp_path)
    profiled = cli("profile", program, "in.bin", "out.bin", 3, 4, 2, cwd=tmp_path)
    assert profiled.returncode == 0, profiled.stderr
    launches = [line for line in profiled.stdout.splitlines() if " grid (" in line and "sm_90" in line]
    assert len(launches) > 30 and all("[SASS-level counts]" in line for line in launches), launches[:3]
    printed = [line for line in profiled.stdout.splitlines() if line in set(plain.stdout.splitlines())]
    assert printed == plain.stdout.splitlines()
