"""A Hopper TMA program that gets cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion, as CUDA
C++ programs that do not link libcuda do (tests/runtime/programs/tensor_map_entry.cu): the map it encodes
is the bytes an H200's driver writes (semantics.tensor_maps), and a box loaded with
cp.async.bulk.tensor onto an mbarrier equals the NumPy slice, rows past the matrix read as zero. The entry
point's answers for a map the driver refuses, a symbol that does not exist and a version before the
function's are CUDA's documented ones."""

import numpy as np
import pytest

pytestmark = pytest.mark.programs

ROWS, COLS, BOX_ROWS, BOX_COLS = 100, 72, 16, 32
EXPECTED = """entry point found 1 status 0
encode 0
row stride not a multiple of 16: 1
deprecated entry point is the same function 1
im2col found 1, encoding 0
missing symbol: pointer NULL, status 1
before CUDA 12: pointer NULL, status 2
tensor map entry done""".splitlines()


def test_a_tma_box_loads_through_the_entry_points_tensor_map(built, run, tmp_path):
    matrix = np.random.default_rng(5).standard_normal((ROWS, COLS)).astype(np.float32)
    matrix.tofile(tmp_path / "matrix.bin")
    result = run(built("tensor_map_entry", "-arch=sm_90"), "matrix.bin", ROWS, COLS, "out.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == EXPECTED
    assert "strides [292] are not multiples of 16" in result.stderr
    boxes = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(2, BOX_ROWS, BOX_COLS)
    padded = np.zeros((ROWS + BOX_ROWS, COLS + BOX_COLS), np.float32)
    padded[:ROWS, :COLS] = matrix
    np.testing.assert_array_equal(boxes[0], padded[4:4 + BOX_ROWS, 8:8 + BOX_COLS])
    np.testing.assert_array_equal(boxes[1], padded[ROWS - 6:ROWS - 6 + BOX_ROWS, 40:40 + BOX_COLS])
    assert not boxes[1][6:].any()               # the rows past the matrix: zeros
