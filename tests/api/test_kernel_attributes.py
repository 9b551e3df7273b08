"""RawKernel attributes, compile(log_stream=), pickling of compiled kernels, broadcast_to views."""

import io
import pickle

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void reverse64(float* x) {
    __shared__ float tile[64];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = tile[63 - threadIdx.x];
}
"""


def test_attributes_by_cupy_names():
    kernel = cp.RawKernel(SOURCE, "reverse64")
    attributes = kernel.attributes
    assert set(attributes) == {"binary_version", "cache_mode_ca", "const_size_bytes", "local_size_bytes",
                               "max_dynamic_shared_size_bytes", "max_threads_per_block", "num_regs",
                               "preferred_shared_memory_carveout", "ptx_version", "shared_size_bytes"}
    assert attributes["shared_size_bytes"] == 256
    assert attributes["max_threads_per_block"] == kernel.max_threads_per_block == 1024
    assert 1 <= kernel.num_regs <= 32
    assert attributes["binary_version"] == 90
    assert kernel.max_dynamic_shared_size_bytes == 48 * 1024 - 256
    kernel.max_dynamic_shared_size_bytes = 100_000
    assert kernel.attributes["max_dynamic_shared_size_bytes"] == 100_000
    function = cp.RawModule(code=SOURCE).get_function("reverse64")
    assert function.shared_size_bytes == 256 and function.num_regs == kernel.num_regs


def test_register_heavy_kernels_allow_fewer_threads():
    ptx = cp.RawKernel(SOURCE, "reverse64").ptx.replace(".entry reverse64(", ".entry reverse64(", 1)
    kernel = cp.RawModule(ptx=ptx.replace(")\n{", ")\n.maxntid 256, 1, 1\n{", 1)).get_function("reverse64")
    assert kernel.max_threads_per_block == 256


def test_compile_log_stream_gets_nvrtc_warnings():
    kernel = cp.RawKernel('extern "C" __global__ void unused_variable() { int x = 1; }', "unused_variable",
                          options=("-ftz=false",))
    log = io.StringIO()
    kernel.compile(log_stream=log)
    assert "warning" in log.getvalue()


def test_pickled_kernels_run_after_unpickling():
    kernel = cp.RawKernel(SOURCE, "reverse64")
    module = cp.RawModule(code=SOURCE)
    kernel.compile()
    for restored in (pickle.loads(pickle.dumps(kernel)),
                     pickle.loads(pickle.dumps(module)).get_function("reverse64")):
        x = cp.arange(64, dtype=cp.float32)
        restored((1,), (64,), (x,))
        np.testing.assert_array_equal(x.get(), np.arange(64)[::-1])


def test_broadcast_to_is_a_zero_stride_view():
    base = cp.arange(4, dtype=cp.int32)
    view = cp.broadcast_to(base, (3, 4))
    assert view.strides == (0, 4) and view.data.ptr == base.data.ptr
    base[1] = 40
    np.testing.assert_array_equal(view.get(), np.broadcast_to([0, 40, 2, 3], (3, 4)))
    column = cp.broadcast_to(cp.arange(3, dtype=cp.float64).reshape(3, 1), (2, 3, 5))
    assert column.strides == (0, 8, 0)
    with pytest.raises(ValueError):
        cp.broadcast_to(base, (3, 5))
    a, b = cp.broadcast_arrays(cp.zeros((2, 1)), cp.zeros(3))
    assert a.shape == b.shape == (2, 3)


def test_a_cubins_kernels_answer_their_attributes(tmp_path):
    """A kernel of a cubin without PTX (RawModule(path=...cubin)): its target as the PTX version, as
    cuFuncGetAttribute answers for a cubin built for sm_90, and the register-limited block size."""
    from warpsim.api.cupy.cuda.compiler import compile_using_nvcc
    path = tmp_path / "reverse.cubin"
    path.write_bytes(compile_using_nvcc(SOURCE, arch=90))
    function = cp.RawModule(path=str(path)).get_function("reverse64")
    attributes = function.attributes
    assert attributes["ptx_version"] == attributes["binary_version"] == 90
    assert attributes["shared_size_bytes"] == 256 and attributes["max_threads_per_block"] == 1024
