"""Objects that are not arrays but hand one over, by CuPy's protocol or CUDA's."""

from __future__ import annotations


class DummyObjectWithCuPyGetNDArray:
    """Gives its array through `__cupy_get_ndarray__()`."""

    def __init__(self, array):
        self.array = array

    def __cupy_get_ndarray__(self):
        return self.array


class DummyObjectWithCudaArrayInterface:
    """Gives its array's memory through `__cuda_array_interface__`."""

    def __init__(self, array):
        self.array = array

    @property
    def __cuda_array_interface__(self):
        return self.array.__cuda_array_interface__
