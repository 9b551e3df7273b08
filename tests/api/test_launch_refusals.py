"""Launches CUDA refuses raise exported classes that carry CUDA's error names, and argument
mistakes say what was expected (CuPy's API: kernel(grid, block, args, shared_mem=...))."""

import pickle
import sys

import numpy as np
import pytest

import warpsim as cp
from warpsim import errors
from warpsim.api.args import KernelArgumentError
from warpsim.api.cupy.cuda.driver import CUDADriverError

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"


def _kernel(directive: str = "") -> str:
    """k(out): out[0] = 7, so a test can tell whether anything ran."""
    return HEADER + f""".visible .entry k(.param .u64 out) {directive}
{{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], 7;
    ret;
}}
"""


def _refusal(kernel, *launch, **options):
    out = cp.zeros(1, dtype=cp.uint32)
    with pytest.raises(errors.LaunchRefused) as caught:
        kernel(*launch, (out,), **options)
    assert out.get()[0] == 0                               # nothing ran
    return caught.value


def _is_exported(kind: type) -> bool:
    module = sys.modules[kind.__module__]
    return "<locals>" not in kind.__qualname__ and getattr(module, kind.__qualname__, None) is kind


@pytest.mark.parametrize("grid, block, what", [
    ((1,), (2048,), "block dimension x = 2048 is outside 1..1024"),
    ((1,), (32, 32, 2), "has 2048 threads; at most 1024"),
    ((1,), (1, 1, 128), "block dimension z = 128 is outside 1..64"),
    ((1, 65536), (32,), "grid dimension y = 65536 is outside 1..65535"),
    ((0,), (32,), "grid dimension x = 0 is outside"),
])
def test_dimensions_cuda_refuses_are_an_invalid_configuration(grid, block, what):
    error = _refusal(cp.RawModule(ptx=_kernel()).get_function("k"), grid, block)
    assert type(error) is errors.InvalidConfiguration and _is_exported(type(error))
    assert isinstance(error, errors.LaunchError) and isinstance(error, CUDADriverError)
    assert isinstance(error, ValueError)
    assert (error.cuda_error, error.runtime_error) == ("CUDA_ERROR_INVALID_VALUE", "cudaErrorInvalidConfiguration")
    assert error.status == "CUDA_ERROR_INVALID_VALUE"     # as CuPy's CUDADriverError has it
    assert str(error).startswith("CUDA_ERROR_INVALID_VALUE (cudaErrorInvalidConfiguration): ")
    assert what in str(error) and error.kernel == "k"


@pytest.mark.parametrize("shared_mem, what", [
    (-16, "negative"), ("lots", "shared_mem must be an int number of bytes, got 'lots'"),
    (64 * 1024, "exceed the kernel's max_dynamic_shared_size_bytes (49152)"),
])
def test_shared_memory_cuda_refuses_is_an_invalid_value(shared_mem, what):
    error = _refusal(cp.RawModule(ptx=_kernel()).get_function("k"), (1,), (1,), shared_mem=shared_mem)
    assert type(error) is errors.InvalidValue and _is_exported(type(error))
    assert str(error).startswith("CUDA_ERROR_INVALID_VALUE (cudaErrorInvalidValue): ")
    assert what in str(error)


def test_launch_bounds_refusals_name_their_cuda_errors():
    error = _refusal(cp.RawModule(ptx=_kernel(".maxntid 64, 1, 1")).get_function("k"), (1,), (65,))
    assert type(error) is errors.InvalidValue                  # CUDA_ERROR_INVALID_VALUE on the H200
    assert ".maxntid (64, 1, 1)" in str(error)
    error = _refusal(cp.RawModule(ptx=_kernel(".reqntid 32, 2")).get_function("k"), (1,), (64,))
    assert type(error) is errors.InvalidValue and ".reqntid" in str(error)


def test_a_refusal_pickles_as_itself():
    error = _refusal(cp.RawModule(ptx=_kernel()).get_function("k"), (1,), (2048,))
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and str(again) == str(error) and again.kernel == "k"


def test_every_error_class_is_exported_at_module_level():
    kinds = [value for value in vars(errors).values()
             if isinstance(value, type) and issubclass(value, BaseException)]
    assert errors.InvalidConfiguration in kinds and errors.LaunchOutOfResources in kinds
    assert all(_is_exported(kind) for kind in kinds)
    refusals = [kind for kind in kinds if issubclass(kind, errors.LaunchRefused) and kind is not errors.LaunchRefused]
    assert {kind.cuda_error for kind in refusals} >= {"CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"}
    assert all(kind.runtime_error.startswith("cudaError") for kind in refusals)


def test_arguments_not_in_a_tuple_say_so():
    function = cp.RawModule(ptx=HEADER + """.visible .entry k(.param .u64 out, .param .u64 x, .param .u32 n)
{
    ret;
}
""").get_function("k")
    out, x = cp.zeros(64, dtype=cp.uint32), cp.ones(64, dtype=cp.float32)
    with pytest.raises(KernelArgumentError) as caught:
        function((1,), (64,), out, x, np.uint32(64))        # what CuPy writes as ..., (out, x, n))
    message = str(caught.value)
    assert "kernel 'k': the kernel's arguments must be one tuple (or list)" in message
    assert "kernel(grid, block, (x, y, n))" in message
    assert ("got 3 values after block (ndarray(shape=(64,), dtype=uint32), "
            "ndarray(shape=(64,), dtype=float32), numpy.uint32 (4 bytes))") in message
    assert "shared_mem" not in message
    assert isinstance(caught.value, TypeError)               # what CuPy raises for the same call
    with pytest.raises(KernelArgumentError, match=r"got ndarray\(shape=\(64,\), dtype=uint32\) as args"):
        function((1,), (64,), out)
    assert not out.get().any()


@pytest.mark.nvrtc
def test_raw_kernel_arguments_not_in_a_tuple_say_so():
    kernel = cp.RawKernel(r'''extern "C" __global__ void scale(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }''', "scale")
    x, y = cp.arange(100, dtype=cp.float32), cp.zeros(100, dtype=cp.float32)
    with pytest.raises(KernelArgumentError, match=r"kernel 'scale': the kernel's arguments must be one "
                                                  r"tuple .*got 3 values after block"):
        kernel((1,), (128,), x, y, np.int32(100))
    with pytest.raises(KernelArgumentError, match="got ndarray"):
        kernel((1,), (128,), x)
    kernel((1,), (128,), [x, y, np.int32(100)])                # a list will do, as in CuPy
    assert np.array_equal(y.get(), 2 * np.arange(100, dtype=np.float32))
