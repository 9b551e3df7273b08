"""cupy.random on warpsim: CuPy's interface (device arrays, dtypes, seeding, in-place shuffle)."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.api import random


def test_module_functions_return_device_arrays_of_cupys_default_dtypes():
    random.seed(7)
    for draw in (random.rand(3, 4), random.randn(3, 4), random.random_sample((3, 4)),
                 random.random((3, 4)), random.uniform(-2, 5, (3, 4)), random.normal(1, 2, (3, 4)),
                 random.standard_normal((3, 4))):
        assert isinstance(draw, cp.ndarray) and draw.dtype == np.float64 and draw.shape == (3, 4)
    assert random.rand().shape == () and isinstance(random.rand(), cp.ndarray)
    uniform = random.uniform(-2, 5, 1000).get()
    assert -2 <= uniform.min() < uniform.max() < 5 and uniform.std() > 1
    integers = random.randint(3, 9, (50,))
    assert integers.dtype == np.int64
    assert set(integers.get().tolist()) <= set(range(3, 9)) and len(set(integers.get().tolist())) > 3


def test_dtype_argument_is_honoured_and_checked_as_in_cupy():
    assert random.rand(5, dtype=np.float32).dtype == np.float32
    assert random.normal(size=4, dtype=np.float32).dtype == np.float32
    assert random.randint(0, 100, 5, dtype=np.int16).dtype == np.int16
    assert random.gamma(2.0, size=3, dtype=np.float32).dtype == np.float32
    assert random.poisson(4.0, 6).dtype.kind == "i"
    with pytest.raises(TypeError, match="only supports float32 and float64"):
        random.rand(3, dtype=np.int32)


def test_seed_makes_the_stream_reproducible():
    random.seed(123)
    first = random.randn(16).get()
    random.seed(123)
    np.testing.assert_array_equal(random.randn(16).get(), first)
    assert not np.array_equal(random.randn(16).get(), first)
    state = random.RandomState(5)
    np.testing.assert_array_equal(state.rand(4).get(), random.RandomState(5).rand(4).get())


def test_choice_permutation_and_in_place_shuffle():
    random.seed(1)
    source = cp.asarray(np.arange(10, 30))
    picked = random.choice(source, size=(3, 4), replace=False)
    assert picked.shape == (3, 4) and len(set(picked.get().ravel().tolist())) == 12
    assert set(picked.get().ravel().tolist()) <= set(range(10, 30))
    assert random.choice(5).shape == ()
    weighted = random.choice(3, size=200, p=cp.asarray([0.0, 0.0, 1.0]))
    assert (weighted.get() == 2).all()
    np.testing.assert_array_equal(np.sort(random.permutation(12).get()), np.arange(12))
    matrix = np.arange(24).reshape(6, 4)
    device = cp.asarray(matrix)
    random.shuffle(device)                     # rows move, each row intact, the same array
    rows = device.get()
    assert sorted(map(tuple, rows)) == sorted(map(tuple, matrix)) and not np.array_equal(rows, matrix)
    with pytest.raises(TypeError, match="must be cupy.ndarray"):
        random.shuffle(matrix)


def test_shuffling_a_view_writes_through_to_its_base():
    random.seed(4)
    base = cp.asarray(np.arange(20))
    random.shuffle(base[5:15])
    host = base.get()
    np.testing.assert_array_equal(host[:5], np.arange(5))
    np.testing.assert_array_equal(host[15:], np.arange(15, 20))
    assert sorted(host[5:15].tolist()) == list(range(5, 15)) and host[5:15].tolist() != list(range(5, 15))


def test_default_rng_generator():
    generator = random.default_rng(42)
    values = generator.random(1000, dtype=np.float32)
    assert values.dtype == np.float32 and 0 <= values.get().min() and values.get().max() < 1
    np.testing.assert_array_equal(random.default_rng(42).random(1000, dtype=np.float32).get(),
                                  values.get())
    integers = generator.integers(0, 10, (4, 4))
    assert integers.dtype == np.int64 and integers.get().max() < 10
    normal = generator.standard_normal(5000)
    assert normal.dtype == np.float64 and abs(normal.get().mean()) < 0.1
    out = cp.zeros(3)
    assert generator.random(3, out=out) is out and out.get().min() > 0
    assert cp.random.default_rng is random.default_rng
