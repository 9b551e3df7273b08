"""CuPy-style array arithmetic around kernels, computed on the host."""

import numpy as np

import warpsim as cp


def test_operators_and_reductions_match_numpy():
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(100).astype(np.float32), rng.standard_normal(100).astype(np.float32)
    x, y = cp.asarray(a), cp.asarray(b)
    assert isinstance(x + y, cp.ndarray)
    assert np.array_equal((x + y).get(), a + b) and np.array_equal((2 * x - y / 3).get(), 2 * a - b / 3)
    assert np.array_equal((x > y).get(), a > b) and np.array_equal((-x).get(), -a)
    assert x.sum() == a.sum() and x.max() == a.max() and abs(x.mean() - a.mean()) < 1e-6


def test_module_functions_and_random():
    x = cp.asarray(np.arange(10, dtype=np.float64))
    assert np.array_equal(cp.sqrt(x).get(), np.sqrt(np.arange(10.0)))
    assert cp.allclose(x, np.arange(10.0)) and cp.pi == np.pi
    r = cp.random.rand(50)
    assert isinstance(r, cp.ndarray) and r.shape == (50,) and 0 <= float(r.min()) and float(r.max()) < 1


def test_cupy_cuda_names():
    cp.cuda.Device(0).synchronize()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.Stream.null.synchronize()
    assert cp.cuda.runtime.getDeviceCount() == 1
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record(); end.record(); end.synchronize()
    assert cp.cuda.get_elapsed_time(start, end) >= 0
