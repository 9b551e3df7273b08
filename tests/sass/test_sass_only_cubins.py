"""Cubins that carry only SASS (no PTX) run on the SASS executor: RawModule(path='k.cubin').

The cubin is made here with PyPI's `nvcc -cubin` (which stores no PTX in it), as
CuPy's own tests make theirs; results are compared with NumPy on random inputs.
"""

from __future__ import annotations


import numpy as np
import pytest

import warpsim
from warpsim.errors import TrapError
from warpsim.sass.loaded import SassOnlyError, SassOnlyModule, SassOnlyWarning

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
__constant__ float scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int launches;

extern "C" __global__ void scaled_axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] * scale[i & 3] + y[i];
    if (i == 0) atomicAdd(&launches, 1);
}

extern "C" __global__ void row_sums(const double *m, double *out, int cols) {
    extern __shared__ double part[];
    double s = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += m[blockIdx.x * cols + c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

extern "C" __global__ void histogram(const unsigned char *bytes, unsigned int *bins, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[bytes[i] >> 4], 1u);
}

extern "C" __global__ void says_hello(int *flag) { printf("hello %d from %d\n", *flag, threadIdx.x); }
"""


@pytest.fixture(scope="module")
def cubin_path(sass_only_cubin):
    from warpsim.sass.elf import ptx_text_in_cubin
    path = sass_only_cubin(SOURCE)
    assert not ptx_text_in_cubin(path.read_bytes())      # really SASS only
    return path


@pytest.fixture
def module(cubin_path):
    return warpsim.RawModule(path=str(cubin_path))


def test_axpy_with_constants_and_a_device_counter(module):
    rng = np.random.default_rng(3)
    n = 1000 + int(rng.integers(0, 50))
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    dx, dy = warpsim.asarray(x), warpsim.asarray(y)
    kernel = module.get_function("scaled_axpy")
    assert [p[1:3] for p in kernel.params] == [(0, 4), (8, 8), (16, 8), (24, 4)]    # from KPARAM_INFO
    kernel(((n + 255) // 256,), (256,), (np.float32(1.5), dx, dy, np.int32(n)))
    kernel((1,), (32,), (np.float32(0), dx, dy, np.int32(0)))
    scale = np.array([1, 2, 3, 4], dtype=np.float32)[np.arange(n) & 3]
    expected = (np.float64(1.5) * x * scale).astype(np.float32).astype(np.float64) + y
    np.testing.assert_allclose(dy.get(), expected, rtol=1e-5, atol=1e-6)
    counter = warpsim.ndarray((1,), np.int32, memptr=module.get_global("launches"))
    assert int(counter.get()[0]) == 2


def test_block_reduction_in_dynamic_shared_memory(module):
    rng = np.random.default_rng(5)
    m = rng.standard_normal((9, 333))
    out = warpsim.zeros(9, np.float64)
    module.get_function("row_sums")((9,), (128,), (warpsim.asarray(m), out, np.int32(333)),
                                    shared_mem=128 * 8)
    np.testing.assert_allclose(out.get(), m.sum(axis=1), rtol=1e-12)


def test_histogram_with_atomics_and_a_grid_stride_loop(module):
    data = np.random.default_rng(8).integers(0, 256, 5000, dtype=np.uint8)
    bins = warpsim.zeros(16, np.uint32)
    module.get_function("histogram")((4,), (64,), (warpsim.asarray(data), bins, np.int32(len(data))))
    np.testing.assert_array_equal(bins.get(), np.bincount(data >> 4, minlength=16))


def test_out_of_bounds_read_is_a_memory_fault_naming_the_sass(module):
    x = warpsim.zeros(10, np.float32)
    with pytest.raises(warpsim.errors.MemoryFault, match="LDG"):
        module.get_function("scaled_axpy")((1,), (64,), (np.float32(1), x, x, np.int32(64)))


def test_a_fault_no_tool_watched_is_still_counted_by_the_checker(module):
    """The sanitizer has no observer on a SASS-only launch, so its fault comes to it directly: a run
    that faulted never reads "ERROR SUMMARY: 0 errors"."""
    x = warpsim.zeros(10, np.float32)
    with pytest.warns(SassOnlyWarning), warpsim.check() as chk:
        with pytest.raises(warpsim.errors.MemoryFault):
            module.get_function("scaled_axpy")((1,), (64,), (np.float32(1), x, x, np.int32(64)))
    report = chk.report()
    assert chk.error_count == 1 and "Invalid memory access" in report and "LDG" in report
    assert "by thread (10,0,0) in block (0,0,0)" in report and "ERROR SUMMARY: 1 error" in report


def test_an_assert_stops_the_launch_naming_the_assertion(sass_only_cubin):
    source = ('#include <cassert>\n'
              'extern "C" __global__ void checks(const int *x) { assert(x[threadIdx.x] > 0); }\n')
    x = np.arange(1, 33, dtype=np.int32)
    x[int(np.random.default_rng(6).integers(0, 32))] = -5
    kernel = warpsim.RawModule(path=str(sass_only_cubin(source))).get_function("checks")
    with pytest.raises(TrapError, match=r"Assertion `x\[threadIdx.x\] > 0` failed") as caught:
        kernel((1,), (32,), (warpsim.asarray(x),))
    assert caught.value.thread == (int(np.flatnonzero(x < 0)[0]), 0, 0)


def test_a_device_runtime_call_the_executor_lacks_refuses_the_kernel(cubin_path):
    from warpsim.sass import sass_for_cubin
    from warpsim.sass.executor import load_program
    from warpsim.sass.executor.device_calls import refused_calls
    program, image = load_program(sass_for_cubin(cubin_path.read_bytes()), "says_hello")
    assert refused_calls(program, image) == []
    image.called_functions = [*image.called_functions, "__cudaCDP2Malloc"]
    assert refused_calls(program, image) == [("CALL.ABS", "a call of __cudaCDP2Malloc (CUDA device runtime), "
                                                          "which the SASS executor does not run")]


def test_device_malloc_and_free_run_from_sass_alone(sass_only_cubin):
    source = ('extern "C" __global__ void grab(long long *out) {\n'
              '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
              '  int *p = (int *)malloc(16 + 4 * (i & 3));\n'
              '  if (p) { p[i & 3] = i; out[i] = 3LL * p[i & 3]; free(p); } else out[i] = -1;\n}\n')
    out = warpsim.zeros(96, np.int64)
    warpsim.RawModule(path=str(sass_only_cubin(source))).get_function("grab")((3,), (32,), (out,))
    np.testing.assert_array_equal(out.get(), 3 * np.arange(96))


def test_printf_runs_from_sass_alone(module, capfd):
    flag = warpsim.asarray(np.array([int(np.random.default_rng(4).integers(10, 99))], dtype=np.int32))
    capfd.readouterr()
    module.get_function("says_hello")((1,), (3,), (flag,))
    value = int(flag.get()[0])
    assert capfd.readouterr().out == "".join(f"hello {value} from {t}\n" for t in range(3))


def test_no_ptx_is_said_not_guessed(module):
    with pytest.raises(ValueError, match="only SASS"):
        module.ptx  # noqa: B018
    assert isinstance(module.get_function("row_sums").loaded_module, SassOnlyModule)


def test_profile_and_check_say_they_do_not_cover_it(module):
    x = warpsim.zeros(8, np.float32)
    with pytest.warns(SassOnlyWarning, match="profiler's counters"):
        with warpsim.profile() as prof:
            module.get_function("scaled_axpy")((1,), (8,), (np.float32(1), x, x, np.int32(8)))
    assert len(prof) == 0


def test_a_file_that_is_not_a_cubin_is_refused(tmp_path):
    (tmp_path / "bad.cubin").write_bytes(b"not an ELF file at all, just text")
    with pytest.raises(ValueError, match="not a cubin"):
        warpsim.RawModule(path=str(tmp_path / "bad.cubin"))


def test_a_block_of_1024_threads_checks_the_cubins_register_count(module):
    """Past 256 threads a launch checks registers x threads against the register file: a module of
    SASS alone takes ptxas's count from the cubin (there is no PTX to count)."""
    kernel = module.get_function("scaled_axpy")
    assert 0 < kernel.num_regs <= 64
    rng = np.random.default_rng(8)
    n = 3000
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    dy = warpsim.asarray(y)
    kernel(((n + 1023) // 1024,), (1024,), (np.float32(-0.5), warpsim.asarray(x), dy, np.int32(n)))
    scale = np.array([1, 2, 3, 4], dtype=np.float32)[np.arange(n) & 3]
    np.testing.assert_allclose(dy.get(), np.float32(-0.5) * x * scale + y, rtol=1e-5, atol=1e-6)   # one FFMA
