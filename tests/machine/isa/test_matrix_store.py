"""stmatrix from hand-written PTX: x1/x2/x4, with and without .trans, rows at scattered addresses."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import UnsupportedInstruction

from hopper_ptx import HEADER, stmatrix_probe


def reference(words, rows, count, trans):
    """The 512-byte buffer stmatrix leaves: matrix j's row r at rows[8 j + r], 8 halves each."""
    halves = words.view(np.uint16).reshape(32, count, 2)
    buffer = np.zeros(256, np.uint16)
    for j in range(count):
        matrix = np.zeros((8, 8), np.uint16)
        for lane in range(32):
            matrix[lane // 4, 2 * (lane % 4):2 * (lane % 4) + 2] = halves[lane, j]
        if trans:
            matrix = matrix.T
        for r in range(8):
            start = rows[8 * j + r] // 2
            buffer[start:start + 8] = matrix[r]
    return buffer


@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_against_numpy(count, trans):
    rng = np.random.default_rng(count + 8 * trans)
    words = rng.integers(1, 1 << 32, (32, count), dtype=np.uint64).astype(np.uint32)
    rows = (rng.permutation(32) * 16).astype(np.uint32)          # 16-byte rows anywhere in the buffer
    out = cp.zeros(128, cp.uint32)
    module = cp.RawModule(ptx=stmatrix_probe(count, trans))
    module.get_function("stmatrix_probe")((1,), (32,), (cp.asarray(words), cp.asarray(rows), out))
    np.testing.assert_array_equal(out.get().view(np.uint16), reference(words, rows, count, trans))


def test_stmatrix_needs_its_registers():
    ptx = HEADER + """
.visible .entry k() {
    .reg .b32 %r<4>;
    stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r0], {%r1, %r2};
    ret;
}"""
    with pytest.raises(UnsupportedInstruction, match="takes 4 registers"):
        cp.RawModule(ptx=ptx).get_function("k")
