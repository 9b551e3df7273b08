"""printf and assert in device code."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import TrapError

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void report(const int* x, float f) {
    int i = threadIdx.x;
    printf("t%d x=%d f=%.2f %s %lld %c|%5.1e|%x|%%\n", i, x[i], f, "str", (long long)i * 3, 'A' + i, -f, x[i]);
}
extern "C" __global__ void check(const int* x) {
    assert(x[threadIdx.x] >= 0);
}
"""


def test_printf_formats_every_thread_in_order(capfd):
    x = np.array([5, -7, 255], dtype=np.int32)
    cp.RawModule(code=SOURCE).get_function("report")((1,), (3,), (cp.asarray(x), np.float32(2.5)))
    out = capfd.readouterr().out.splitlines()
    assert out == [f"t{i} x={x[i]} f=2.50 str {3 * i} {chr(65 + i)}|-2.5e+00|{int(x[i]) & 0xffffffff:x}|%"
                   for i in range(3)]


def test_failed_assert_names_expression_file_line_and_thread():
    x = np.array([1, 2, -3, 4], dtype=np.int32)
    with pytest.raises(TrapError) as info:
        cp.RawModule(code=SOURCE).get_function("check")((1,), (4,), (cp.asarray(x),))
    msg = str(info.value)
    assert "Assertion `x[threadIdx.x] >= 0` failed" in msg and "kernel.cu:7" in msg
    assert "thread: (2, 0, 0)" in msg


def test_passing_assert_is_silent():
    x = cp.asarray(np.arange(4, dtype=np.int32))
    cp.RawModule(code=SOURCE).get_function("check")((1,), (4,), (x,))
