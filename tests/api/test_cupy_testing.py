"""warpsim's cupy.testing: its comparisons fail when NumPy and CuPy differ, and pass when they agree."""

import sys

import numpy as np
import pytest

import warpsim.api.cupy as cupy
from warpsim.api.cupy import testing


def test_numpy_cupy_allclose_runs_both_and_compares():
    seen = []

    @testing.numpy_cupy_allclose(rtol=1e-6)
    def agrees(xp):
        seen.append(xp)
        return xp.arange(5, dtype=np.float32) * 2

    @testing.numpy_cupy_allclose()
    def differs(xp):
        return xp.arange(5, dtype=np.float32) + (1 if xp is cupy else 0)

    agrees()
    assert set(seen) == {np, cupy}
    with pytest.raises(AssertionError):
        differs()


def test_type_check_and_accept_error():
    @testing.numpy_cupy_array_equal()
    def other_dtype(xp):
        return xp.arange(3, dtype=np.int32 if xp is cupy else np.int64)

    @testing.numpy_cupy_array_equal(accept_error=ValueError)
    def both_raise(xp):
        raise ValueError("alike")

    @testing.numpy_cupy_array_equal(accept_error=ValueError)
    def only_cupy_raises(xp):
        if xp is cupy:
            raise ValueError("only here")
        return np.zeros(1)

    with pytest.raises(AssertionError, match="dtypes differ"):
        other_dtype()
    both_raise()
    with pytest.raises(AssertionError, match="only the CuPy run raised"):
        only_cupy_raises()


def test_dtype_loops_hide_their_argument_and_name_the_failing_dtype():
    import inspect
    ran = []

    @testing.for_all_dtypes(no_bool=True)
    def loop(self, dtype):
        ran.append(np.dtype(dtype))
        assert np.dtype(dtype) != np.uint16

    assert list(inspect.signature(loop).parameters) == ["self"]
    with pytest.raises(AssertionError) as failure:
        loop(None)
    assert "dtype=uint16" in "".join(getattr(failure.value, "__notes__", []))
    assert np.dtype(np.bool_) not in ran and np.dtype(np.complex128) in ran


def test_parameterize_makes_one_class_per_parameter_set():
    module = sys.modules[__name__]

    @testing.parameterize(*testing.product({"a": [1, 2], "b": ["x"]}))
    class Case:
        pass

    made = [getattr(module, name) for name in dir(module) if name.startswith("Case_param_")]
    assert sorted((c.a, c.b) for c in made) == [(1, "x"), (2, "x")]
    assert Case.__test__ is False and all(c.__test__ for c in made)
    for c in made:
        delattr(module, c.__name__)


def test_shaped_arrays_are_the_same_on_both_sides():
    for dtype in (np.float32, np.int8, np.bool_, np.complex64):
        testing.assert_array_equal(testing.shaped_arange((2, 3), cupy, dtype),
                                   testing.shaped_arange((2, 3), np, dtype))
        random = testing.shaped_random((4, 5), cupy, dtype, seed=3)
        testing.assert_array_equal(random, testing.shaped_random((4, 5), np, dtype, seed=3))
    assert len(np.unique(testing.shaped_random((50,), np, np.float32))) > 40


def test_slow_marks_a_test_and_a_parameter_as_cupys_tests_use_it():
    @testing.slow
    def marked():
        pass
    assert [mark.name for mark in marked.pytestmark] == ["slow"]
    param = pytest.param(1, marks=testing.slow())          # CuPy's test_raw.py
    assert [mark.name for mark in param.marks] == ["slow"]
