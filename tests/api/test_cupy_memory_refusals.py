"""CuPy's memory API refuses as CuPy does: a copy or memset outside an allocation is a
CUDARuntimeError naming cudaErrorInvalidValue (warpsim.errors.OutsideAllocation), a negative size
an OverflowError, a bad free an InvalidFree, get(out=) of another shape CuPy's ValueError."""

from __future__ import annotations

import numpy as np
import pytest

import warpsim as cp
from warpsim import errors
from warpsim.api import memory
from warpsim.api.cupy.cuda import runtime

pytestmark = pytest.mark.nvrtc


def _filled(n: int):
    values = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    pointer = memory.alloc(n)
    pointer.copy_from_host(values, n)
    return pointer, values


def _unchanged(pointer, values):
    host = np.empty_like(values)
    pointer.copy_to_host(host, values.size)
    np.testing.assert_array_equal(host, values)


@pytest.mark.parametrize("method", ["copy_from_host", "copy_to_host", "memset"])
def test_a_pointer_copy_past_its_allocation_is_cupys_runtime_error(method):
    pointer, values = _filled(64)
    host = np.zeros(128, np.uint8)
    call = {"copy_from_host": lambda: pointer.copy_from_host(host, 128),
            "copy_to_host": lambda: pointer.copy_to_host(host, 128),
            "memset": lambda: pointer.memset(1, 128)}[method]
    with pytest.raises(runtime.CUDARuntimeError) as caught:
        call()
    error = caught.value
    assert type(error) is errors.OutsideAllocation and isinstance(error, ValueError)
    assert error.runtime_error == "cudaErrorInvalidValue" and error.cuda_error == "CUDA_ERROR_INVALID_VALUE"
    assert f"of 128 bytes at 0x{pointer.ptr:x} runs 64 bytes past the end of the 64-byte " \
           f"allocation at 0x{pointer.ptr:x}" in str(error)
    _unchanged(pointer, values)
    assert not host[64:].any()


def test_a_device_copy_names_the_side_out_of_range():
    source, values = _filled(32)
    target, before = _filled(64)
    with pytest.raises(errors.OutsideAllocation, match=r"device copy \(source\) of 64 bytes"):
        target.copy_from_device(source, 64)
    _unchanged(target, before)


@pytest.mark.parametrize("call", [lambda p: p.copy_to_host(np.zeros(8, np.uint8), -1),
                                  lambda p: p.memset(0, -1),
                                  lambda p: runtime.memcpy(p.ptr, p.ptr, -1, runtime.cudaMemcpyDeviceToDevice)])
def test_a_negative_size_is_an_overflow_error_as_cupys_size_t(call):
    pointer, values = _filled(16)
    with pytest.raises(OverflowError, match="can't convert negative value to size_t") as caught:
        call(pointer)
    assert isinstance(caught.value, errors.NegativeSize) and caught.value.size == -1
    assert f"0x{pointer.ptr:x}" in str(caught.value)
    _unchanged(pointer, values)


def test_a_host_buffer_smaller_than_the_copy_is_refused():
    pointer, values = _filled(64)
    with pytest.raises(errors.HostBufferTooSmall, match=r"copy of 64 bytes .* host ndarray of 32 bytes"):
        pointer.copy_from_host(np.zeros(32, np.uint8), 64)
    with pytest.raises(ValueError, match="host bytes of 16 bytes|host bytes"):
        pointer.copy_to_host(bytes(16), 64)
    _unchanged(pointer, values)


def test_runtime_free_of_a_bad_pointer_and_memcpy_out_of_range():
    address = runtime.malloc(32)
    with pytest.raises(runtime.CUDARuntimeError, match=r"cudaErrorInvalidValue.*free of 0x.*8 bytes into "
                                                       r"the 32-byte allocation") as caught:
        runtime.free(address + 8)
    assert isinstance(caught.value, errors.InvalidFree)
    with pytest.raises(errors.OutsideAllocation, match="runs 32 bytes past the end"):
        runtime.memset(address, 0, 64)
    runtime.free(address)
    with pytest.raises(errors.InvalidFree, match="freed already"):
        runtime.free(address)


def test_get_into_an_out_of_another_shape_or_dtype_is_refused_as_cupy_does():
    values = np.random.default_rng(1).standard_normal(4).astype(np.float32)
    array = cp.asarray(values)
    out = np.zeros((3, 4), np.float32)           # would broadcast: a silent wrong result
    with pytest.raises(ValueError, match=r"Shape mismatch. Expected shape: \(4,\), actual shape: \(3, 4\)"):
        array.get(out=out)
    assert not out.any()
    with pytest.raises(TypeError, match="float64 array cannot be obtained from float32 array"):
        array.get(out=np.zeros(4))
    out = np.zeros(4, np.float32)
    assert array.get(out=out) is out
    np.testing.assert_array_equal(out, values)
