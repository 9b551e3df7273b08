"""Refused host-side memory operations (free, host copies, memset) raise exported classes with the
driver's and the runtime's error names, name the address, size and allocation, and change nothing."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from warpsim import errors
from warpsim.machine.memory import GlobalMemory


@pytest.fixture
def heap():
    memory = GlobalMemory()
    first, second = memory.allocate(16), memory.allocate(32)
    data = np.random.default_rng(7).integers(0, 256, 32, dtype=np.uint8)
    memory.write_bytes(second, data)
    return memory, first, second, data


def _refused(kind, call):
    with pytest.raises(kind) as caught:
        call()
    error = caught.value
    assert isinstance(error, (errors.MemoryRefused, ValueError, errors.WarpsimError))
    return error, str(error)


def test_a_free_inside_an_allocation_names_it(heap):
    memory, first, second, data = heap
    error, message = _refused(errors.InvalidFree, lambda: memory.free(second + 8))
    assert isinstance(error, ValueError) and isinstance(error, errors.CUDARuntimeError)
    assert error.cuda_error == error.status == "CUDA_ERROR_INVALID_VALUE"
    assert error.runtime_error == "cudaErrorInvalidValue"
    assert message.startswith("CUDA_ERROR_INVALID_VALUE (cudaErrorInvalidValue): free of "
                              f"0x{second + 8:x}")
    assert f"8 bytes into the 32-byte allocation at 0x{second:x}" in message
    assert "test_heap_refusals.py" in message          # where it was allocated
    assert error.address == second + 8 and error.operation == "free"
    np.testing.assert_array_equal(memory.read_bytes(second, 32), data)   # still live, unchanged


def test_a_double_free_says_where_it_was_freed(heap):
    memory, first, *_ = heap
    memory.free(first)
    _, message = _refused(errors.InvalidFree, lambda: memory.free(first))
    assert f"free of 0x{first:x}" in message and "freed already: the 16-byte allocation" in message


def test_a_free_of_no_allocation_names_the_nearest_below(heap):
    memory, first, second, _ = heap
    _, message = _refused(errors.InvalidFree, lambda: memory.free(second + 4096))
    assert "no allocation holds it" in message and f"32-byte allocation at 0x{second:x}" in message
    _, message = _refused(errors.InvalidFree, lambda: memory.free(0x10))
    assert "none lies below it" in message


@pytest.mark.parametrize("operation", ["read", "write", "memset"])
def test_a_host_copy_past_the_end_says_by_how_much(heap, operation):
    memory, first, second, data = heap
    call = {"read": lambda: memory.read_bytes(second + 24, 16),
            "write": lambda: memory.write_bytes(second + 24, np.zeros(16, np.uint8)),
            "memset": lambda: memory.memset(second + 24, 0, 16)}[operation]
    error, message = _refused(errors.OutsideAllocation, call)
    assert error.runtime_error == "cudaErrorInvalidValue" and error.size == 16
    what = "memset" if operation == "memset" else "host copy"
    assert f"{what} of 16 bytes at 0x{second + 24:x} runs 8 bytes past the end of the 32-byte " \
           f"allocation at 0x{second:x}" in message
    np.testing.assert_array_equal(memory.read_bytes(second, 32), data)   # nothing written


def test_a_host_copy_outside_every_allocation_and_after_free(heap):
    memory, first, second, _ = heap
    _, message = _refused(errors.OutsideAllocation, lambda: memory.read_bytes(second + 40, 4))
    assert "is outside any allocation" in message and f"ending at 0x{second + 32:x}" in message
    memory.free(first)
    _, message = _refused(errors.OutsideAllocation, lambda: memory.read_bytes(first, 4))
    assert "is a use after free: the 16-byte allocation" in message


@pytest.mark.parametrize("operation", ["read", "memset"])
def test_a_negative_size_is_refused(heap, operation):
    memory, first, second, data = heap
    call = {"read": lambda: memory.read_bytes(second, -3),
            "memset": lambda: memory.memset(second, 0, -3)}[operation]
    error, message = _refused(errors.NegativeSize, call)
    assert isinstance(error, OverflowError) and isinstance(error, ValueError)
    assert f"of -3 bytes at 0x{second:x}" in message and "18,446,744,073,709,551,613" in message
    np.testing.assert_array_equal(memory.read_bytes(second, 32), data)


def test_refusals_pickle_as_what_they_were(heap):
    memory, _, second, _ = heap
    with pytest.raises(errors.OutsideAllocation) as caught:
        memory.read_bytes(second, 64)
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is errors.OutsideAllocation and str(again) == str(caught.value)
    assert again.address == second and again.size == 64
