"""A batch's files kept for the program's next batch (executor/state.py: SassState.release) come back zero.

SassStates of a real kernel, every file filled with random bits and released: the next state of the same
shape takes the same arrays and starts as a new one would (zeros, PT set, every slot's first PC), while
one of another shape gets files of its own.
"""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.sass.executor.state import PT_ROW, SassState

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""
NAMES = ("R", "UR", "P", "UP", "B", "exclusive", "shared", "local", "pc")


def test_a_released_batchs_files_come_back_as_new_ones():
    from warpsim.frontends.nvrtc import compile_cuda
    from warpsim.sass import sass_for_ptx
    from warpsim.sass.executor.program import SassProgram
    program = SassProgram(sass_for_ptx(compile_cuda(SOURCE, name="scale.cu").ptx).kernel("scale"))
    rng = np.random.default_rng(42)

    def state(threads, ctas=3):
        return SassState(program, (ctas, 1, 1), (threads, 1, 1), np.arange(ctas), {}, 64, 32, None)
    expected = {name: getattr(state(80), name).copy() for name in NAMES}
    assert expected["P"][PT_ROW].all() and expected["UP"][PT_ROW].all() and not expected["R"].any()
    assert (expected["pc"].reshape(3, -1)[:, 80:] == -1).all() and (expected["pc"].reshape(3, -1)[:, :80] == 0).all()
    for _ in range(3):
        st = state(80)
        for name in NAMES:
            raw = getattr(st, name).view(np.uint8)
            raw[...] = rng.integers(0, 256, raw.shape, dtype=np.uint8)
        kept = [getattr(st, name) for name in NAMES]
        st.release()
        again = state(80)
        assert all(getattr(again, name) is array for name, array in zip(NAMES, kept))     # the same arrays
        for name in NAMES:
            np.testing.assert_array_equal(getattr(again, name), expected[name], err_msg=name)
        other = state(64)                       # another shape: files of its own
        assert other.R is not again.R and other.R.shape[1] == 3 * 64 and not other.R.any()
        again.release()
