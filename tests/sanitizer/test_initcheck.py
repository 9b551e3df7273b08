"""initcheck: global loads of bytes that neither the host nor the device wrote."""

import numpy as np
import pytest

import warpsim as cp

from sanitizer_kernels import line_of

pytestmark = pytest.mark.nvrtc


def scale(hazards, x, n):
    y = cp.empty(n, dtype=cp.float32)
    with cp.check(tools=("initcheck",)) as chk:
        hazards.get_function("scale")(((n + 63) // 64,), (64,), (x, y, np.int32(n)))
    return chk, y


def test_reading_an_empty_array_is_reported_with_address_allocation_and_thread(hazards):
    x = cp.empty(100, dtype=cp.float32)
    chk, _ = scale(hazards, x, 100)
    assert len(chk.errors) == 1
    error = chk.errors[0]
    assert error.tool == "initcheck" and error.kind == "uninitialized read"
    assert error.count == 100 and error.unit == "reads"
    assert error.address == x.data.ptr and error.space == "global"
    place = error.accesses[0]
    assert place.thread == (0, 0, 0) and place.block == (0, 0, 0)
    assert place.source_line.endswith(line_of("y[i] = 2.0f * x[i];"))
    text = error.text()
    assert "Uninitialized __global__ memory read of size 4 bytes [100 reads]" in text
    assert f"Address 0x{x.data.ptr:x} is byte 0 of the 400-byte allocation at 0x{x.data.ptr:x}" in text


def test_reading_past_what_was_copied_is_reported(hazards):
    x = cp.empty(100, dtype=cp.float32)
    x[:60] = cp.asarray(np.ones(60, dtype=np.float32))
    chk, _ = scale(hazards, x, 100)
    error, = chk.errors
    assert error.count == 40
    assert error.address == x.data.ptr + 60 * 4
    assert error.accesses[0].thread == (60, 0, 0)


def test_zeros_asarray_and_device_written_arrays_are_clean(hazards):
    for x in (cp.zeros(100, dtype=cp.float32), cp.asarray(np.ones(100, dtype=np.float32))):
        chk, y = scale(hazards, x, 100)
        assert chk.ok, chk.report()
        chk, _ = scale(hazards, y, 100)              # y was empty(), written by the first launch
        assert chk.ok, chk.report()

