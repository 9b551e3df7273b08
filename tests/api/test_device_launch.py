"""Kernels launched from kernels through the CuPy API (NVRTC with -rdc=true): each child grid runs
after its parent grid, in launch order (machine/device_launch.py)."""

import numpy as np
import pytest

import warpsim as cp

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
extern "C" __global__ void scale(float *x, int first, int count, float by) {
    int i = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < first + count) x[i] = x[i] * by + blockIdx.x;
}
extern "C" __global__ void per_block(float *x, int n, int part) {
    int first = blockIdx.x * part;
    int count = min(part, n - first);
    if (threadIdx.x == 0 && count > 0) scale<<<(count + 15) / 16, 16>>>(x, first, count, blockIdx.x + 2.0f);
}
"""


def test_child_grids_match_numpy():
    rng = np.random.default_rng(31)
    n, part = 200 + int(rng.integers(0, 50)), 40
    x = rng.standard_normal(n).astype(np.float32)
    kernel = cp.RawModule(code=SOURCE, options=("-rdc=true",)).get_function("per_block")
    device_x = cp.asarray(x)
    kernel(((n + part - 1) // part,), (32,), (device_x, np.int32(n), np.int32(part)))
    i = np.arange(n)
    by = (i // part + 2).astype(np.float32)
    expected = (x.astype(np.float64) * by + (i % part) // 16).astype(np.float32)   # one fma
    np.testing.assert_array_equal(device_x.get(), expected)


ERRORS = r"""
extern "C" __global__ void child(int *x) { x[threadIdx.x] += 1; }
extern "C" __global__ void parent(int *x, int *errors, int threads) {
    child<<<1, threads>>>(x);
    errors[0] = cudaPeekAtLastError();
    errors[1] = cudaGetLastError();
    errors[2] = cudaGetLastError();
}
"""


@pytest.mark.parametrize("threads, error", [(32, 0), (2048, 9)])    # 9: cudaErrorInvalidConfiguration
def test_a_refused_device_side_launch_is_the_threads_last_error(threads, error):
    kernel = cp.RawModule(code=ERRORS, options=("-rdc=true",)).get_function("parent")
    x, errors = cp.zeros(32, dtype=cp.int32), cp.full(3, -1, dtype=cp.int32)
    kernel((1,), (1,), (x, errors, np.int32(threads)))
    assert errors.get().tolist() == [error, error, 0]
    assert x.get().tolist() == [0 if error else 1] * 32


STREAMS = r"""
extern "C" __global__ void add(int *x, int v) { x[threadIdx.x] = x[threadIdx.x] * 2 + v; }
extern "C" __global__ void parent(int *x, unsigned long long *handles, int *device) {
    cudaStream_t first, second;
    cudaEvent_t done;
    cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    add<<<1, 32, 0, first>>>(x, 1);
    cudaEventRecord(done, first);
    cudaStreamWaitEvent(second, done, 0);
    add<<<1, 32, 0, second>>>(x, 3);
    handles[0] = (unsigned long long)first;
    handles[1] = (unsigned long long)second;
    cudaGetDevice(device);
    cudaEventDestroy(done);
    cudaStreamDestroy(first);
    cudaStreamDestroy(second);
}
"""


def test_device_side_streams_and_events_keep_their_order():
    kernel = cp.RawModule(code=STREAMS, options=("-rdc=true",)).get_function("parent")
    rng = np.random.default_rng(37)
    x0 = rng.integers(-100, 100, 32, dtype=np.int32)
    x, handles, device = cp.asarray(x0), cp.zeros(2, dtype=cp.uint64), cp.full(1, -1, dtype=cp.int32)
    kernel((1,), (1,), (x, handles, device))
    np.testing.assert_array_equal(x.get(), (x0 * 2 + 1) * 2 + 3)       # first stream, then second
    first, second = handles.get().tolist()
    assert first != second and 0 not in (first, second) and device.get()[0] == 0


COPIES = r"""
extern "C" __global__ void bump(int *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = x[threadIdx.x] * 3 + 1; }
extern "C" __global__ void parent(const int *src, int *dst, int *filled, int *rows, int n, int *codes) {
    int part = blockIdx.x * n;
    codes[3 * blockIdx.x] = cudaMemcpyAsync(dst + part, src + part, n * sizeof(int), cudaMemcpyDeviceToDevice, 0);
    bump<<<1, n>>>(dst + part, n);               // the same stream: after the copy
    codes[3 * blockIdx.x + 1] = cudaMemsetAsync(filled + part, 0x5a, n * sizeof(int), 0);
    // two rows of 3 ints, 8 ints apart, from src's part
    codes[3 * blockIdx.x + 2] = cudaMemcpy2DAsync(rows + 16 * blockIdx.x, 8 * sizeof(int), src + part,
                                                  3 * sizeof(int), 3 * sizeof(int), 2, cudaMemcpyDeviceToDevice, 0);
}
"""


def test_device_side_copies_and_fills_run_in_stream_order_with_child_grids():
    rng = np.random.default_rng(37)
    blocks, n = 3, 24
    src = rng.integers(-1000, 1000, blocks * n).astype(np.int32)
    kernel = cp.RawModule(code=COPIES, options=("-rdc=true",)).get_function("parent")
    dst, filled = cp.zeros(blocks * n, dtype=cp.int32), cp.zeros(blocks * n, dtype=cp.int32)
    rows, codes = cp.full(16 * blocks, -7, dtype=cp.int32), cp.full(3 * blocks, -1, dtype=cp.int32)
    kernel((blocks,), (1,), (cp.asarray(src), dst, filled, rows, np.int32(n), codes))
    assert codes.get().tolist() == [0] * (3 * blocks)
    np.testing.assert_array_equal(dst.get(), src * 3 + 1)
    np.testing.assert_array_equal(filled.get(), np.full(blocks * n, 0x5a5a5a5a, dtype=np.int32))
    want = np.full((blocks, 16), -7, dtype=np.int32)
    for b in range(blocks):
        want[b, 0:3], want[b, 8:11] = src[b * n:b * n + 3], src[b * n + 3:b * n + 6]
    np.testing.assert_array_equal(rows.get(), want.ravel())


ERROR_TEXTS = r"""
extern "C" __global__ void texts(char *name, char *text, int code) {
    const char *a = cudaGetErrorName((cudaError_t)code), *b = cudaGetErrorString((cudaError_t)code);
    for (int i = 0; i < 63 && (i == 0 || a[i - 1]); ++i) name[i] = a[i];
    for (int i = 0; i < 63 && (i == 0 || b[i - 1]); ++i) text[i] = b[i];
}
"""


@pytest.mark.parametrize("code", [0, 1, 9, 700, 12345])
def test_device_side_error_names_and_strings_are_the_runtimes(code):
    from warpsim.runtime.errors import error_name, error_string
    kernel = cp.RawModule(code=ERROR_TEXTS, options=("-rdc=true",)).get_function("texts")
    name, text = cp.zeros(64, dtype=cp.uint8), cp.zeros(64, dtype=cp.uint8)
    kernel((1,), (1,), (name, text, np.int32(code)))
    read = lambda a: bytes(a.get()).split(b"\0")[0].decode()   # noqa: E731
    assert read(name) == error_name(code) and read(text) == error_string(code)
