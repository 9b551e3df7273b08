"""warpsim.cuda's device arrays refuse copies between mismatched arrays as Numba does: a TypeError
for another dtype, a ValueError for another shape (axes of length 1 aside), Numba's message first."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from warpsim import cuda, errors  # noqa: E402

pytestmark = pytest.mark.numba


def test_copy_to_host_into_another_shape_is_numbas_value_error():
    values = np.random.default_rng(2).standard_normal(8).astype(np.float32)
    device = cuda.to_device(values)
    host = np.zeros(6, np.float32)
    with pytest.raises(ValueError, match=r"^incompatible shape: \(8,\) vs. \(6,\)") as caught:
        device.copy_to_host(host)
    assert isinstance(caught.value, errors.IncompatibleShape)
    assert f"device array at 0x{device.data.ptr:x} holds 8 float32 elements, 32 bytes" in str(caught.value)
    assert "6 float32 elements, 24 bytes" in str(caught.value) and not host.any()
    with pytest.raises(errors.IncompatibleShape):       # same size, another shape: Numba refuses it too
        device.copy_to_host(np.zeros((2, 4), np.float32))
    column = np.zeros((8, 1), np.float32)               # length-1 axes are squeezed, as Numba's
    np.testing.assert_array_equal(device.copy_to_host(column).ravel(), values)


def test_copy_to_device_of_another_size_or_dtype():
    device = cuda.to_device(np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError, match=r"^incompatible shape: \(4,\) vs. \(5,\)"):
        device.copy_to_device(np.arange(5, dtype=np.int32))
    with pytest.raises(TypeError, match=r"^incompatible dtype: int32 vs. float64") as caught:
        device.copy_to_device(np.arange(4, dtype=np.float64))
    assert isinstance(caught.value, errors.IncompatibleDtype)
    np.testing.assert_array_equal(device.copy_to_host(), np.arange(4))
    values = np.random.default_rng(3).integers(-9, 9, 4).astype(np.int32)
    device.copy_to_device(values)
    np.testing.assert_array_equal(device.copy_to_host(), values)
