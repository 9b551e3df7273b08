"""Numba launches CUDA refuses raise exported classes a program can catch by warpsim's name or
by the one numba-cuda raises (cuda.core's CUDAError); launch-syntax mistakes say what Numba
expects (`kernel[griddim, blockdim](args)`)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from warpsim import cuda, errors  # noqa: E402
from warpsim.api.args import KernelArgumentError  # noqa: E402
from warpsim.cuda import errors as numba_errors  # noqa: E402

pytestmark = pytest.mark.numba


@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 7


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # Numba's low-occupancy and host-array hints
        yield


def _exported(kind: type) -> bool:
    return "<locals>" not in kind.__qualname__ and \
        getattr(sys.modules[kind.__module__], kind.__qualname__, None) is kind


@pytest.mark.parametrize("grid, block", [(1, 2048), ((1, 65536), 32), (1, (1, 1, 128)), (0, 32)])
def test_dimensions_cuda_refuses(grid, block):
    from cuda.core._utils.cuda_utils import CUDAError
    a = np.zeros(64, np.int32)
    with pytest.raises(errors.InvalidConfiguration) as caught:
        fill[grid, block](a)
    error = caught.value
    assert type(error) is numba_errors.InvalidConfiguration and _exported(type(error))
    assert isinstance(error, CUDAError)                   # what numba-cuda's launch raises
    assert isinstance(error, ValueError)                  # numba-cuda's check of an axis below 1
    assert isinstance(error, errors.LaunchError)
    assert str(error).startswith("CUDA_ERROR_INVALID_VALUE (cudaErrorInvalidConfiguration): ")
    assert error.kernel.startswith("fill")
    assert not a.any()                                    # nothing ran, nothing copied back


def test_shared_memory_past_the_limit_is_an_invalid_value():
    from cuda.core._utils.cuda_utils import CUDAError
    with pytest.raises(numba_errors.InvalidValue) as caught:
        fill[1, 32, 0, 1 << 20](np.zeros(32, np.int32))
    assert isinstance(caught.value, errors.InvalidValue) and isinstance(caught.value, CUDAError)
    assert "max_dynamic_shared_size_bytes" in str(caught.value)


def test_a_block_past_launch_bounds_is_an_invalid_value():
    @cuda.jit(launch_bounds=64)
    def bounded(a):
        a[cuda.grid(1)] = 1

    a = np.zeros(128, np.int32)
    bounded[1, 64](a)
    with pytest.raises(errors.InvalidValue) as caught:           # the H200's driver: CUDA_ERROR_INVALID_VALUE
        bounded[1, 128](a)
    assert type(caught.value) is numba_errors.InvalidValue
    assert str(caught.value).startswith("CUDA_ERROR_INVALID_VALUE (cudaErrorInvalidValue): ")
    assert "launch bound of 64 threads" in str(caught.value)


def test_every_refusal_class_here_is_warpsims_and_numbas():
    from cuda.core._utils.cuda_utils import CUDAError
    for kind in numba_errors.NUMBA_KINDS.values():
        assert _exported(kind) and issubclass(kind, CUDAError) and issubclass(kind, errors.LaunchRefused)
        assert kind.__name__ == kind.__bases__[0].__name__     # the same name as warpsim.errors'


@pytest.mark.parametrize("launch, given", [
    (lambda: fill[1], "fill[1] (1 item)"),
    (lambda: fill[1, 32, 0, 0, 5], "fill[1, 32, 0, 0, 5] (5 items)"),
])
def test_too_few_or_too_many_launch_items(launch, given):
    with pytest.raises(ValueError) as caught:             # Numba's exception
        launch()
    assert type(caught.value) is numba_errors.LaunchConfigurationError
    message = str(caught.value)
    assert message.startswith("must specify at least the griddim and blockdim")   # Numba's words
    assert "fill[griddim, blockdim]" in message and given in message


def test_a_call_without_configuration():
    with pytest.raises(ValueError) as caught:
        fill(np.zeros(4, np.int32))
    message = str(caught.value)
    assert message.startswith("Kernel launch configuration was not specified")  # Numba's words
    assert "fill[blockspergrid, threadsperblock](...)" in message


def test_a_dimension_that_is_not_an_int():
    with pytest.raises(TypeError, match=r"griddim=1\.5.*griddim must be a sequence of integers"):
        fill[1.5, 32](np.zeros(4, np.int32))


def test_the_wrong_number_of_arguments():
    with pytest.raises(KernelArgumentError, match=r"kernel 'fill' takes 1 argument\(s\) \(a\), 2 given"):
        fill[1, 32](np.zeros(4, np.int32), np.zeros(4, np.int32))
